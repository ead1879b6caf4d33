// Package postgres keeps Typeshift's settings and conversations in
// PostgreSQL through pgx v5, for services whose instances share a database.
//
//	pool, err := pgxpool.New(ctx, os.Getenv("TYPESHIFT_DATABASE_URL"))
//	...
//	if _, err := postgres.Migrate(ctx, pool); err != nil { ... }
//	store, err := postgres.New(ctx, pool, nil)
//	...
//	defer store.Close()
//
// # Tenancy
//
// Every table is guarded by a row-level security policy that admits the rows
// of one settings id: the one the store sets, per transaction, with
// set_config('typeshift.settings_id', $1, true). The policy is forced, so it
// binds the tables' owner as well; a query that forgets its tenant finds no
// rows rather than everyone's. New refuses a pool whose role row-level
// security does not bind (see [CheckTenancy]) unless told otherwise.
//
// # Leases
//
// A conversation's lease is a row with an owner, a random token and an
// expiry, taken by one INSERT ... ON CONFLICT DO UPDATE that only succeeds
// when the lease is free or expired, so of two instances claiming at once
// exactly one wins. Append checks the lease and numbers the entries in the
// same statement that inserts them.
//
// # Live events and steering
//
// Publish stores a run's events, numbered by the run, and sends a NOTIFY on
// one channel ([Options.Channel]) that names the conversation and its last
// event's id; the Publish calls of every conversation that arrive within
// [Options.PublishInterval] share one transaction and one notification.
// Steer queues steering input and notifies the same way. Watch
// and WatchSteering LISTEN on a connection of its own, opened on the first
// watcher and closed after the last. A notification carries no event and no
// input: the receiver reads them from their tables under its own tenant, so
// a notification anyone else sends on the channel finds nothing.
//
// # Behind a pooler
//
// Every statement the store sends through the pool is a transaction of its
// own or part of one that names its tenant, so the pool may go through a
// pooler in transaction mode (PgBouncer): give the pool
// default_query_exec_mode=exec (PgBouncer before 1.21 keeps no prepared
// statement across server connections) and [Options.Direct] a direct
// connection for the LISTEN and lease connections. New finds a pooler and
// refuses a configuration that would break behind it with a [*ConfigError]
// naming the setting. See docs/storage.md.
package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
)

// Store is a [storage.Store] in PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool           *pgxpool.Pool
	channel        string
	eventRetention time.Duration

	instance string // tells this store's watchers from other processes'

	eventHub   watch.Hub // signalled by notifications of events
	steerHub   watch.Hub // signalled by notifications of steering input
	watcherHub watch.Hub // signalled when another process starts watching a conversation
	leases     leaseConn // the connection of RenewRuns (lease.go)
	watching   watching  // the conversations this instance watches (watchers.go)
	pruner     pruner    // deletes expired events (prune.go)
	publisher  publisher // writes the events of Publish in batches (relay.go)
	reader     reader    // reads the events of Watch in batches (relay.go)

	publishInterval time.Duration

	direct *pgx.ConnConfig // Options.Direct
	pooled bool            // the pool reaches Postgres through a pooler

	mu     sync.Mutex // guards the listener's state
	listen *listener
	closed bool
}

var (
	_ storage.Store      = (*Store)(nil)
	_ storage.EventRelay = (*Store)(nil)
)

// Options configures a Store; nil or zero fields mean the defaults.
type Options struct {
	// Channel is the NOTIFY channel of live events; "" means
	// "typeshift_events". Instances that follow each other's runs must use
	// the same channel.
	Channel string
	// EventRetention is how long an event is kept for watchers that
	// resume; 0 means five minutes. Expired events are deleted in the
	// background, in bounded batches, a few times per retention.
	EventRetention time.Duration
	// PublishInterval is the shortest time between two of the store's
	// transactions that write events: the Publish calls of every
	// conversation and tenant that arrive meanwhile are written together, in
	// one transaction with one notification. 0 means 20 ms; a negative
	// value writes each batch as soon as the one before it committed.
	// Notifying commits go one at a time in the whole database cluster, so
	// this bounds what a process's watched streams ask of it: 50 such
	// transactions a second at the default, whatever the number of streams.
	PublishInterval time.Duration
	// Direct configures the connections the store opens beside the pool
	// for what holds a session or must not queue for the pool's
	// connections: the LISTEN connection of Watch and WatchSteering, and
	// the connection of RenewRuns. It must reach the pool's database and
	// schema without a pooler in transaction mode between. nil means the
	// pool's configuration, which New refuses (a [*ConfigError]) when the
	// pool goes through a pooler. A multi-host configuration with
	// target_session_attrs=read-write follows a failover, as the pool's
	// does. See docs/storage.md ("Behind a pooler").
	Direct *pgx.ConnConfig
	// PoolerPreparedStatements says that the pooler between the pool and
	// Postgres carries prepared statements across server connections
	// (PgBouncer 1.21 or later with max_prepared_statements above 0), so
	// that New accepts a pool that caches them (pgx's default mode); without
	// it New refuses such a pool behind a pooler (a [*ConfigError] naming
	// default_query_exec_mode).
	PoolerPreparedStatements bool
	// AllowBypassRLS skips the check of New that row-level security binds
	// the pool's role (see [CheckTenancy]). Set it only for migrations and
	// admin tools that must see every tenant, never for a service's store:
	// with a role that bypasses row-level security the database no longer
	// keeps tenants apart, only the store's own WHERE clauses do.
	AllowBypassRLS bool
}

// New returns a store over pool. The pool's schema must have been migrated
// with [Migrate]. New finds out whether the pool reaches Postgres through a
// pooler and returns a [*ConfigError] naming the setting to change when the
// configuration would break behind it (see [Options.Direct]). It checks, in
// one query, that row-level security binds
// the role of the pool's connections and guards every table, and returns a
// [*TenancyError] saying what is wrong when it does not, unless
// opts.AllowBypassRLS is set. Call Close when done, to stop the listener of
// Watch.
func New(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*Store, error) {
	if pool == nil {
		return nil, fmt.Errorf("postgres: New: nil pool")
	}
	s := &Store{pool: pool, channel: "typeshift_events", eventRetention: 5 * time.Minute, instance: newToken(),
		publishInterval: 20 * time.Millisecond}
	s.pruner.s = s
	s.publisher.s, s.reader.s = s, s
	s.leases.name, s.publisher.conn.name = "typeshift leases", "typeshift relay"
	s.leases.direct = true
	if opts == nil {
		opts = &Options{}
	}
	s.direct = opts.Direct
	if opts.Channel != "" {
		s.channel = opts.Channel
	}
	if opts.EventRetention > 0 {
		s.eventRetention = opts.EventRetention
	}
	if opts.PublishInterval != 0 {
		s.publishInterval = max(opts.PublishInterval, 0)
	}
	if !opts.AllowBypassRLS {
		if err := CheckTenancy(ctx, pool); err != nil {
			return nil, err
		}
	}
	if err := s.checkConnections(ctx, pool, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// Pooled reports whether the store's pool reaches Postgres through a pooler,
// as New found it: code beside the store that needs a session (a job queue's
// LISTEN and leader election) must then take it from a direct connection.
func (s *Store) Pooled() bool { return s.pooled }

// Close ends every watch and stops listening. The pool stays open: it is the
// caller's.
func (s *Store) Close() {
	s.mu.Lock()
	s.closed = true
	l := s.listen
	s.listen = nil
	s.mu.Unlock()
	s.publisher.close() // what is queued is written first
	if l != nil {
		l.stop()
	}
	s.leases.close()
	s.pruner.close()
	s.eventHub.CloseAll()
	s.steerHub.CloseAll()
	s.watcherHub.CloseAll()
}

// Prune deletes the expired events and watcher rows of the tenants the store
// published or watched for lately, in bounded batches, and returns how many
// rows it deleted. The store runs it by itself a few times per
// [Options.EventRetention]; call it to prune now.
func (s *Store) Prune(ctx context.Context) (int64, error) { return s.pruner.pass(ctx) }

// setTenant names the transaction's tenant for the row-level security
// policies. It is always the first statement of a batch: pgx runs a batch in
// one implicit transaction, so the setting holds for the statements after it
// and ends with them.
const setTenant = `SELECT set_config('typeshift.settings_id', $1, true)`

// tenantBatch returns a batch that starts by naming the tenant.
func tenantBatch(settingsID string) *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(setTenant, settingsID)
	return b
}

// setTenantNoFlush is setTenant for a transaction that stores nothing a
// crash of the database may not undo, and so commits without waiting for
// its WAL to reach the disk (synchronous_commit off for this transaction
// alone): taking a claim. A durable commit is the dearest part of a write on
// the database's side; a run's claim is followed by the durable store of its
// start and input, whose flush covers the claim too, WAL being written in
// order. Should the database crash in between, the claim is undone, as if
// never taken, and the run's next store finds the claim lost and stores
// nothing. (Steering input queued under an expired claim is moved by a
// transaction of its own, durable, after the claim: see takeQueued.)
const setTenantNoFlush = `SELECT set_config('typeshift.settings_id', $1, true), set_config('synchronous_commit', 'off', true)`

// claimBatch returns a batch that starts by naming the tenant and commits
// without waiting for its WAL flush (setTenantNoFlush).
func claimBatch(settingsID string) *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(setTenantNoFlush, settingsID)
	return b
}

// send runs b and gives fn its results after the tenant statement. The batch
// is one round trip and one transaction.
func (s *Store) send(ctx context.Context, b *pgx.Batch, fn func(br pgx.BatchResults) error) error {
	br := s.pool.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return err
	}
	err := fn(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// sendExec sends b, a tenant's batch, and returns how many rows its first statement after the tenant's affected.
func (s *Store) sendExec(ctx context.Context, b *pgx.Batch) (int64, error) {
	var n int64
	err := s.send(ctx, b, func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// wrap adds the package's prefix and the operation to a database error.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}
