package background_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/background"
	"github.com/typeshift-go/typeshift/agent/budget"
	"github.com/typeshift-go/typeshift/storage"
)

// The tenant's live_runs from its budget, set by the operator, bounds its background runs in place of the
// manager's Limit; a tenant without one keeps the manager's.
func TestTenantLimitFromBudget(t *testing.T) {
	eachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		g := newGate()
		t.Cleanup(g.open)
		meter := budget.New(&budget.Options{Store: store.(storage.Budgeter)})
		_, err := store.PutSettings(context.Background(), storage.Document{SettingsID: tenant, Kind: storage.BudgetKind, SchemaVersion: 1,
			Data: []byte(`{"live_runs": 1}`)}, 0)
		is.NoErr(err)
		f := newFixture(t, store, background.Options{Limit: 16, TenantLimit: meter.LiveRunsLimit}, starter(2, "Check."), g.model("done"))
		res := f.run(t, tenant, "conv-1", agent.Text("go"))
		is.Equal(len(handleIn(res.Messages)), 1)
		errs := toolErrors(res.Messages)
		is.Equal(len(errs), 1)
		is.True(strings.Contains(errs[0], "1 background runs, the limit"))
		other := f.run(t, otherTenant, "conv-1", agent.Text("go"))
		is.Equal(len(handleIn(other.Messages)), 2) // the manager's limit of 16
		g.open()
		f.final(t, tenant, "conv-1", handleIn(res.Messages)[0])
	})
}
