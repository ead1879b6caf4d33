package storetest

import "github.com/typeshift-go/typeshift/storage"

// Basic returns s with only the methods of [storage.Store], and those of [storage.Budgeter] when s keeps budgets:
// a store as plain as one can be, whose runs go the way storeutil.Runs builds from the basic methods. Run the
// suite through it too, as the memory and Postgres stores do, to check that way on your store:
//
//	storetest.Run(t, func(t *testing.T) storage.Store { return storetest.Basic(newStore(t)) })
func Basic(s storage.Store) storage.Store {
	if b, ok := s.(storage.Budgeter); ok {
		return basicBudgeter{basic{s}, b}
	}
	return basic{s}
}

// basic hides every method of its store but those of storage.Store.
type basic struct{ storage.Store }

// basicBudgeter is basic with storage.Budgeter's methods.
type basicBudgeter struct {
	basic
	storage.Budgeter
}
