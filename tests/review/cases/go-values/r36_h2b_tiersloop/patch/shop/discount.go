package shop

// Order totals (cents) from which a tier's discount applies.
const (
	silverMin = 10000 // 10%
	goldMin   = 50000 // 20%
)

// Discount returns the discount in cents for an order total in cents.
func Discount(total int) int {
	switch {
	case total >= goldMin:
		return total / 5
	case total >= silverMin:
		return total / 10
	}
	return 0
}
