package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	if a >= 0 && b >= 0 {
		return a + b
	}
	return abs(a - b)
}

// Twice returns 2a.
func Twice(a int) int {
	return 2 * a
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
