package shop

import "testing"

const goldMin = 50 * 1000

func TestDiscount(t *testing.T) {
	if got := Discount(10000); got != 0 {
		t.Errorf("Discount(10000) = %d, want 0", got)
	}
	if got := Discount(20000); got != 1000 {
		t.Errorf("Discount(20000) = %d, want 1000", got)
	}
	if got := Discount(goldMin); got != 10000 {
		t.Errorf("Discount(%d) = %d, want 10000", goldMin, got)
	}
}
