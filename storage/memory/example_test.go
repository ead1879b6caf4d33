package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// A run claims its conversation, stores each step under the claim, and
// releases it; the next run loads from the last summary on.
func Example() {
	ctx := context.Background()
	store := memory.New()

	claim, err := store.Claim(ctx, "tenant-42", "c-1", "host-a/run-1", time.Minute)
	if err != nil {
		panic(err)
	}
	// A second run on the same conversation must wait.
	if _, err := store.Claim(ctx, "tenant-42", "c-1", "host-b/run-2", time.Minute); errors.Is(err, storage.ErrConversationBusy) {
		fmt.Println("second run: busy")
	}
	_, err = store.Append(ctx, claim,
		storage.Entry{Type: storage.EntryInput, Author: "user", Data: json.RawMessage(`{"text":"Close ticket 4711"}`)},
		storage.Entry{Type: storage.EntryResponse, Author: "assistant", Data: json.RawMessage(`{"text":"Done."}`)},
		storage.Entry{Type: storage.EntrySummary, Data: json.RawMessage(`{"text":"The user had ticket 4711 closed."}`)},
		storage.Entry{Type: storage.EntryRunEnd, Data: json.RawMessage(`{"mode":"default"}`)},
	)
	if err != nil {
		panic(err)
	}
	if err := store.Release(ctx, claim); err != nil {
		panic(err)
	}

	entries, err := store.Load(ctx, "tenant-42", "c-1")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		fmt.Println(e.Seq, e.Type, string(e.Data))
	}
	// Another tenant sees nothing of it.
	_, err = store.Load(ctx, "tenant-7", "c-1")
	fmt.Println("tenant-7:", errors.Is(err, storage.ErrNotFound))

	// Settings are written with compare-and-set.
	doc, _ := store.PutSettings(ctx, storage.Document{SettingsID: "tenant-42", Kind: "agent.Support", SchemaVersion: 1,
		Data: json.RawMessage(`{"model":"gpt-small"}`)}, 0)
	_, err = store.PutSettings(ctx, doc, 0)
	fmt.Println("revision", doc.Revision, "stale write:", errors.Is(err, storage.ErrConflict))
	// Output:
	// second run: busy
	// 3 summary {"text":"The user had ticket 4711 closed."}
	// 4 run_end {"mode":"default"}
	// tenant-7: true
	// revision 1 stale write: true
}
