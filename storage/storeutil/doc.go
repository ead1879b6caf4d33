// Package storeutil holds what writers of a store need and callers of one do not: the checks every store runs on
// what it is given and on what it reads back, so that all stores accept and reject alike, and the form in which
// they keep times. The memory and Postgres stores use it; a store of your own should too, and pass the conformance
// suite in [github.com/typeshift-go/typeshift/storage/storetest].
//
// Callers of a store need none of it: [storage] is the contract, its types, errors and the checks a caller may
// run itself ([storage.CheckIDs], [storage.CheckJSON], [storage.CheckText]).
package storeutil
