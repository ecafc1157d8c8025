package pager

import "testing"

func TestPages(t *testing.T) {
	if got := Pages(25, 10); got != 3 {
		t.Errorf("Pages(25, 10) = %d, want 3", got)
	}
	if got := Pages(0, 10); got != 0 {
		t.Errorf("Pages(0, 10) = %d, want 0", got)
	}
	if got := Pages(25, 0); got != 3 {
		t.Errorf("Pages(25, 0) = %d, want 3 (default size)", got)
	}
}
