package temp

// Celsius converts degrees Fahrenheit to degrees Celsius.
func Celsius(f float64) float64 {
	return (f - 32) * 5 / 9
}
