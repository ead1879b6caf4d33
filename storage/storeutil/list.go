package storeutil

import "github.com/typeshift-go/typeshift/storage"

// defaultListLimit is the page size of a List whose options give none.
const defaultListLimit = 50

// PageLimit returns the page size a List takes for opts: defaultListLimit (50) when opts.Limit is zero or below,
// at most [storage.MaxListLimit].
func PageLimit(opts storage.ListOptions) int {
	switch {
	case opts.Limit <= 0:
		return defaultListLimit
	case opts.Limit > storage.MaxListLimit:
		return storage.MaxListLimit
	}
	return opts.Limit
}
