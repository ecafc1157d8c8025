package temp

import (
	"math"
	"testing"
)

func TestCelsius(t *testing.T) {
	if got := Celsius(212); got != 100 {
		t.Errorf("Celsius(212) = %v, want 100", got)
	}
	if got := Celsius(98.6); math.Abs(got-37) > 1e-9 {
		t.Errorf("Celsius(98.6) = %v, want 37", got)
	}
}
