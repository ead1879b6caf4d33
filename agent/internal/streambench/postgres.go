package streambench

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

// PGOptions configure [OpenPostgres].
type PGOptions struct {
	// MaxConns is the size of each pool; 0 means pgxpool's default (four connections, or the number of CPUs if
	// more), what a service that does not tune its pool gets.
	MaxConns int32
	// EventRetention is the store's; 0 means its default.
	EventRetention time.Duration
	// AsyncCommit leaves the test role's synchronous_commit=off; otherwise every connection commits durably, as
	// Postgres does by default.
	AsyncCommit bool
}

// PG is a migrated schema of the test database with a store over a pool whose statements a [Counter] counts.
type PG struct {
	// Store is the store of the first instance, over Pool.
	Store *postgres.Store
	// Pool is the first instance's pool.
	Pool *pgxpool.Pool
	// Counter counts what Pool (and the store's LISTEN connection) sends.
	Counter *Counter
	// Schema is the schema's name.
	Schema string

	tb   testing.TB
	cfg  *pgxpool.Config
	opts PGOptions
}

// OpenPostgres opens a fresh schema (dropped when the test ends), migrates it, opens a store over a counted pool,
// and creates plain_messages, a table of the entries' shape without row-level security or keys, for the plain pgx
// baseline. It skips the test without a test database (see pgtest).
func OpenPostgres(tb testing.TB, opts *PGOptions) *PG {
	tb.Helper()
	pg := &PG{tb: tb}
	if opts != nil {
		pg.opts = *opts
	}
	pg.Schema, pg.cfg = pgtest.Schema(tb)
	if pg.opts.MaxConns > 0 {
		pg.cfg.MaxConns = pg.opts.MaxConns
	}
	if !pg.opts.AsyncCommit {
		pg.cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	}
	pg.Store, pg.Pool, pg.Counter = pg.open(func(pool *pgxpool.Pool) {
		if _, err := postgres.Migrate(context.Background(), pool); err != nil {
			tb.Fatalf("migrating: %v", err)
		}
		if _, err := pool.Exec(context.Background(), `CREATE TABLE plain_messages (LIKE conversation_entries INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`); err != nil {
			tb.Fatalf("creating plain_messages: %v", err)
		}
	})
	return pg
}

// Another opens another store, with a pool and a counter of its own, on the same schema: another instance, as far
// as the database can tell.
func (pg *PG) Another() (*postgres.Store, *Counter) {
	s, _, c := pg.open(nil)
	return s, c
}

// open opens a counted pool, runs prepare on it, and opens a store over it.
func (pg *PG) open(prepare func(*pgxpool.Pool)) (*postgres.Store, *pgxpool.Pool, *Counter) {
	tb := pg.tb
	tb.Helper()
	c := &Counter{}
	cfg := pg.cfg.Copy()
	cfg.ConnConfig.Tracer = c
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		c.backend(conn.PgConn().PID())
		if after != nil {
			return after(ctx, conn)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("opening a pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	if prepare != nil {
		prepare(pool)
	}
	direct := pgtest.DirectOf(tb, pool) // behind a pooler (package pgtest): counted too
	if direct != nil {
		direct.Tracer = c
	}
	s, err := postgres.New(context.Background(), pool, &postgres.Options{EventRetention: pg.opts.EventRetention, Direct: direct})
	if err != nil {
		tb.Fatalf("opening the store: %v", err)
	}
	tb.Cleanup(s.Close)
	return s, pool, c
}

// plainInsert stores a message as one row of plain_messages.
const plainInsert = `INSERT INTO plain_messages
	(settings_id, conversation_id, seq, type, run_id, agent, author, created_at, schema_version, data)
VALUES ($1, $2, $3, 'response', $4, 'tester', 'assistant', now(), 1, $5::jsonb)`

// InsertMessage stores a message's JSON as one row of plain_messages with one statement on the counted pool: the
// plain pgx baseline's write of a streamed answer.
func (pg *PG) InsertMessage(ctx context.Context, settingsID, conversationID string, seq int64, runID string, data []byte) error {
	_, err := pg.Pool.Exec(ctx, plainInsert, settingsID, conversationID, seq, runID, string(data))
	return err
}

// DeadRows returns the dead rows of the schema's tables whose name starts with prefix, as Postgres's statistics
// last reported them (pg_stat_user_tables.n_dead_tup; they lag by up to a second or so).
func (pg *PG) DeadRows(ctx context.Context, prefix string) (int64, error) {
	var n int64
	err := pg.Pool.QueryRow(ctx, `SELECT coalesce(sum(n_dead_tup), 0)::bigint FROM pg_stat_user_tables
WHERE schemaname = $1 AND starts_with(relname, $2)`, pg.Schema, prefix).Scan(&n)
	return n, err
}
