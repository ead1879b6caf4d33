// Package storetest checks that a store keeps the rules of package storage,
// and breaks stores on purpose for the tests of code that uses them.
//
// A store's own tests call [Run] with a constructor that returns a fresh,
// empty store for each rule:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storage.Store { return memory.New() })
//	}
//
// The rules of the run contract check [storage.RunStore] as storeutil.Runs
// gives it: the store's own, or one built from its basic methods. Run the
// suite through [Basic] too, which hides every method but the basic ones, to
// check that fallback on the store.
//
// [Check] runs the same rules against one store outside of go test and
// returns what failed; `typeshift verify-store` prints it. The rules only
// touch settings ids and conversation ids of their own (a random prefix) and
// delete what they wrote, so Check may run against a database in use.
//
// [FailAfter] and [FailFrom] wrap a store so that a chosen write fails, for
// tests that show a run loses nothing when its store does.
package storetest
