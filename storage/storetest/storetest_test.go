package storetest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/storetest"
)

func TestFailAfter(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	f := storetest.FailAfter(memory.New(), 2, storetest.OpAppend)
	c, err := f.Claim(ctx, "t", "c", "o", time.Minute) // not counted
	is.NoErr(err)
	entry := storage.Entry{Type: storage.EntryInput}
	_, err = f.Append(ctx, c, entry)
	is.NoErr(err)
	_, err = f.Append(ctx, c, entry)
	is.True(errors.Is(err, storetest.ErrInjected))
	var ie *storetest.InjectedError
	is.True(errors.As(err, &ie))
	is.Equal(*ie, storetest.InjectedError{Op: storetest.OpAppend, N: 2})
	is.Equal(err.Error(), "storetest: injected failure of write 2 (Append)")
	_, err = f.Append(ctx, c, entry) // only the second fails
	is.NoErr(err)
	all, err := f.LoadAll(ctx, "t", "c")
	is.NoErr(err)
	is.Equal(len(all), 2) // the failed write never reached the store
	is.Equal(f.Writes(), 3)
	is.Equal(len(f.Failed()), 1)
}

func TestFailFrom(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	f := storetest.FailFrom(memory.New(), 2)
	c, err := f.Claim(ctx, "t", "c", "o", time.Minute) // write 1
	is.NoErr(err)
	_, err = f.Append(ctx, c, storage.Entry{Type: storage.EntryInput}) // write 2
	is.True(errors.Is(err, storetest.ErrInjected))
	is.True(errors.Is(f.Release(ctx, c), storetest.ErrInjected)) // write 3
	_, err = f.PutSettings(ctx, storage.Document{SettingsID: "t", Kind: "k", Data: []byte(`{}`)}, 0)
	is.True(errors.Is(err, storetest.ErrInjected))
	is.Equal(f.Writes(), 4)
}

// TestCheckFindsFaults shows the rules catch stores that break them.
func TestCheckFindsFaults(t *testing.T) {
	tests := []struct {
		name  string
		store storage.Store
		want  string // a rule that must report
	}{
		{"leaky tenants", leakyTenants{memory.New()}, "Tenancy"},
		{"blind compare-and-set", blindPut{memory.New()}, "SettingsCompareAndSet"},
		{"no summaries", fullLoad{memory.New()}, "LoadSinceSummary"},
		{"failing appends", storetest.FailFrom(memory.New(), 1, storetest.OpAppend), "AppendOrder"},
		{"release forgets the event head", headlessRelease{memory.New()}, "EventHead"},
		{"dropped steering", droppedSteering{memory.New()}, "SteerTakenOnce"},
		{"steering without a run", droppedSteering{memory.New()}, "SteerNeedsLiveClaim"},
		{"event ids from zero", zeroHead{memory.New()}, "EventHead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			errs := storetest.Check(ctx, tt.store)
			found := false
			for _, err := range errs {
				found = found || strings.HasPrefix(err.Error(), tt.want+": ")
			}
			is.True(found) // the broken rule is reported
		})
	}
}

// leakyTenants lists every tenant's conversations for anyone.
type leakyTenants struct{ *memory.Store }

func (l leakyTenants) Load(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	for _, sid := range []string{settingsID, strings.TrimSuffix(settingsID, "-b") + "-a"} {
		if es, err := l.Store.Load(ctx, sid, conversationID); err == nil {
			return es, nil
		}
	}
	return l.Store.Load(ctx, settingsID, conversationID)
}

// blindPut ignores the expected revision.
type blindPut struct{ *memory.Store }

func (b blindPut) PutSettings(ctx context.Context, doc storage.Document, _ int64) (storage.Document, error) {
	cur, err := b.Store.GetSettings(ctx, doc.SettingsID, doc.Kind)
	if err != nil {
		return b.Store.PutSettings(ctx, doc, 0)
	}
	return b.Store.PutSettings(ctx, doc, cur.Revision)
}

// fullLoad ignores summaries.
type fullLoad struct{ *memory.Store }

func (f fullLoad) Load(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	return f.Store.LoadAll(ctx, settingsID, conversationID)
}

// headlessRelease forgets the id of the run's last event when it releases.
type headlessRelease struct{ *memory.Store }

func (h headlessRelease) Release(ctx context.Context, c storage.Claim) error {
	c.EventHead = 0
	return h.Store.Release(ctx, c)
}

// droppedSteering accepts steering input and keeps none of it.
type droppedSteering struct{ *memory.Store }

func (droppedSteering) Steer(context.Context, string, string, []byte) error { return nil }

// zeroHead numbers every conversation's events from zero, so a conversation created again repeats the ids of
// the deleted one.
type zeroHead struct{ *memory.Store }

func (z zeroHead) Claim(ctx context.Context, settingsID, conversationID, owner string, ttl time.Duration) (storage.Claim, error) {
	c, err := z.Store.Claim(ctx, settingsID, conversationID, owner, ttl)
	c.EventHead = 0
	return c, err
}

func (z zeroHead) EventRange(ctx context.Context, settingsID, conversationID string) (storage.EventRange, error) {
	_, err := z.Store.EventRange(ctx, settingsID, conversationID)
	return storage.EventRange{}, err
}
