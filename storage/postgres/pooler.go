package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A store may reach Postgres through a pooler in transaction pooling mode
// (PgBouncer, RDS Proxy, Supavisor): every statement it sends through the
// pool is a transaction of its own or part of one (a batch, a TenantTx), and
// names its tenant with set_config(..., true), which ends with the
// transaction, so a server connection the pooler hands to another client
// carries nothing of the tenant. What must outlive a transaction does not go
// through the pool: the LISTEN connection of Watch and WatchSteering and the
// connection of RenewRuns are opened from [Options.Direct]. New finds out
// whether the pool goes through a pooler and refuses a configuration that
// would break behind one, with a [*ConfigError] naming the setting to change.

// ConfigError reports a connection setting that does not fit the way the
// store reaches Postgres; New returns it.
type ConfigError struct {
	// Setting names what to change: "Options.Direct", or the pool's
	// "default_query_exec_mode".
	Setting string
	// Problem says what is wrong, Fix what to set.
	Problem, Fix string
}

// Error names the setting, says what is wrong and what to set.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("postgres: %s: %s; %s", e.Setting, e.Problem, e.Fix)
}

// proxied reports whether conn reaches Postgres through a proxy: a pooler
// gives its clients a backend process id of its own (PgBouncer a random one),
// so the id the connection was told at start is not that of the server
// process that runs its statements.
func proxied(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var pid uint32
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return false, err
	}
	return pid != conn.PgConn().PID(), nil
}

// ThroughPooler reports whether pool's connections reach Postgres through a
// pooler or another proxy, as New finds out for the store's pool: code
// beside the store that holds a session (a job queue's LISTEN) checks its
// own pool with it.
func ThroughPooler(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer c.Release()
	return proxied(ctx, c.Conn())
}

// qWhere names the database and the schema a connection's statements use,
// which the direct connection must share with the pool's.
const qWhere = `SELECT current_database()::text, coalesce(current_schema(), '')::text`

// checkConnections decides, at New, how the store reaches Postgres: whether
// the pool goes through a pooler, and if so whether its statements need no
// prepared statement kept across transactions and whether Options.Direct
// names a direct connection to the same database and schema.
func (s *Store) checkConnections(ctx context.Context, pool *pgxpool.Pool, opts *Options) error {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: New: %w", err)
	}
	defer c.Release()
	viaPooler, err := proxied(ctx, c.Conn())
	if err != nil {
		return fmt.Errorf("postgres: New: %w", err)
	}
	var db, schema string
	if err := c.QueryRow(ctx, qWhere).Scan(&db, &schema); err != nil {
		return fmt.Errorf("postgres: New: %w", err)
	}
	s.pooled = viaPooler
	if viaPooler {
		mode := pool.Config().ConnConfig.DefaultQueryExecMode
		if (mode == pgx.QueryExecModeCacheStatement || mode == pgx.QueryExecModeCacheDescribe) && !opts.PoolerPreparedStatements {
			return &ConfigError{Setting: "default_query_exec_mode",
				Problem: fmt.Sprintf("the pool reaches Postgres through a pooler and keeps prepared statements per connection (%s), which a pooler in transaction mode does not carry across server connections", mode),
				Fix: "add default_query_exec_mode=exec to the pool's URL (or set ConnConfig.DefaultQueryExecMode to pgx.QueryExecModeExec); " +
					"set Options.PoolerPreparedStatements only for a pooler that carries them (PgBouncer 1.21 or later with max_prepared_statements > 0)"}
		}
		if opts.Direct == nil {
			return &ConfigError{Setting: "Options.Direct",
				Problem: "the pool reaches Postgres through a pooler, which cannot hold the LISTEN of watchers and steering nor the lease connection",
				Fix:     "set Options.Direct to a direct connection to the same database (TYPESHIFT_DATABASE_DIRECT_URL in the examples)"}
		}
	}
	if opts.Direct == nil {
		return nil
	}
	conn, err := s.directConnect(ctx, "typeshift check")
	if err != nil {
		return &ConfigError{Setting: "Options.Direct", Problem: fmt.Sprintf("cannot connect: %v", err),
			Fix: "set it to a direct connection to the pool's database"}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	directPooled, err := proxied(ctx, conn)
	if err != nil {
		return fmt.Errorf("postgres: New: %w", err)
	}
	if directPooled {
		return &ConfigError{Setting: "Options.Direct", Problem: "it reaches Postgres through a pooler too",
			Fix: "set it to the Postgres server's own address (or a pooler in session mode's), not the transaction pooler's"}
	}
	var ddb, dschema string
	if err := conn.QueryRow(ctx, qWhere).Scan(&ddb, &dschema); err != nil {
		return fmt.Errorf("postgres: New: %w", err)
	}
	if ddb != db || dschema != schema {
		return &ConfigError{Setting: "Options.Direct",
			Problem: fmt.Sprintf("it reaches database %q, schema %q, and the pool database %q, schema %q", ddb, dschema, db, schema),
			Fix:     "set it to the pool's database, with the same search_path"}
	}
	return nil
}

// directConnect opens a connection of the store's own, for what must hold a
// session or must not wait for the pool: from Options.Direct when set, else
// with the pool's configuration, its BeforeConnect and AfterConnect hooks
// included (they may set the search_path, say). name is its
// application_name unless the configuration sets one.
func (s *Store) directConnect(ctx context.Context, name string) (*pgx.Conn, error) {
	if s.direct != nil {
		cfg := s.direct.Copy()
		if cfg.RuntimeParams["application_name"] == "" && name != "" {
			cfg.RuntimeParams["application_name"] = name
		}
		return pgx.ConnectConfig(ctx, cfg)
	}
	return s.poolConnect(ctx, name)
}

// poolConnect opens a connection of the store's own with the pool's
// configuration and hooks.
func (s *Store) poolConnect(ctx context.Context, name string) (*pgx.Conn, error) {
	pc := s.pool.Config()
	cfg := pc.ConnConfig.Copy()
	if cfg.RuntimeParams["application_name"] == "" && name != "" {
		cfg.RuntimeParams["application_name"] = name
	}
	if pc.BeforeConnect != nil {
		if err := pc.BeforeConnect(ctx, cfg); err != nil {
			return nil, err
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if pc.AfterConnect != nil {
		if err := pc.AfterConnect(ctx, conn); err != nil {
			_ = conn.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	return conn, nil
}
