package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one embedded schema change.
type Migration struct {
	// Version orders the migrations; it is the number the file name starts with.
	Version int
	// Name is the file name, such as "0001_init.sql".
	Name string
	// SQL is the file's text.
	SQL string
}

// Migrations returns the embedded migrations in the order Migrate applies them.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("postgres: migration %s: name must start with a positive number and '_'", name)
		}
		text, err := migrationFiles.ReadFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(text)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("postgres: migrations %s and %s share version %d", out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}

// migrationsTable records the applied versions, in the schema the tables go to.
const migrationsTable = "typeshift_schema_migrations"

// Migrate brings the schema first on the pool's search_path up to date by
// applying, in order and each in its own transaction, the embedded migrations
// it has not applied yet. Each transaction first takes a transaction-scoped
// Postgres advisory lock, keyed by the schema, and then reads whether its
// migration is applied, so instances that start together apply each
// migration once; holding no lock across transactions, it works through a
// pooler in transaction mode as well as directly. It returns the versions it
// applied.
func Migrate(ctx context.Context, pool *pgxpool.Pool) (applied []int, err error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		done := false
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if err := lockMigrations(ctx, tx); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+migrationsTable+` WHERE version = $1)`,
				m.Version).Scan(&done); err != nil || done {
				return err
			}
			// Without arguments pgx uses the simple protocol, which runs a
			// file of several statements.
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO `+migrationsTable+` (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("postgres: migration %s: %w", m.Name, err)
		}
		if !done {
			applied = append(applied, m.Version)
		}
	}
	return applied, nil
}

// lockMigrations takes, in tx, the advisory lock of the migrations of the
// schema first on the search_path, and creates the table that records them
// when missing (under the lock, so that instances starting together do not
// both create it).
func lockMigrations(ctx context.Context, tx pgx.Tx) error {
	const lockKey = `hashtextextended('typeshift.migrate.' || coalesce(current_schema(), ''), 0)`
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+lockKey+`)`); err != nil {
		return fmt.Errorf("taking the advisory lock: %w", err)
	}
	_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+migrationsTable+` (
		version    integer     PRIMARY KEY,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`)
	return err
}

// SchemaVersion returns the highest migration version applied to the schema
// first on the pool's search_path, or 0 when none is.
func SchemaVersion(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, migrationsTable).Scan(&exists); err != nil {
		return 0, fmt.Errorf("postgres: schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+migrationsTable).Scan(&v); err != nil {
		return 0, fmt.Errorf("postgres: schema version: %w", err)
	}
	return v, nil
}
