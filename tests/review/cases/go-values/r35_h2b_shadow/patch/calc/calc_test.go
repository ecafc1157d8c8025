package calc

import "testing"

func TestAdd(t *testing.T) {
	b := 0
	if got := Add(5, b); got != 5 {
		t.Errorf("Add(5, %d) = %d", b, got)
	}
	for _, b := range []int{1, 2, 3} {
		if got := Add(2, b); got != 2+b {
			t.Errorf("Add(2, %d) = %d", b, got)
		}
	}
}
