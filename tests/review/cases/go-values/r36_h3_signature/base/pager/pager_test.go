package pager

import "testing"

func TestPages(t *testing.T) {
	if got := Pages(25); got != 3 {
		t.Errorf("Pages(25) = %d, want 3", got)
	}
	if got := Pages(0); got != 0 {
		t.Errorf("Pages(0) = %d, want 0", got)
	}
}
