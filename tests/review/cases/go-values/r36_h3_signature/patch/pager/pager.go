package pager

// DefaultPageSize is used when a caller passes a size below 1.
const DefaultPageSize = 10

// Pages returns how many pages of size items hold total items.
func Pages(total, size int) int {
	if size < 1 {
		size = DefaultPageSize
	}
	return (total + size - 1) / size
}
