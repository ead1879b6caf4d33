package agent

import (
	"context"
	"encoding/json"
	"iter"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/metering"
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

// MeteredRun names the run a [Meter] meters: its tenant (SettingsID; a sub-agent's run has its caller's), its
// conversation (ConversationID, "" without one) and the token and lifetime of its claim on it (LeaseToken,
// LeaseTTL: what the meter holds for the run may be tied to the claim), the run (RunID), its agent (Agent) and
// the provider its settings name (Provider).
type MeteredRun = metering.Run

// A RunMeter meters one run. The host calls it from the run's goroutine, one model call at a time: Call around
// each model call, and End once when the run's agent is done.
type RunMeter interface {
	// Call wraps one model call, as a middleware does: it may refuse the call by returning an error without
	// calling next (the run then ends with that error, its history stored); otherwise it calls next, which makes
	// the call and returns what it used and the model that answered ("" when it did not say; zero usage when the
	// call failed), and returns what the call cost with next's error.
	Call(ctx context.Context, call MeteredCall, next func(context.Context) (CallUsage, error)) (Cost, error)
	// End releases what the meter still holds for the run.
	End(ctx context.Context)
}

// MeteredCall is the request of a model call a [RunMeter] meters: the model named in Options, the messages, the
// output cap in Options.MaxTokens.
type MeteredCall struct {
	Messages []chat.Message
	Options  *chat.Options
}

// CallUsage is what a metered model call used, and the model that answered.
type CallUsage struct {
	Model string
	Usage chat.Usage
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
	rm, err := m.meter.Begin(ctx, m.run)
	if err != nil {
		m.ahead.drop(ctx, m.store)
		return nil, err
	}
	if res := m.ahead.held(); res != nil {
		if am, ok := m.meter.(metering.Ahead); ok && am.Reserved(rm, *res) {
			m.ahead.taken() // the RunMeter holds it
		}
	}
	m.rm, m.begun = rm, true
	if prev := m.prev; prev != nil {
		m.prev = nil
		if ho, ok := prev.(metering.Handover); !ok || !ho.HandOver(rm) {
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
// to m's when it begins (metering.Handover), and is ended at once when m's host has no meter.
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

// call makes a model call through the run's meter, next making it, and adds its cost to the run's.
func (m *meterState) call(ctx context.Context, rm RunMeter, msgs []chat.Message, opts *chat.Options, next func(context.Context) (CallUsage, error)) error {
	c, err := rm.Call(ctx, MeteredCall{Messages: msgs, Options: opts}, next)
	m.mu.Lock()
	m.cost = m.cost.Add(c)
	m.mu.Unlock()
	return err
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

// storedEnd returns what ends the run's meter in store's last step of a conversation's run, when the meter can
// (see metering.StoredEnd): nil otherwise, and for a run without a meter.
func (m *meterState) storedEnd(store storage.ConversationStore) []storage.BudgetReservation {
	if m == nil || m.holding() == nil {
		return nil
	}
	se, ok := m.holding().(metering.StoredEnd)
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
		rm.(metering.StoredEnd).EndStored()
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
	var resp *chat.Response
	err = c.m.call(ctx, rm, msgs, opts, func(ctx context.Context) (CallUsage, error) {
		var err error
		resp, err = c.next.Respond(ctx, msgs, opts)
		if resp == nil {
			return CallUsage{}, err
		}
		return CallUsage{Model: resp.Model, Usage: resp.Usage}, err
	})
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
		called := false
		err = c.m.call(ctx, rm, msgs, opts, func(ctx context.Context) (CallUsage, error) {
			called = true
			var used CallUsage
			for u, err := range c.next.Stream(ctx, msgs, opts) {
				if u.Model != "" {
					used.Model = u.Model
				}
				for _, p := range u.Parts {
					if up, ok := p.(chat.UsagePart); ok {
						used.Usage = used.Usage.Add(up.Usage)
					}
				}
				if !yield(u, err) {
					break
				}
			}
			return used, nil // the stream's errors went to the caller with its updates
		})
		if err != nil && !called {
			yield(chat.Update{}, err) // refused
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
// conversation, whose settings come from Config.Store, under a meter that keeps its budgets in that store
// (Host.advancer), which reads and reserves in its BeginRun.
func (h *Host) advances(ri *runInput) bool {
	return h.advancer != nil && ri.conversationID == "" && ri.settingsID != "" && h.storeSettings
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
	a.res = h.advancer.Advance(h.meteredRun(*run, pre.provider), a.input, &opts)
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
