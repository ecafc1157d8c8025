package calc

import "testing"

func TestAdd(t *testing.T) {
	a := 1
	if Add(2, 2) != 4 {
		t.Error("2+2")
	}
	for _, a := range []int{3} {
		if Add(a, 3) != 6 {
			t.Error("3+3")
		}
	}
	_ = a
}
