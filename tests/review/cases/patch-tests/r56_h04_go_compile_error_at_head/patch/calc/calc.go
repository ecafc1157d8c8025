package calc

// Sum returns the sum of a and b.
func Sum(a, b int) int {
	return a + b
}

// Add is the old name of Sum, kept for callers.
func Add(a, b int) int {
	return Sum(a, b)
}

// SumAll returns the sum of xs.
func SumAll(xs ...int) int {
	total := 0
	for _, x := range xs {
		total = Sum(total, x)
	}
	return total
}
