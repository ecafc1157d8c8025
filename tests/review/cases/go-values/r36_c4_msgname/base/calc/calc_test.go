package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 2) != 4 {
		t.Error("2+2")
	}
	if Add(1, 3) != 4 {
		t.Error("1+3")
	}
}
