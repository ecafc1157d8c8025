package calc

import "testing"

const one = 1

func TestAdd(t *testing.T) {
	if Add(2, 2) != 4 {
		t.Error("2+2")
	}
	if Add(one, 3) != 4 {
		t.Error("1+3")
	}
}
