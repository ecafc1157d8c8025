package calc

import "testing"

func TestAdd(t *testing.T) {
	check(t, 2, 2, 4)
	check(t, 1, 3, 4)
}
