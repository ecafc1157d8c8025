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
}

func TestDiscountGold(t *testing.T) {
	tests := []struct {
		name  string
		total int
		want  int
	}{
		{"gold threshold", 50000, 10000},
		{"gold", 100000, 20000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Discount(tt.total); got != tt.want {
				t.Errorf("Discount(%d) = %d, want %d", tt.total, got, tt.want)
			}
		})
	}
}
