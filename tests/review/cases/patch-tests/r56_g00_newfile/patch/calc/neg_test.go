package calc

import "testing"

func TestNegativeSums(t *testing.T) {
	if got := Add(-1, -2); got != -3 {
		t.Errorf("Add(-1, -2) = %d, want -3", got)
	}
}
