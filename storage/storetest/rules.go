package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// A rule is one property every store keeps. It reports what it finds wrong
// through r and stops at the first failure that makes the rest meaningless.
type rule struct {
	name string
	run  func(r *rec)
}

// rules lists the properties in the order they are checked.
var rules = []rule{
	{"InvalidArguments", ruleInvalidArguments},
	{"SettingsCompareAndSet", ruleSettingsCompareAndSet},
	{"AppendOrder", ruleAppendOrder},
	{"AppendAtomic", ruleAppendAtomic},
	{"LoadSinceSummary", ruleLoadSinceSummary},
	{"NotFound", ruleNotFound},
	{"Delete", ruleDelete},
	{"ListPaging", ruleListPaging},
	{"Tenancy", ruleTenancy},
	{"ClaimBusy", ruleClaimBusy},
	{"ClaimExpiry", ruleClaimExpiry},
	{"ClaimLost", ruleClaimLost},
	{"ConcurrentAppends", ruleConcurrentAppends},
	{"RenewRuns", ruleRenewRuns},
	{"BeginRun", ruleBeginRun},
	{"EndRun", ruleEndRun},
	{"SteerKeptByEndRun", ruleSteerKeptByEndRun},
	{"EventHead", ruleEventHead},
	{"Relay", ruleRelay},
	{"RelayResume", ruleRelayResume},
	{"RelayTenancy", ruleRelayTenancy},
	{"RelayConcurrent", ruleRelayConcurrent},
	{"SteerNeedsLiveClaim", ruleSteerNeedsLiveClaim},
	{"SteerTakenOnce", ruleSteerTakenOnce},
	{"SteerKeptAfterRelease", ruleSteerKeptAfterRelease},
	{"SteerKeptAfterExpiry", ruleSteerKeptAfterExpiry},
	{"SteerTenancy", ruleSteerTenancy},
	{"SteerSignal", ruleSteerSignal},
	{"StoreSteering", ruleStoreSteering},
	{"CorruptEntries", ruleCorruptEntries},
	{"TextAndIDs", ruleTextAndIDs},
	{"CorruptSettings", ruleCorruptSettings},
	{"BudgetReserve", ruleBudgetReserve},
	{"BudgetLimits", ruleBudgetLimits},
	{"BudgetLiveRuns", ruleBudgetLiveRuns},
	{"BudgetConcurrent", ruleBudgetConcurrent},
	{"BudgetSettledByEndRun", ruleBudgetSettledByEndRun},
	{"BudgetReservedByBeginRun", ruleBudgetReservedByBeginRun},
}

// rec carries one rule's store, ids and findings.
type rec struct {
	ctx    context.Context
	s      storage.Store
	runs   storage.RunStore // s's own, or built from its basic methods (storeutil.Runs)
	prefix string
	errs   []error

	mu    sync.Mutex
	convs map[[2]string]bool
	docs  map[[2]string]bool
	// tenants are the settings ids the rule used; budgets says it kept budgets, erased at the clean-up.
	tenants map[string]bool
	budgets bool
}

func newRec(ctx context.Context, s storage.Store) *rec {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &rec{
		ctx: ctx, s: s, runs: storeutil.Runs(s), prefix: "storetest-" + hex.EncodeToString(b[:]),
		convs: make(map[[2]string]bool), docs: make(map[[2]string]bool), tenants: make(map[string]bool),
	}
}

// tenant returns a settings id of this rule's own.
func (r *rec) tenant(name string) string {
	id := r.prefix + "-" + name
	r.mu.Lock()
	r.tenants[id] = true
	r.mu.Unlock()
	return id
}

// conv returns a conversation id and remembers it for the clean-up.
func (r *rec) conv(settingsID, name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.convs[[2]string{settingsID, name}] = true
	return name
}

// kind returns a settings kind and remembers it for the clean-up.
func (r *rec) kind(settingsID, name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.docs[[2]string{settingsID, name}] = true
	return name
}

// cleanUp deletes what the rule wrote, ignoring what is already gone.
func (r *rec) cleanUp() {
	ctx := context.WithoutCancel(r.ctx)
	for k := range r.convs {
		_ = r.s.Delete(ctx, k[0], k[1])
	}
	for k := range r.docs {
		_ = r.s.DeleteSettings(ctx, k[0], k[1])
	}
	if b, ok := r.s.(storage.Budgeter); ok && r.budgets {
		for id := range r.tenants {
			_ = b.DeleteBudget(ctx, id)
		}
	}
}

// failf records a finding.
func (r *rec) failf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// ok reports an unexpected error of what.
func (r *rec) ok(err error, what string) bool {
	if err != nil {
		r.failf("%s: unexpected error: %v", what, err)
		return false
	}
	return true
}

// is reports an error of what that is not target.
func (r *rec) is(err, target error, what string) bool {
	if !errors.Is(err, target) {
		r.failf("%s: got error %v, want %v", what, err, target)
		return false
	}
	return true
}

// truef reports a broken expectation.
func (r *rec) truef(cond bool, format string, args ...any) bool {
	if !cond {
		r.failf(format, args...)
	}
	return cond
}

// claim takes a lease for a rule, reporting a failure.
func (r *rec) claim(settingsID, conversationID string) (storage.Claim, bool) {
	c, err := r.s.Claim(r.ctx, settingsID, conversationID, "storetest", time.Minute)
	return c, r.ok(err, "Claim "+conversationID)
}

// jsonEqual reports whether a and b hold the same JSON value, whatever their
// spacing and key order (encoding/json sorts map keys when it writes).
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ea, err1 := json.Marshal(va)
	eb, err2 := json.Marshal(vb)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

// sameEntry compares an entry read back with the one expected.
func sameEntry(got, want storage.Entry) string {
	var diffs []string
	if got.Seq != want.Seq {
		diffs = append(diffs, fmt.Sprintf("seq %d, want %d", got.Seq, want.Seq))
	}
	if got.Type != want.Type {
		diffs = append(diffs, fmt.Sprintf("type %q, want %q", got.Type, want.Type))
	}
	if got.RunID != want.RunID || got.Agent != want.Agent || got.Author != want.Author {
		diffs = append(diffs, fmt.Sprintf("run/agent/author %q/%q/%q, want %q/%q/%q",
			got.RunID, got.Agent, got.Author, want.RunID, want.Agent, want.Author))
	}
	if !want.Time.IsZero() && !got.Time.Equal(want.Time) {
		diffs = append(diffs, fmt.Sprintf("time %v, want %v", got.Time, want.Time))
	}
	if !jsonEqual(got.Data, want.Data) {
		diffs = append(diffs, fmt.Sprintf("data %s, want %s", got.Data, want.Data))
	}
	return strings.Join(diffs, "; ")
}

// sameEntries compares two lists entry by entry.
func (r *rec) sameEntries(what string, got, want []storage.Entry) bool {
	if len(got) != len(want) {
		r.failf("%s: %d entries, want %d", what, len(got), len(want))
		return false
	}
	for i := range got {
		if d := sameEntry(got[i], want[i]); d != "" {
			r.failf("%s: entry %d: %s", what, i, d)
			return false
		}
	}
	return true
}

func entry(t storage.EntryType, data string) storage.Entry {
	return storage.Entry{Type: t, RunID: "run-1", Agent: "support", Author: "storetest", Data: json.RawMessage(data)}
}
