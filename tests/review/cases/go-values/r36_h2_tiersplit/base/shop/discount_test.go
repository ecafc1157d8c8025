package shop

import "testing"

func TestDiscount(t *testing.T) {
	tests := []struct {
		name  string
		total int
		want  int
	}{
		{"small", 5000, 0},
		{"silver threshold", 10000, 1000},
		{"silver", 20000, 2000},
		{"large", 50000, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Discount(tt.total); got != tt.want {
				t.Errorf("Discount(%d) = %d, want %d", tt.total, got, tt.want)
			}
		})
	}
}
