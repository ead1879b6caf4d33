package agent

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// A Meter prices the model calls of runs and may refuse them, such as to hold a tenant to a budget (package
// budget offers one over a store; see docs/budgets.md). Set it in [Config.Meter]: the host asks it once per run
// that calls a model, and the [RunMeter] it returns around each model call.
type Meter interface {
	// Begin starts metering a run, before its first model call. An error fails that call, and so the run.
	Begin(ctx context.Context, run MeteredRun) (RunMeter, error)
}

// MeteredRun names the run a [Meter] meters.
type MeteredRun struct {
	// SettingsID is the run's tenant; a sub-agent's run has its caller's.
	SettingsID string
	// ConversationID is the run's conversation, or "" for a run without one.
	ConversationID string
	// LeaseToken is the token of the run's claim on its conversation (see storage.Claim), or "": what the meter
	// holds for the run may be tied to the claim, and so end with it when the process dies.
	LeaseToken string
	// LeaseTTL is how long the run's claim lasts unless renewed: what a meter holds for a run without a
	// conversation lasts as long.
	LeaseTTL time.Duration
	// RunID and Agent name the run and its agent; Provider is the provider the run's settings name.
	RunID, Agent, Provider string
	// Ahead is what the store reserved for the run's first model call with its settings read ([AdvanceMeter]),
	// or nil: the RunMeter holds it from Begin on, and ends it with the run.
	Ahead *storage.BudgetReservation
}

// A RunMeter meters one run. The host calls it from the run's goroutine, one model call at a time: Reserve before
// a call, Settle after it when Reserve allowed it, and End once when the run's agent is done — unless the run's
// end took what it holds instead ([StoredEnder]), or the agent the run was handed to did ([MeterHandover]).
type RunMeter interface {
	// Reserve is asked before a model call with the request (the model named in opts, the messages, the output
	// cap in opts.MaxTokens). An error refuses the call: the run ends with it, its history stored.
	Reserve(ctx context.Context, msgs []chat.Message, opts *chat.Options) error
	// Settle is told what the call used and the model that answered ("" when it did not say; zero usage when the
	// call failed) and returns what the call cost.
	Settle(ctx context.Context, model string, used chat.Usage) Cost
	// End releases what the meter still holds for the run.
	End(ctx context.Context)
}

// A StoredEnder is a [RunMeter] that keeps what it holds for a run in a store that can end it in the same step
// as the run's last entries (storage.RunStore's EndRun): at the end of a run with a conversation, the host asks it
// for that end and stores it with the run's end entry and the release of the claim, sparing End's own round
// trip. It calls End instead when StoredEnd returns false or the store did not take it.
type StoredEnder interface {
	// StoredEnd returns the reservation that ends the run (with End set), when store is where the meter keeps
	// the run's budget and the meter holds something there; false otherwise.
	StoredEnd(store storage.ConversationStore) (storage.BudgetReservation, bool)
	// EndStored tells the meter that the store took the end StoredEnd returned: the run is ended.
	EndStored()
}

// A MeterHandover is a [RunMeter] that can pass what it holds for a run to the RunMeter of the agent the run is
// handed off to (see Handoff): the run keeps one place among its tenant's live runs and one run window, and its
// last call's settlement goes with the next agent's first reservation. The host asks it when the next agent's
// meter begins, and calls End instead when it returns false.
type MeterHandover interface {
	// HandOver passes what the meter holds for the run to next, which has begun metering the same run; false
	// when next cannot take it (another Meter's, say).
	HandOver(next RunMeter) bool
}

// Cost is what model calls cost, as a [Meter] priced them.
type Cost struct {
	// Nanos is the cost of the priced calls in billionths of Currency.
	Nanos int64
	// Currency is the price table's currency, such as "USD"; "" when no call was priced.
	Currency string
	// Unpriced counts the calls whose price was not known: their cost is in no figure, so a Cost with Unpriced
	// above zero is a lower bound, never the whole cost.
	Unpriced int
}

// Known reports whether every call of c was priced.
func (c Cost) Known() bool { return c.Unpriced == 0 }

// Amount returns the priced calls' cost in units of Currency.
func (c Cost) Amount() float64 { return float64(c.Nanos) / 1e9 }

// Add returns c plus d.
func (c Cost) Add(d Cost) Cost {
	if c.Currency == "" {
		c.Currency = d.Currency
	}
	c.Nanos += d.Nanos
	c.Unpriced += d.Unpriced
	return c
}

// meterState is one agent's part of a run under Config.Meter: the RunMeter, started at the first model call, and
// the cost so far. A run without a Meter has none. It is handed what the meter needs when it is built, the run
// already decided (its conversation claimed, its provider known): never the host, the run's state or its
// conversation.
//
//typeshift:owned
type meterState struct {
	meter Meter
	run   MeteredRun       // the run as Begin is told of it, but for Ahead
	ahead *ahead           // the first model call reserved with the settings read, or nil
	store storage.RunStore // where what ahead reserved is ended, if the run's meter does not take it

	mu    sync.Mutex // guards cost: the End of a sub-agent's abandoned call may race the run's end
	rm    RunMeter
	cost  Cost
	begun bool
	// prev is the RunMeter of the agent that handed the run to this one, which holds the run's budget until
	// this one begins and takes it over (takeOver).
	prev RunMeter
}

// newMeterState returns the part of a run under meter, or nil without one: run names the run, leaseToken is its
// claim's token ("" without a conversation), a what the store reserved ahead of it (nil for nothing).
func newMeterState(meter Meter, run MeteredRun, leaseToken string, a *ahead, store storage.RunStore) *meterState {
	if meter == nil {
		return nil
	}
	run.LeaseToken = leaseToken
	return &meterState{meter: meter, run: run, ahead: a, store: store}
}

// metered wraps the run's provider client in the run's meter, and returns it unchanged without Config.Meter.
func metered(m *meterState, provider chat.Client) chat.Client {
	if m == nil {
		return provider
	}
	return meterClient{next: provider, m: m}
}

// meterEnd wraps a run's stages so that the meter is told when the run's agent is done. A conversation's run
// ends its meter itself, with its last store (conversationRun.end), and when it is handed on (respond).
func meterEnd(m *meterState, inConversation bool, c chat.Client) chat.Client {
	if m == nil || inConversation {
		return c
	}
	return meterEndClient{next: c, m: m}
}

// addCost adds a sub-agent's cost to the run's, when the run has a meter.
func (m *meterState) addCost(c Cost) {
	if m == nil || c == (Cost{}) {
		return
	}
	m.mu.Lock()
	m.cost = m.cost.Add(c)
	m.mu.Unlock()
}

// runCost returns the run's cost so far, and false for a run without a meter or without priced or unpriced calls.
func (m *meterState) runCost() (Cost, bool) {
	if m == nil {
		return Cost{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.cost
	return c, c != (Cost{})
}

func (m *meterState) start(ctx context.Context) (RunMeter, error) {
	if m.begun {
		return m.rm, nil
	}
	run := m.run
	run.Ahead = m.ahead.held()
	rm, err := m.meter.Begin(ctx, run)
	if err != nil {
		m.ahead.drop(ctx, m.store)
		return nil, err
	}
	m.ahead.taken() // the RunMeter holds it, if anything was reserved
	m.rm, m.begun = rm, true
	if prev := m.prev; prev != nil {
		m.prev = nil
		if ho, ok := prev.(MeterHandover); !ok || !ho.HandOver(rm) {
			prev.End(context.WithoutCancel(ctx))
		}
	}
	return rm, nil
}

// holding returns the RunMeter that holds the run's budget for m: its own once begun, until then the one of the
// agent that handed the run to it, or nil.
func (m *meterState) holding() RunMeter {
	if m.begun && m.rm != nil {
		return m.rm
	}
	return m.prev
}

// takeOver is told, at a handoff, that the run goes on with m's agent: what from's meter holds for the run passes
// to m's when it begins (MeterHandover), and is ended at once when m's host has no meter.
func (m *meterState) takeOver(ctx context.Context, from *meterState) {
	if from == nil {
		return
	}
	held := from.holding()
	from.begun, from.rm, from.prev = false, nil, nil
	switch {
	case held == nil:
	case m == nil:
		held.End(context.WithoutCancel(ctx))
	default:
		m.prev = held
	}
}

func (m *meterState) settle(ctx context.Context, rm RunMeter, model string, used chat.Usage) {
	c := rm.Settle(ctx, model, used)
	m.mu.Lock()
	m.cost = m.cost.Add(c)
	m.mu.Unlock()
}

func (m *meterState) end(ctx context.Context) {
	if m == nil {
		return
	}
	if rm := m.holding(); rm != nil {
		rm.End(context.WithoutCancel(ctx))
	}
	m.begun, m.rm, m.prev = false, nil, nil
	m.ahead.drop(ctx, m.store) // the run ended before its first model call
}

// storedEnd returns what ends the run's meter in store's last step of a conversation's run, when the meter and
// the store can (see StoredEnder): nil otherwise, and for a run without a meter.
func (m *meterState) storedEnd(store storage.ConversationStore) []storage.BudgetReservation {
	if m == nil || m.holding() == nil {
		return nil
	}
	se, ok := m.holding().(StoredEnder)
	if !ok {
		return nil
	}
	end, ok := se.StoredEnd(store)
	if !ok {
		return nil
	}
	return []storage.BudgetReservation{end}
}

// finish ends the run's meter at the end of a conversation's run: stored says the store took what storedEnd
// returned; otherwise the meter is told with End.
func (m *meterState) finish(ctx context.Context, stored bool) {
	if m == nil {
		return
	}
	if rm := m.holding(); stored && rm != nil {
		rm.(StoredEnder).EndStored()
		m.begun, m.rm, m.prev = false, nil, nil
		return
	}
	m.end(ctx)
}

// meterClient asks the run's meter before each model call and tells it the usage after.
type meterClient struct {
	next chat.Client
	m    *meterState
}

func (c meterClient) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	rm, err := c.m.start(ctx)
	if err != nil {
		return nil, err
	}
	if rm == nil {
		return c.next.Respond(ctx, msgs, opts)
	}
	if err := rm.Reserve(ctx, msgs, opts); err != nil {
		return nil, err
	}
	resp, err := c.next.Respond(ctx, msgs, opts)
	var used chat.Usage
	var model string
	if resp != nil {
		used, model = resp.Usage, resp.Model
	}
	c.m.settle(ctx, rm, model, used)
	return resp, err
}

func (c meterClient) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		rm, err := c.m.start(ctx)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		if rm == nil {
			for u, err := range c.next.Stream(ctx, msgs, opts) {
				if !yield(u, err) {
					return
				}
			}
			return
		}
		if err := rm.Reserve(ctx, msgs, opts); err != nil {
			yield(chat.Update{}, err)
			return
		}
		var used chat.Usage
		var model string
		defer func() { c.m.settle(ctx, rm, model, used) }()
		for u, err := range c.next.Stream(ctx, msgs, opts) {
			if u.Model != "" {
				model = u.Model
			}
			for _, p := range u.Parts {
				if up, ok := p.(chat.UsagePart); ok {
					used = used.Add(up.Usage)
				}
			}
			if !yield(u, err) {
				return
			}
		}
	}
}

// meterEndClient ends the run's meter when the run's agent is done.
type meterEndClient struct {
	next chat.Client
	m    *meterState
}

func (c meterEndClient) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	defer c.m.end(ctx)
	return c.next.Respond(ctx, msgs, opts)
}

func (c meterEndClient) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		defer c.m.end(ctx)
		for u, err := range c.next.Stream(ctx, msgs, opts) {
			if !yield(u, err) {
				return
			}
		}
	}
}

// costData is a run's cost as its end entry stores it.
type costData struct {
	// Nanos is in billionths of Currency; Amount is the same in units, for people reading the entry.
	Nanos    int64   `json:"nanos"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency,omitempty"`
	// Unpriced counts the model calls whose price was not known; their cost is in neither figure.
	Unpriced int `json:"unpriced_calls,omitempty"`
}

// endCost returns the run's cost as the end entry stores it, or nil.
func (m *meterState) endCost() *costData {
	c, ok := m.runCost()
	if !ok {
		return nil
	}
	return &costData{Nanos: c.Nanos, Amount: c.Amount(), Currency: c.Currency, Unpriced: c.Unpriced}
}

// An AdvanceMeter is a [Meter] that can reserve a run's first model call ahead of it, in the round trip that reads
// the run's stored settings (storage.RunStore's BeginRun): a run without a conversation, which stores nothing at its
// end for the release of its budget to ride on, then adds one round trip per model call, not one more. The host
// asks it for such runs whose settings come from Config.Store.
type AdvanceMeter interface {
	Meter
	// Advances reports whether the meter keeps its budgets in store, and so can reserve there with a settings read.
	Advances(store storage.SettingsStore) bool
	// Advance returns the reservation of run's first model call for a request of msgs and opts as they stand
	// before the stored settings are read. The host passes what the store reserved to Begin in MeteredRun.Ahead.
	Advance(run MeteredRun, msgs []chat.Message, opts *chat.Options) storage.BudgetReservation
}

// ahead is a run's first model call reserved with its settings read (Host.settingsAhead), for a run that can be
// (Host.advances).
type ahead struct {
	input    []chat.Message // the run's history and input, for the estimate
	offered  offeredTools
	res      storage.BudgetReservation
	reserved bool // the store holds res, until the run's meter begins and takes it
}

// offeredTools are the tools a run is offered before its settings' overrides (Host.tools), read before the
// settings when the first call is reserved with them.
type offeredTools struct {
	tools  []*toolset.Tool
	hidden []string
	err    error
}

// advances reports whether a run's first model call can be reserved with its settings read: a run without a
// conversation, whose settings come from Config.Store, under an AdvanceMeter that keeps its budgets in that
// store, which reads and reserves in its BeginRun.
func (h *Host) advances(ri *runInput) bool {
	if ri.conversationID != "" || ri.settingsID == "" || !h.storeSettings {
		return false
	}
	am, ok := h.cfg.Meter.(AdvanceMeter)
	if !ok {
		return false
	}
	return am.Advances(h.cfg.Store)
}

// settingsAhead reads the run's stored settings and reserves its first model call in a, in one step, for the
// request as it stands without them: the code's defaults, the run's settings, the tools the composition offers
// (read here, shown run, and used by Host.tools). The meter's first reservation is spared when the real request
// fits.
func (h *Host) settingsAhead(ctx context.Context, ask *runAsk, run *toolset.Run, a *ahead) (json.RawMessage, error) {
	ri := &ask.input
	a.offered.tools, a.offered.hidden, a.offered.err = h.offer.ToolsHidden(ctx, run)
	pre := codeDefaults(h.agent)
	if a.offered.err != nil || pre.apply("run", ri.settings, h.decl.Configurable) != nil {
		return h.cfg.Settings.Settings(ctx, ri.settingsID, h.decl.SettingsKind) // the run fails as it would
	}
	opts := pre.opts
	opts.Tools = a.offered.tools
	a.res = h.cfg.Meter.(AdvanceMeter).Advance(h.meteredRun(*run, pre.provider), a.input, &opts)
	got, err := h.runs.BeginRun(ctx, storage.RunBegin{SettingsID: ri.settingsID, Kinds: []string{h.decl.SettingsKind}, Reserve: &a.res})
	a.reserved = got.Reserved
	if err != nil {
		return nil, err
	}
	return got.Settings[h.decl.SettingsKind].Data, nil
}

// held returns what the store holds for the run's first model call, or nil.
func (a *ahead) held() *storage.BudgetReservation {
	if a == nil || !a.reserved {
		return nil
	}
	return &a.res
}

// taken records that the run's meter holds what was reserved, if anything.
func (a *ahead) taken() {
	if a != nil {
		a.reserved = false
	}
}

// tools returns the tools settingsAhead read, or nil.
func (a *ahead) tools() *offeredTools {
	if a == nil {
		return nil
	}
	return &a.offered
}

// drop ends what settingsAhead reserved in store for a run whose meter did not begin.
func (a *ahead) drop(ctx context.Context, store storage.RunStore) {
	res := a.held()
	if res == nil || store == nil {
		return
	}
	a.reserved = false
	end := *res
	end.Reserve, end.End = storage.BudgetSpend{}, true
	_, _ = store.EndRun(context.WithoutCancel(ctx), storage.RunEnd{Settle: []storage.BudgetReservation{end}})
}

// meteredRun names run, of h's agent, for its meter, its provider being provider.
func (h *Host) meteredRun(run toolset.Run, provider string) MeteredRun {
	return MeteredRun{SettingsID: run.SettingsID, ConversationID: run.ConversationID, LeaseTTL: h.leaseTTL(),
		RunID: run.RunID, Agent: h.decl.Name, Provider: provider}
}
