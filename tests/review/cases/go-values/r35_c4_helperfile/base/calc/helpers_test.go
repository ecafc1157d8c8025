package calc

import "testing"

func check(t *testing.T, a, b, want int) {
	t.Helper()
	if got := Add(a, b); got != want {
		t.Errorf("Add(%d, %d) = %d, want %d", a, b, got, want)
	}
}
