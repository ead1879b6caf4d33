package storage

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors a budget's refusal wraps (see [BudgetExceededError]).
var (
	// ErrBudgetExceeded reports a model call refused because it could take a tenant past one of its budgets.
	ErrBudgetExceeded = errors.New("budget exceeded")
	// ErrTooManyRuns reports a run refused because its tenant has as many live runs as its limit allows.
	ErrTooManyRuns = errors.New("too many live runs")
)

// The windows of a budget.
const (
	WindowDay          = "day"          // the UTC day
	WindowMonth        = "month"        // the UTC calendar month
	WindowConversation = "conversation" // one conversation, for ever
	WindowRun          = "run"          // one run
	WindowLiveRuns     = "live_runs"    // the tenant's runs going on at once
)

// BudgetKind is the kind of the settings document that holds a tenant's budget (see [BudgetLimits]).
const BudgetKind = "budget"

// BudgetLimits are what a tenant may spend. Stored as a settings document of kind [BudgetKind], as JSON such as
//
//	{"day": {"tokens": 1000000}, "month": {"cost": 50}, "run": {"tokens": 200000}, "live_runs": 10}
//
// A field left out takes the application's default; a negative value lifts the default (no limit); zero allows
// nothing. Costs are in units of the price table's currency.
type BudgetLimits struct {
	Day          *BudgetLimit `json:"day,omitempty"`
	Month        *BudgetLimit `json:"month,omitempty"`
	Conversation *BudgetLimit `json:"conversation,omitempty"`
	Run          *BudgetLimit `json:"run,omitempty"`
	// LiveRuns caps the tenant's runs that hold a reservation at once, across instances.
	LiveRuns *int64 `json:"live_runs,omitempty"`
}

// BudgetLimit caps one window, in tokens (input plus output) and in cost. Nil means the default.
type BudgetLimit struct {
	Tokens *int64   `json:"tokens,omitempty"`
	Cost   *float64 `json:"cost,omitempty"`
}

// BudgetSpend is what model calls used or may use.
type BudgetSpend struct {
	// Tokens counts input and output tokens.
	Tokens int64
	// Nanos is the cost in billionths of the price table's currency.
	Nanos int64
	// Unpriced says a call's price is not known, so Nanos does not hold its cost: a reservation with it is
	// refused under a cost limit.
	Unpriced bool
}

// BudgetReservation is a run's step in its budget: what its previous model call used, and what its next may
// use at most.
type BudgetReservation struct {
	// SettingsID is the tenant, RunID the run.
	SettingsID, RunID string
	// ConversationID and LeaseToken are the run's conversation and the token of its claim, or "": what the run
	// holds lives while that claim does, or, without one, for TTL from the reservation.
	ConversationID, LeaseToken string
	TTL                        time.Duration
	// Settle is what the run's previous model call used; it is added to every window's spend first.
	Settle BudgetSpend
	// Reserve is what the next call may use at most. A zero Reserve with End settles and forgets the run.
	Reserve BudgetSpend
	// End settles and forgets the run instead of reserving: it frees its live run.
	End bool
	// Defaults are the application's limits, under the tenant's document of kind BudgetKind.
	Defaults BudgetLimits
}

// Budgeter is a store that keeps tenants' budgets: what each spent per window, and the reservations of the
// model calls in flight, tenant by tenant, atomically across every process that shares the store.
type Budgeter interface {
	// ReserveBudget settles r.Settle and then reserves r.Reserve for r's run, in one step: the tenant's limits
	// (its budget document over r.Defaults) must leave room for the spend of each window plus every live
	// reservation of the tenant plus r.Reserve; otherwise it reserves nothing (the settlement stays) and
	// returns a [*BudgetExceededError]. A run's first reservation also counts it among the tenant's live runs.
	// With r.End it settles r.Settle and forgets the run.
	ReserveBudget(ctx context.Context, r BudgetReservation) error
	// BudgetUsage returns the tenant's limits and spend: for each window of the day, the month and, when
	// conversationID is not "", that conversation.
	BudgetUsage(ctx context.Context, settingsID, conversationID string, defaults BudgetLimits) (BudgetUsage, error)
	// DeleteBudget erases what the tenant spent and holds (not its budget document), as when the tenant is
	// deleted.
	DeleteBudget(ctx context.Context, settingsID string) error
}

// BudgetUsage is a tenant's budget as it stands.
type BudgetUsage struct {
	// Limits are the tenant's, its document over the defaults.
	Limits BudgetLimits
	// Windows are the day, the month and, when asked, the conversation.
	Windows []WindowUsage
	// LiveRuns counts the tenant's runs holding a reservation now.
	LiveRuns int64
	// Reserved is what the live runs' calls in flight may still use.
	Reserved BudgetSpend
}

// WindowUsage is one window's spend.
type WindowUsage struct {
	// Window is "day", "month" or "conversation"; Key names it ("2026-12-03", "2026-12", the conversation id).
	Window, Key string
	// Spent is what settled calls used in it.
	Spent BudgetSpend
	// UnpricedCalls counts the settled calls whose price was not known: their cost is not in Spent.
	UnpricedCalls int64
	// ResetAt is when the window ends, zero for a conversation.
	ResetAt time.Time
}

// BudgetExceededError is a refused reservation: which window, which measure, and when the window resets. It
// wraps [ErrBudgetExceeded], or [ErrTooManyRuns] for the live runs.
type BudgetExceededError struct {
	// SettingsID is the tenant.
	SettingsID string
	// Window is the window whose limit refused: "day", "month", "conversation", "run" or "live_runs".
	Window string
	// Measure is "tokens", "cost" or "runs".
	Measure string
	// Limit is the cap, Used what was spent and reserved before this call (tokens, billionths of the currency,
	// or runs), and Asked what the call may use.
	Limit, Used, Asked int64
	// Unpriced says the call was refused under a cost limit because its model's price is not known.
	Unpriced bool
	// OutputCap and InputEstimate are, in tokens, what a meter reserved the call for: its output cap and its
	// estimate of its input; Asked counts both. Zero when the refusal did not come through a meter. DefaultCap
	// says the cap is the meter's default, the call having set none.
	OutputCap, InputEstimate int64
	DefaultCap               bool
	// ResetAt is when the window starts over (day and month); zero for a conversation or a run, whose limit
	// holds for good, and for live runs, which end at no known time.
	ResetAt time.Time
}

// Error says which limit refused and when it resets.
func (e *BudgetExceededError) Error() string {
	var s string
	switch {
	case e.Window == WindowLiveRuns:
		s = fmt.Sprintf("budget: tenant %q has %d live runs, its limit", e.SettingsID, e.Used)
	case e.Limit == 0 && e.Measure == "cost":
		return fmt.Sprintf("budget: tenant %q's %s cost limit is 0, so no model call may run: raise the limit, or leave its cost out for no cost limit",
			e.SettingsID, e.Window)
	case e.Limit == 0:
		return fmt.Sprintf("budget: tenant %q's %s limit is 0 %s, so no model call may run: raise the limit, or leave its %s out for no such limit",
			e.SettingsID, e.Window, e.Measure, e.Measure)
	case e.Unpriced:
		s = fmt.Sprintf("budget: the model's price is not known, and tenant %q has a %s cost limit: add the model's price to the meter's prices (budget.Prices), or leave the cost out of the limit",
			e.SettingsID, e.Window)
	case e.Measure == "cost":
		s = fmt.Sprintf("budget: tenant %q's %s cost limit of %.6g would be passed: %.6g spent or reserved, the call may cost %.6g%s",
			e.SettingsID, e.Window, float64(e.Limit)/1e9, float64(e.Used)/1e9, float64(e.Asked)/1e9, e.reserved())
	default:
		s = fmt.Sprintf("budget: tenant %q's %s limit of %d %s would be passed: %d spent or reserved, the call may use %d%s",
			e.SettingsID, e.Window, e.Limit, e.Measure, e.Used, e.Asked, e.reserved())
	}
	if !e.ResetAt.IsZero() {
		s += "; it resets at " + e.ResetAt.UTC().Format(time.RFC3339)
	}
	return s
}

// reserved says what the call was reserved for and what lowers it, when a meter said.
func (e *BudgetExceededError) reserved() string {
	if e.OutputCap <= 0 {
		return ""
	}
	what := fmt.Sprintf("its output cap of %d tokens", e.OutputCap)
	if e.DefaultCap {
		what = fmt.Sprintf("the default output cap of %d tokens, as the call sets none,", e.OutputCap)
	}
	fix := "lower the cap with WithMaxTokens in the agent's Declare (or max_tokens in its settings)"
	if e.DefaultCap {
		fix = "set a lower cap with WithMaxTokens in the agent's Declare (or budget.Options.MaxOutput, the default)"
	}
	return fmt.Sprintf(" (%s plus an estimated %d input tokens): %s, or raise the limit", what, e.InputEstimate, fix)
}

// Unwrap returns ErrBudgetExceeded, or ErrTooManyRuns for the live runs.
func (e *BudgetExceededError) Unwrap() error {
	if e.Window == WindowLiveRuns {
		return ErrTooManyRuns
	}
	return ErrBudgetExceeded
}
