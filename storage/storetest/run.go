package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/typeshift-go/typeshift/storage"
)

// Run checks every rule against a fresh store from newStore, one subtest per
// rule. newStore should register its own clean-up with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	t.Helper()
	for _, rl := range rules {
		t.Run(rl.name, func(t *testing.T) {
			s := newStore(t)
			r := newRec(t.Context(), s)
			defer r.cleanUp()
			rl.run(r)
			for _, err := range r.errs {
				t.Error(err)
			}
		})
	}
}

// Check runs every rule against s and returns what fails, each error naming
// its rule. It writes only under settings ids of its own and deletes them
// afterwards, so it is safe on a store in use. The rule on corrupt entries
// runs only when s is a [Corrupter].
func Check(ctx context.Context, s storage.Store) []error {
	var errs []error
	for _, rl := range rules {
		if err := ctx.Err(); err != nil {
			return append(errs, err)
		}
		r := newRec(ctx, s)
		rl.run(r)
		r.cleanUp()
		for _, err := range r.errs {
			errs = append(errs, fmt.Errorf("%s: %w", rl.name, err))
		}
	}
	return errs
}

// Rules returns the names of the rules Run and Check apply, in order.
func Rules() []string {
	names := make([]string, len(rules))
	for i, rl := range rules {
		names[i] = rl.name
	}
	return names
}
