// Package budget prices model calls and holds each tenant to what it may spend, across every instance that shares
// a store.
//
// A [Meter] is an [agent.Meter]: set it as agent.Config.Meter and every model call of a run is priced from its
// usage by a [Prices] table (the one the package ships, [DefaultPrices], or the application's), the run's cost goes
// to its [agent.Result] and its stored end entry, and the cost is counted by the OpenTelemetry metric
// [MetricCost] by tenant and model. A model the table does not know has no price: its calls are counted as
// unpriced, never as free.
//
// With [Options.Store] (storage/memory or storage/postgres) the meter also keeps budgets: before each model call it
// reserves what the call may use at most (its input estimate plus its output cap) against the tenant's limits —
// tokens or cost, per UTC day, month, conversation and run, and a number of live runs — and settles the
// reservation with the real usage afterwards. The reservation is atomic in the store, so instances racing for
// one tenant overspend by no more than the reservations in flight. A refused call ends the run with an
// [*ExceededError] (errors.Is [ErrBudgetExceeded], or [ErrTooManyRuns]) that names the window and when it resets;
// the run's input and everything before the refusal stay stored, and the conversation goes on once there is room.
//
//	store := memory.New()
//	meter := budget.New(&budget.Options{Store: store,
//		Defaults: budget.Limits{Month: &budget.Limit{Cost: ptr(50.0)}}})
//	host, _ := agent.NewHost(&Support{}, agent.Config{Client: client, Store: store, Meter: meter})
//
// A tenant's own limits are the settings document of kind storage.BudgetKind, which only the operator writes
// (through the store, or PUT /budget of agenthttp for a request marked Principal.Operator). See docs/budgets.md.
package budget
