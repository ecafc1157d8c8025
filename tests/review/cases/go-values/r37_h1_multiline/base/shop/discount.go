package shop

// Discount is the discount in cents on an order of total cents: silver 5% from 20000, gold 10% from 50000.
func Discount(total int) int {
	switch {
	case total >= 50000:
		return total * 10 / 100
	case total >= 20000:
		return total * 5 / 100
	}
	return 0
}
