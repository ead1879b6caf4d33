// Package metering holds what the agent package and agent/budget share about metering runs beyond the one hook a
// user implements (agent.Meter): the run a meter is told of, and the steps a meter that keeps budgets in the run's
// store takes with the run's store work (storage.RunStore): its first reservation made with the run's settings
// read, its end settled with the run's last entries, its budget handed on with the run.
package metering

import (
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// Run names the run a meter meters (agent.MeteredRun).
type Run struct {
	// SettingsID is the run's tenant; a sub-agent's run has its caller's.
	SettingsID string
	// ConversationID is the run's conversation, or "" for a run without one.
	ConversationID string
	// LeaseToken is the token of the run's claim on its conversation (see storage.Claim), or "": what the meter
	// holds for the run may be tied to the claim, and so end with it when the process dies.
	LeaseToken string
	// LeaseTTL is how long the run's claim lasts unless renewed: what a meter holds for a run without a
	// conversation lasts as long.
	LeaseTTL time.Duration
	// RunID and Agent name the run and its agent; Provider is the provider the run's settings name.
	RunID, Agent, Provider string
}

// Ahead is a meter that can reserve a run's first model call ahead of it, in the store's BeginRun that reads the
// run's stored settings: a run without a conversation then adds one round trip per model call, not one more.
type Ahead interface {
	// Advances reports whether the meter keeps its budgets in store, and so can reserve there with a settings read.
	Advances(store storage.SettingsStore) bool
	// Advance returns the reservation of run's first model call for a request of msgs and opts as they stand
	// before the stored settings are read.
	Advance(run Run, msgs []chat.Message, opts *chat.Options) storage.BudgetReservation
	// Reserved tells the run's meter, rm, that the store holds res for the run's first call: rm holds it from
	// now on, and ends it with the run. False when rm cannot take it (another meter's): the host ends it.
	Reserved(rm any, res storage.BudgetReservation) bool
}

// StoredEnd is a run's meter that keeps what it holds for a run in a store whose EndRun can settle it with the
// run's last entries: at the end of a run with a conversation, the host asks it for that settlement and stores it
// with the run's end entry and the release of the claim, sparing End's own round trip. The host calls End instead
// when StoredEnd returns false or the store did not take it.
type StoredEnd interface {
	// StoredEnd returns the reservation that ends the run (with End set), when store is where the meter keeps
	// the run's budget and the meter holds something there; false otherwise.
	StoredEnd(store storage.ConversationStore) (storage.BudgetReservation, bool)
	// EndStored tells the meter that the store took the end StoredEnd returned: the run is ended.
	EndStored()
}

// Handover is a run's meter that can pass what it holds for a run to the meter of the agent the run is handed
// off to: the run keeps one place among its tenant's live runs and one run window, and its last call's
// settlement goes with the next agent's first reservation. The host asks it when the next agent's meter begins,
// and calls End instead when it returns false.
type Handover interface {
	// HandOver passes what the meter holds for the run to next, which has begun metering the same run; false
	// when next cannot take it (another meter's, say).
	HandOver(next any) bool
}
