package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 2) != 4 {
		t.Error("2+2")
	}
	if Add(3, 3) != 6 {
		t.Error("3+3")
	}
	n := len("abcd")
	if Add(n, n) != 2*n {
		t.Error("n+n")
	}
}
