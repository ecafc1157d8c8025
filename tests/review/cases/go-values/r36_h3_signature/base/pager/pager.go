package pager

// Pages returns how many pages of 10 items hold total items.
func Pages(total int) int {
	return (total + 9) / 10
}
