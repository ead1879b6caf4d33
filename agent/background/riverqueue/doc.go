// Package riverqueue runs background sub-agents as durable jobs in Postgres,
// on River (github.com/riverqueue/river) with its pgx v5 driver, beside the
// tables of the Postgres store.
//
// A job is a row of background_runs, under the store's row-level security,
// that holds everything the tenant wrote (the task, the mode, the standing
// approvals, the answer), and River jobs that hold only the tenant's id and
// the job's: a run job, unique per job and generation, that runs it once on
// any instance, and a watch job that ends it when its deadline passes or its
// runs are gone. Enqueue stores the row, the sub-agent's conversation and the
// River jobs in one transaction; a run's outcome and its report to the
// caller's conversation are stored in one transaction, once, whichever of the
// attempts ends first. A crashed worker's job is rescued by River and run
// again on another instance, after [Options.RescueAfter].
//
//	if _, _, err := riverqueue.Migrate(ctx, pool); err != nil { ... }
//	store, err := postgres.New(ctx, pool, nil)
//	...
//	queue, err := riverqueue.New(pool, store, nil)
//	...
//	go queue.Work(ctx, manager.Run)
//
// Behind a pooler in transaction mode, River's client (its LISTEN, its leader
// election) needs a pool of direct connections: [Options.Direct].
//
// See docs/sub-agents.md and docs/storage.md.
package riverqueue
