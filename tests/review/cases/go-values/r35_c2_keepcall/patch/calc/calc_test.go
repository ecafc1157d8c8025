package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 2) != 4 {
		t.Error("2+2")
	}
	if Add(3, 3) != 6 {
		t.Error("3+3")
	}
	t.Logf("1+3 = %d", Add(1, 3))
}
