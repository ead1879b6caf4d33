package storeutil_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

func TestPageLimit(t *testing.T) {
	is := is.New(t)
	for _, tt := range []struct{ limit, want int }{{0, 50}, {-3, 50}, {1, 1}, {1000, 1000}, {5000, 1000}} {
		is.Equal(storeutil.PageLimit(storage.ListOptions{Limit: tt.limit}), tt.want)
	}
}
