package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(20, 30); got != 50 {
		t.Errorf("Add(20, 30) = %d, want 50", got)
	}
	if got := Add(-1, -2); got != -3 {
		t.Errorf("Add(-1, -2) = %d, want -3", got)
	}
}

func TestZero(t *testing.T) {
	if got := Add(0, 0); got != 0 {
		t.Errorf("Add(0, 0) = %d, want 0", got)
	}
}
