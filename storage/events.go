package storage

import "context"

// EventRelay is a ConversationStore shared by processes that carries the events of streaming runs from the process
// running a run to the conversation's watchers in other processes. Watchers in the process that runs the run are
// fed from its memory, without the store; a store that serves one process (the memory store) needs no relay.
//
// Events are not entries: they are what a watcher shows while a run is live, kept for a short retention only, and
// a relay carries them only while some other process watches. What lasts is the conversation's entries.
type EventRelay interface {
	// Publish stores events of the claim holder's streaming run for watchers in other processes and signals them,
	// all in one step. The publisher numbers the events: above the claim's EventHead, increasing, in order. Publish
	// also raises the conversation's EventHead to the last id, so that a run after a crash never numbers its
	// events below ids a watcher may have seen. It needs no live claim: a run's last events may be published
	// after its release. It returns once the events are stored. Calls for different conversations may come at
	// once, and a store may write them together (the Postgres store writes those of one short interval in one
	// transaction); the calls for one conversation come one after the other.
	Publish(ctx context.Context, settingsID, conversationID string, events []Event) error

	// Watch registers the caller as a watcher of the conversation until ctx ends, so that a run in another process
	// learns of it (Claim.Watched, WatchWatchers) and publishes its events, and returns the events published with
	// an id above after, in order of id, as they are published, until ctx ends; then the channel closes. With
	// after < 0 (WatchFromNow) it starts with the events published from now on. Ids may skip: a run publishes
	// only while it knows of a watcher in another process, and a store drops events past its retention.
	Watch(ctx context.Context, settingsID, conversationID string, after int64) (<-chan Event, error)

	// WatchWatchers returns a channel that receives a value whenever a watcher in another process starts
	// watching the conversation, until ctx ends, then closes. Values are coalesced and carry nothing to trust.
	WatchWatchers(ctx context.Context, settingsID, conversationID string) (<-chan struct{}, error)
}

// Event is a streaming run's event, as a relay carries it.
type Event struct {
	// ID is the event's place among the conversation's events, numbered by the run that published it; a
	// watcher resumes after it.
	ID int64
	// Data is what was published.
	Data []byte
}

// WatchFromNow is the position of Watch that skips every event published
// before it.
const WatchFromNow int64 = -1
