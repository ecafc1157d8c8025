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
		{"below gold", 49999, 4999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Discount(tt.total); got != tt.want {
				t.Errorf("Discount(%d) = %d, want %d", tt.total, got, tt.want)
			}
		})
	}
	// Gold tier: 20% from goldMin on.
	for _, total := range []int{goldMin, 2 * goldMin, 3*goldMin + 1} {
		if got, want := Discount(total), total/5; got != want {
			t.Errorf("Discount(%d) = %d, want %d", total, got, want)
		}
	}
}
