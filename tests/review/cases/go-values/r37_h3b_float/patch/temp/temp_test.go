package temp

import (
	"math"
	"testing"
)

func TestCelsius(t *testing.T) {
	if got := Celsius(212); got != 100 {
		t.Errorf("Celsius(212) = %v, want 100", got)
	}
	if got := Celsius(-40); math.Abs(got+40) > 1e-9 {
		t.Errorf("Celsius(-40) = %v, want -40", got)
	}
}
