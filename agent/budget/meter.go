package budget

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/metering"
	"github.com/typeshift-go/typeshift/storage"
)

// Errors a refused model call wraps, for errors.Is; errors.As finds an [*ExceededError] with the window and the
// time it resets.
var (
	// ErrBudgetExceeded reports a call that could take its tenant past one of its budgets.
	ErrBudgetExceeded = storage.ErrBudgetExceeded
	// ErrTooManyRuns reports a run refused because its tenant has as many live runs as its limit allows.
	ErrTooManyRuns = storage.ErrTooManyRuns
)

// ExceededError is a refused call: which window and measure refused it, and when the window resets.
type ExceededError = storage.BudgetExceededError

// Limits are what a tenant may spend (see [storage.BudgetLimits]): the application's defaults in [Options], and
// each tenant's own in its settings document of kind [storage.BudgetKind], which only the operator writes.
type Limits = storage.BudgetLimits

// Limit caps one window in tokens and in cost.
type Limit = storage.BudgetLimit

// DefaultMaxOutput is what a call that sets no output cap (chat.Options.MaxTokens) is reserved for.
const DefaultMaxOutput = 8192

// MetricCost is the counter of what model calls cost, in the price table's currency, by tenant, provider and
// model; calls whose price is not known are counted by MetricUnpriced instead, never as zero.
const (
	MetricCost     = "typeshift.model.cost"
	MetricUnpriced = "typeshift.model.unpriced_calls"
)

// The metric's attribute keys beside the GenAI conventions' provider and model.
const (
	AttrSettingsID = attribute.Key("typeshift.settings_id")
	AttrCurrency   = attribute.Key("typeshift.currency")
)

// Options configure a [Meter]. The zero value prices calls with [DefaultPrices] and limits nothing.
type Options struct {
	// Prices prices the calls; nil means DefaultPrices().
	Prices *Prices
	// Store keeps the budgets: the spend of each tenant and the reservations in flight, shared by every
	// instance that uses the same store (storage/memory, storage/postgres). Nil prices calls without limiting
	// them.
	Store storage.Budgeter
	// Defaults are the limits of a tenant whose budget document leaves them out.
	Defaults Limits
	// MaxOutput is what a call without an output cap is reserved for; zero means DefaultMaxOutput.
	MaxOutput int64
	// MeterProvider makes the cost metric; nil uses otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
}

// Meter is an [agent.Meter]: set it as agent.Config.Meter on every host whose runs a tenant pays for (sub-agents'
// and background runs' hosts too: their runs carry the caller's tenant). Before each model call it reserves what
// the call may cost at most, its input estimate plus its output cap, in the store; after the call it settles
// the reservation with the call's real usage. It is safe for concurrent use.
type Meter struct {
	prices    *Prices
	store     storage.Budgeter
	defaults  Limits
	maxOutput int64
	cost      metric.Float64Counter
	unpriced  metric.Int64Counter
}

var _ agent.Meter = (*Meter)(nil)

// New returns a meter configured by opts (nil for defaults).
func New(opts *Options) *Meter {
	if opts == nil {
		opts = &Options{}
	}
	m := &Meter{prices: opts.Prices, store: opts.Store, defaults: opts.Defaults, maxOutput: opts.MaxOutput}
	if m.prices == nil {
		m.prices = DefaultPrices()
	}
	if m.maxOutput <= 0 {
		m.maxOutput = DefaultMaxOutput
	}
	mp := opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter("github.com/typeshift-go/typeshift/agent/budget")
	var err error
	if m.cost, err = meter.Float64Counter(MetricCost, metric.WithUnit("{"+m.prices.currency+"}"),
		metric.WithDescription("What model calls cost, by tenant, provider and model.")); err != nil {
		otel.Handle(err)
	}
	if m.unpriced, err = meter.Int64Counter(MetricUnpriced, metric.WithUnit("{call}"),
		metric.WithDescription("Model calls whose price is not known, by tenant, provider and model.")); err != nil {
		otel.Handle(err)
	}
	return m
}

// Prices returns the meter's price table.
func (m *Meter) Prices() *Prices { return m.prices }

// Usage returns a tenant's limits, what it spent in the day, the month and (when conversationID is not "") the
// conversation, and what its live runs hold. It fails without a store.
func (m *Meter) Usage(ctx context.Context, settingsID, conversationID string) (storage.BudgetUsage, error) {
	if m.store == nil {
		return storage.BudgetUsage{}, fmt.Errorf("budget: the meter has no store")
	}
	return m.store.BudgetUsage(ctx, settingsID, conversationID, m.defaults)
}

// LiveRunsLimit returns the tenant's live_runs limit (its budget document over the defaults), and false when it
// has none. Its signature is background.Options.TenantLimit's, so that a background manager holds the tenant's
// background runs to it too.
func (m *Meter) LiveRunsLimit(ctx context.Context, settingsID string) (int, bool, error) {
	u, err := m.Usage(ctx, settingsID, "")
	if err != nil {
		return 0, false, err
	}
	if n := u.Limits.LiveRuns; n != nil && *n >= 0 {
		return int(min(*n, 1<<31-1)), true, nil
	}
	return 0, false, nil
}

// Begin implements [agent.Meter].
func (m *Meter) Begin(_ context.Context, run agent.MeteredRun) (agent.RunMeter, error) {
	return &runMeter{m: m, run: run}, nil
}

// The meter reserves a run's first call with its settings read, when they are read from its store.
var _ metering.Ahead = (*Meter)(nil)

// Advances implements [metering.Ahead]: store is the meter's.
func (m *Meter) Advances(store storage.SettingsStore) bool {
	return m.store != nil && sameStore(m.store, store)
}

// Advance implements [metering.Ahead]: the reservation a first call of msgs and opts would make.
func (m *Meter) Advance(run agent.MeteredRun, msgs []chat.Message, opts *chat.Options) storage.BudgetReservation {
	r := runMeter{m: m, run: run}
	return r.request(msgs, opts)
}

// Reserved implements [metering.Ahead]: rm, a run's meter of m, holds res from now on.
func (m *Meter) Reserved(rm any, res storage.BudgetReservation) bool {
	r, ok := rm.(*runMeter)
	if !ok || r.m != m {
		return false
	}
	r.ahead, r.reserved = &res, true
	return true
}

// runMeter meters one run: the previous call's usage waits in pending, settled with the next reservation or at
// the end, so that each call takes one round trip to the store.
type runMeter struct {
	m        *Meter
	run      agent.MeteredRun
	model    string // the model the last call asked for
	pending  storage.BudgetSpend
	reserved bool // the store holds a place for the run
	// ahead is what the store reserved for the first call with the run's settings read (Meter.Advance,
	// Meter.Reserved): the first call sends no reservation of its own when it fits.
	ahead *storage.BudgetReservation
}

func (r *runMeter) reservation() storage.BudgetReservation {
	return storage.BudgetReservation{SettingsID: r.run.SettingsID, RunID: r.run.RunID, ConversationID: r.run.ConversationID,
		LeaseToken: r.run.LeaseToken, TTL: r.run.LeaseTTL, Settle: r.pending, Defaults: r.m.defaults}
}

// Call implements [agent.RunMeter]: it reserves what the call may use, with the previous call's settlement, makes
// the call, and keeps what it used for the next reservation (or the run's end) to settle.
func (r *runMeter) Call(ctx context.Context, call agent.MeteredCall, next func(context.Context) (agent.CallUsage, error)) (agent.Cost, error) {
	if err := r.reserve(ctx, call.Messages, call.Options); err != nil {
		return agent.Cost{}, err
	}
	used, err := next(ctx)
	return r.settle(ctx, used.Model, used.Usage), err
}

// reserve reserves a call of msgs and opts, settling the previous call's use.
func (r *runMeter) reserve(ctx context.Context, msgs []chat.Message, opts *chat.Options) error {
	if opts != nil {
		r.model = opts.Model
	}
	if r.m.store == nil || r.run.SettingsID == "" {
		return nil
	}
	res := r.request(msgs, opts)
	if a := r.ahead; a != nil {
		r.ahead = nil
		if fits(res.Reserve, a.Reserve) && r.pending == (storage.BudgetSpend{}) {
			return nil // reserved with the run's settings read
		}
	}
	err := r.m.store.ReserveBudget(ctx, res)
	if err == nil || isExceeded(err) {
		r.pending = storage.BudgetSpend{} // settled, whether the reservation was refused or not
		r.reserved = true
	}
	var e *storage.BudgetExceededError
	if errors.As(err, &e) && e.Window != storage.WindowLiveRuns {
		// Say what the call was reserved for, so that the refusal names what to lower.
		e.OutputCap, e.DefaultCap = r.outputCap(opts)
		e.InputEstimate = res.Reserve.Tokens - e.OutputCap
	}
	return err
}

// outputCap returns what a call of opts is reserved for as its output, and whether that is the meter's default.
func (r *runMeter) outputCap(opts *chat.Options) (int64, bool) {
	if opts != nil && opts.MaxTokens != nil && *opts.MaxTokens > 0 {
		return int64(*opts.MaxTokens), false
	}
	return r.m.maxOutput, true
}

// request returns the reservation of a call of msgs and opts: its input estimate plus its output cap.
func (r *runMeter) request(msgs []chat.Message, opts *chat.Options) storage.BudgetReservation {
	model := r.model
	if opts != nil {
		model = opts.Model
	}
	out, _ := r.outputCap(opts)
	in := EstimateInput(msgs, opts)
	res := r.reservation()
	res.Reserve.Tokens = in + out
	if nanos, ok := r.m.prices.most(r.run.Provider, model, in, out); ok {
		res.Reserve.Nanos = nanos
	} else {
		res.Reserve.Unpriced = true
	}
	return res
}

// fits reports whether what a call may use is within what is reserved: it then needs no reservation of its own.
func fits(call, reserved storage.BudgetSpend) bool {
	return call.Tokens <= reserved.Tokens && call.Nanos <= reserved.Nanos && call.Unpriced == reserved.Unpriced
}

func isExceeded(err error) bool {
	var e *storage.BudgetExceededError
	return errors.As(err, &e)
}

// settle prices what a call used, keeping it for the next reservation or the run's end to settle.
func (r *runMeter) settle(ctx context.Context, model string, used chat.Usage) agent.Cost {
	if model == "" {
		model = r.model
	}
	cost := r.m.prices.Cost(r.run.Provider, model, used)
	tokens := used.TotalTokens
	if tokens == 0 {
		tokens = used.InputTokens + used.OutputTokens
	}
	r.pending.Tokens += tokens
	r.pending.Nanos += cost.Nanos
	r.pending.Unpriced = r.pending.Unpriced || cost.Unpriced > 0
	if used != (chat.Usage{}) {
		tenant, provider, name := AttrSettingsID.String(r.run.SettingsID),
			attribute.String("gen_ai.provider.name", r.run.Provider), attribute.String("gen_ai.response.model", model)
		if cost.Unpriced > 0 {
			if r.m.unpriced != nil {
				r.m.unpriced.Add(ctx, 1, metric.WithAttributes(tenant, provider, name))
			}
		} else if r.m.cost != nil {
			r.m.cost.Add(ctx, cost.Amount(), metric.WithAttributes(tenant, provider, name, AttrCurrency.String(cost.Currency)))
		}
	}
	return cost
}

// End implements [agent.RunMeter]: it settles the last call and frees the run's place.
func (r *runMeter) End(ctx context.Context) {
	if r.m.store == nil || !r.reserved {
		return
	}
	res := r.reservation()
	res.End = true
	if err := r.m.store.ReserveBudget(ctx, res); err == nil {
		r.pending, r.reserved = storage.BudgetSpend{}, false
	}
}

// A run's end settles its budget with its last entries, and a handoff passes its budget on.
var (
	_ metering.StoredEnd = (*runMeter)(nil)
	_ metering.Handover  = (*runMeter)(nil)
)

// StoredEnd implements [metering.StoredEnd]: when store is the meter's, the run's end rides on the store's last
// step of the run's conversation.
func (r *runMeter) StoredEnd(store storage.ConversationStore) (storage.BudgetReservation, bool) {
	if r.m.store == nil || !r.reserved || !sameStore(r.m.store, store) {
		return storage.BudgetReservation{}, false
	}
	res := r.reservation()
	res.End = true
	return res, true
}

// EndStored implements [metering.StoredEnd].
func (r *runMeter) EndStored() { r.pending, r.reserved = storage.BudgetSpend{}, false }

// HandOver implements [metering.Handover]: next, a meter of the same Meter for the same run, takes the run's
// place, its reservation and its last call's settlement, which its first reservation sends.
func (r *runMeter) HandOver(next any) bool {
	n, ok := next.(*runMeter)
	if !ok || n.m != r.m || n.run.SettingsID != r.run.SettingsID || n.run.RunID != r.run.RunID {
		return false
	}
	n.pending, n.reserved = r.pending, r.reserved
	r.pending, r.reserved = storage.BudgetSpend{}, false
	return true
}

// sameStore reports whether a and b are the same store; values of a type that cannot be compared are not.
func sameStore(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// EstimateInput estimates the input tokens of a request from its size: one token per three bytes of text, tool
// calls and results, instructions and tool schemas (more than most tokenizers count, so that a reservation
// rather holds too much), and a thousand tokens per file.
func EstimateInput(msgs []chat.Message, opts *chat.Options) int64 {
	n := 0
	files := 0
	for _, m := range msgs {
		n += len(m.Role) + len(m.AuthorName) + 4
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				n += len(p.Text)
			case chat.ToolCall:
				n += len(p.ID) + len(p.Name) + len(p.Arguments)
			case chat.ToolResult:
				n += len(p.CallID) + len(p.Result) + len(p.Error)
			case chat.Reasoning:
				n += len(p.Text)
			case chat.File:
				files++
			}
		}
	}
	if opts != nil {
		n += len(opts.Instructions)
		for _, t := range opts.Tools {
			n += len(t.Name) + len(t.Description) + len(t.Schema)
		}
	}
	return int64((n+2)/3) + int64(files)*1000
}
