package pager

// PageSize is how many items a page holds; set from the configuration.
var PageSize int

// Pages returns how many pages of PageSize items hold total items.
func Pages(total int) int {
	return (total + PageSize - 1) / PageSize
}
