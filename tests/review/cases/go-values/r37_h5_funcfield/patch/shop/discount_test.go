package shop

import "testing"

func TestDiscount(t *testing.T) {
	if got := Discount(20000); got != 1000 {
		t.Errorf("Discount(20000) = %d, want 1000", got)
	}
	tests := []struct {
		name  string
		fn    func(int) int
		total int
		want  int
	}{
		{"none", Discount, 10000, 0},
		{"gold", Discount, 60000, 12000},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.total); got != tt.want {
			t.Errorf("%s(%d) = %d, want %d", tt.name, tt.total, got, tt.want)
		}
	}
}
