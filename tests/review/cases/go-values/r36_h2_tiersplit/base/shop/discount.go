package shop

// Discount returns the discount in cents for an order total in cents.
func Discount(total int) int {
	if total >= 10000 {
		return total / 10
	}
	return 0
}
