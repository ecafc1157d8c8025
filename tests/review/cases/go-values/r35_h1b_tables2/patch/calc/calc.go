package calc

func Add(a, b int) int {
	sum := a + b
	return sum
}
