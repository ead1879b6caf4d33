package agenthttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// DefaultOperatorSettings are the settings of an agent only the operator may change through the settings route
// when Options.OperatorSettings is nil: which provider serves the agent and its fallback list, which decide whose
// account and which prices a tenant's runs spend. A tenant's budget is operator-only too, whatever the option.
var DefaultOperatorSettings = []string{"provider", "fallback"} // the settings names of the chat options

// errOperatorOnly answers a tenant's request to change what only the operator may.
func errOperatorOnly(detail string) error {
	return &httpError{status: http.StatusForbidden, kind: ProblemOperatorOnly, detail: detail}
}

var errNoBudgets = &httpError{status: http.StatusNotFound, kind: ProblemNotFound, detail: "this server keeps no budgets"}

// checkOperatorSettings refuses a tenant's write of settings that changes an operator-only value: one the new
// document sets differently from the stored one, sets when the stored one does not, or drops. The operator's own
// values may be sent back unchanged, so a client can write back the document it read.
func (h *Handler) checkOperatorSettings(r *http.Request, kind string, stored []byte, next []byte) error {
	if principal(r).Operator {
		return nil
	}
	if kind == storage.BudgetKind {
		return errOperatorOnly("a tenant's budget is the operator's to change")
	}
	keys := h.opts.OperatorSettings
	if keys == nil {
		keys = DefaultOperatorSettings
	}
	var old, neu map[string]json.RawMessage
	if len(stored) > 0 {
		_ = json.Unmarshal(stored, &old)
	}
	if len(next) > 0 {
		if err := json.Unmarshal(next, &neu); err != nil {
			return badRequest("the settings are not a JSON object")
		}
	}
	for _, k := range keys {
		a, inOld := old[k]
		b, inNew := neu[k]
		if inOld != inNew || (inOld && !jsonSame(a, b)) {
			return errOperatorOnly("the setting " + k + " is the operator's to change")
		}
	}
	return nil
}

// jsonSame reports whether a and b are the same JSON value, whatever their spacing and key order.
func jsonSame(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ea, _ := json.Marshal(va)
	eb, _ := json.Marshal(vb)
	return bytes.Equal(ea, eb)
}

// budgetJSON is a tenant's budget as GET /budget answers it.
type budgetJSON struct {
	// Limits are the tenant's limits: its document over the application's defaults.
	Limits   storage.BudgetLimits `json:"limits"`
	Currency string               `json:"currency"`
	Windows  []windowJSON         `json:"windows"`
	// LiveRuns counts the tenant's runs holding a reservation; Reserved is what their calls in flight may use.
	LiveRuns int64     `json:"live_runs"`
	Reserved spendJSON `json:"reserved"`
}

type spendJSON struct {
	Tokens int64   `json:"tokens"`
	Cost   float64 `json:"cost"`
}

type windowJSON struct {
	Window        string     `json:"window"`
	Key           string     `json:"key"`
	Spent         spendJSON  `json:"spent"`
	UnpricedCalls int64      `json:"unpriced_calls,omitempty"`
	ResetAt       *time.Time `json:"reset_at,omitempty"`
	// Left is what the window's limits leave, null for a measure without a limit.
	LeftTokens *int64   `json:"left_tokens"`
	LeftCost   *float64 `json:"left_cost"`
}

// getBudget answers the tenant's budget: its limits, its spend of the day, the month and (with ?conversation=)
// a conversation, and what its live runs hold.
func (h *Handler) getBudget(w http.ResponseWriter, r *http.Request) error {
	m := h.opts.Budget
	if m == nil {
		return errNoBudgets
	}
	conv := r.URL.Query().Get("conversation")
	u, err := m.Usage(r.Context(), principal(r).SettingsID, conv)
	if err != nil {
		return err
	}
	out := budgetJSON{Limits: u.Limits, Currency: m.Prices().Currency(), LiveRuns: u.LiveRuns,
		Reserved: spendJSON{Tokens: u.Reserved.Tokens, Cost: float64(u.Reserved.Nanos) / 1e9}, Windows: []windowJSON{}}
	for _, wu := range u.Windows {
		wj := windowJSON{Window: wu.Window, Key: wu.Key, Spent: spendJSON{Tokens: wu.Spent.Tokens, Cost: float64(wu.Spent.Nanos) / 1e9},
			UnpricedCalls: wu.UnpricedCalls}
		if !wu.ResetAt.IsZero() {
			wj.ResetAt = &wu.ResetAt
		}
		tokens, nanos := storeutil.WindowCaps(u.Limits, wu.Window)
		held := u.Reserved
		if wu.Window == storage.WindowConversation {
			held = storage.BudgetSpend{} // a conversation's own run is not told apart: its limit shows what is settled
		}
		if tokens >= 0 {
			left := max(tokens-wu.Spent.Tokens-held.Tokens, 0)
			wj.LeftTokens = &left
		}
		if nanos >= 0 {
			left := float64(max(nanos-wu.Spent.Nanos-held.Nanos, 0)) / 1e9
			wj.LeftCost = &left
		}
		out.Windows = append(out.Windows, wj)
	}
	return writeJSON(w, http.StatusOK, out)
}

// putBudget replaces the tenant's budget document: the operator's alone.
func (h *Handler) putBudget(w http.ResponseWriter, r *http.Request) error {
	if h.opts.Budget == nil {
		return errNoBudgets
	}
	p := principal(r)
	if !p.Operator {
		return errOperatorOnly("a tenant's budget is the operator's to change")
	}
	data, err := readBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		return err
	}
	var l storage.BudgetLimits
	if err := decodeStrict(data, &l); err != nil {
		return err
	}
	if _, err := storeutil.ParseBudgetLimits(data); err != nil {
		return &fieldError{Pointer: "", Detail: err.Error()}
	}
	ctx := r.Context()
	var rev int64
	doc, err := h.opts.Store.GetSettings(ctx, p.SettingsID, storage.BudgetKind)
	switch {
	case err == nil:
		rev = doc.Revision
	case !errors.Is(err, storage.ErrNotFound):
		return err
	}
	doc, err = h.opts.Store.PutSettings(ctx, storage.Document{SettingsID: p.SettingsID, Kind: storage.BudgetKind, SchemaVersion: 1, Data: data}, rev)
	if err != nil {
		return err
	}
	return writeSettings(w, http.StatusOK, doc)
}

// retryAfter returns the seconds a refused run should wait, or 0 when the refusal has no end in time.
func retryAfter(e *storage.BudgetExceededError, now time.Time) int64 {
	if e.Window == storage.WindowLiveRuns {
		return 1
	}
	if e.ResetAt.IsZero() {
		return 0
	}
	return max(int64(e.ResetAt.Sub(now)/time.Second)+1, 1)
}
