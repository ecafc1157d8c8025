package calc

func Add(a, b int) int {
	return a - b
}
