package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 2); got != 4 {
		t.Errorf("Add = %d, want 4", got)
	}
	if got := Add(3, 3); got != 6 {
		t.Errorf("Add = %d, want 6", got)
	}
}
