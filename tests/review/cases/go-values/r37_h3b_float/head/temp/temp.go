package temp

// fahrenheitPerCelsius is how many Fahrenheit degrees make one Celsius degree.
const fahrenheitPerCelsius = 9.0 / 5

// Celsius converts degrees Fahrenheit to degrees Celsius.
func Celsius(f float64) float64 {
	return (f - 32) * fahrenheitPerCelsius
}
