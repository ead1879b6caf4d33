// Package storage defines where Typeshift keeps what outlives a run: each
// tenant's settings documents and its conversations.
//
// A tenant is a settings id. Every operation takes one, and a store never lets
// an operation for one settings id see or change the data of another (the
// Postgres store enforces this in the database as well, with row-level
// security).
//
// Two stores ship with the module: [github.com/typeshift-go/typeshift/storage/memory],
// the embedded default, and [github.com/typeshift-go/typeshift/storage/postgres],
// for several instances sharing one database. A store of your own passes the
// conformance suite in [github.com/typeshift-go/typeshift/storage/storetest]:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storage.Store { return newMyStore(t) })
//	}
//
// # Settings
//
// A [Document] is one JSON value per (settings id, kind), with the schema
// version of the type that wrote it and a revision for compare-and-set:
// [SettingsStore.PutSettings] writes only when the caller saw the current
// revision, so two editors cannot silently overwrite each other.
//
// # Conversations
//
// A conversation is an append-only list of typed [Entry] values, numbered by
// a per-conversation sequence. One run at a time may write to it: the run
// takes a [Claim] (a lease with an expiry) and every [ConversationStore.Append]
// names it. A process that crashes gives the conversation up when its lease
// expires. [ConversationStore.Load] reads from the last [EntrySummary] on, which
// is all a run needs after compaction; [ConversationStore.LoadAll] reads
// everything.
//
// # Runs
//
// A run goes to its store through one contract, [RunStore]: BeginRun claims,
// loads and reads settings in one step, RenewRuns keeps many claims alive at
// once, EndRun stores the last entries, settles the budget and releases, all
// or nothing. A store need not implement it: storeutil.Runs builds it from the
// basic methods, at the cost of more round trips. The one other optional
// interface is [EventRelay], for watchers in other processes.
//
// # Errors
//
// Callers branch on [ErrNotFound], [ErrConflict], [ErrConversationBusy],
// [ErrClaimLost] and [ErrInvalid] with errors.Is, and on [*CorruptEntryError]
// with errors.As.
//
// # For store writers
//
// What only a store's writer needs, the checks every store runs on what it is
// given and reads back, is in [github.com/typeshift-go/typeshift/storage/storeutil],
// not in this contract.
package storage
