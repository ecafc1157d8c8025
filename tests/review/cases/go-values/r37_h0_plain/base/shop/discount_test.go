package shop

import "testing"

func TestDiscount(t *testing.T) {
	if got := Discount(10000); got != 0 {
		t.Errorf("Discount(10000) = %d, want 0", got)
	}
	if got := Discount(20000); got != 1000 {
		t.Errorf("Discount(20000) = %d, want 1000", got)
	}
	if got := Discount(50000); got != 5000 {
		t.Errorf("Discount(50000) = %d, want 5000", got)
	}
}
