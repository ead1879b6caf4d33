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

// A host renews the claims of all its live runs in one call; a claim that is no longer live is reported lost, and
// its run stops writing. The last step and the release go together.
func ExampleStore_RenewRuns() {
	ctx := context.Background()
	store := memory.New()
	a, _ := store.Claim(ctx, "tenant-1", "c-1", "host-a", time.Minute)
	b, _ := store.Claim(ctx, "tenant-2", "c-1", "host-a", time.Minute)
	gone, _ := store.Claim(ctx, "tenant-1", "c-2", "host-a", time.Minute)
	_ = store.Release(ctx, gone)

	var runs storage.RunStore = store
	res, err := runs.RenewRuns(ctx, []storage.Claim{a, b, gone}, time.Minute)
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("%s/%s lost: %v\n", r.Claim.SettingsID, r.Claim.ConversationID, errors.Is(r.Err, storage.ErrClaimLost))
	}

	end := storage.Entry{Type: storage.EntryRunEnd, Data: json.RawMessage(`{}`)}
	if _, err := runs.EndRun(ctx, storage.RunEnd{Claim: a, Entries: []storage.Entry{end}}); err != nil {
		panic(err)
	}
	_, err = store.Claim(ctx, "tenant-1", "c-1", "host-b", time.Minute)
	fmt.Println("claimed after the release:", err == nil)
	// Output:
	// tenant-1/c-1 lost: false
	// tenant-2/c-1 lost: false
	// tenant-1/c-2 lost: true
	// claimed after the release: true
}
