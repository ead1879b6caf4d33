package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent/background/riverqueue"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// envDatabaseURL names the variable migrate and verify-store read the
// database's URL from when -database-url is not given.
const envDatabaseURL = "TYPESHIFT_DATABASE_URL"

// runMigrate is "typeshift migrate": it applies the Postgres store's
// migrations that the database lacks.
func runMigrate(ctx context.Context, args []string) error {
	return migrate(ctx, args, os.Stdout, os.Stderr)
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: typeshift migrate [-database-url url] [-schema name] [-river=false]

migrate creates or upgrades the tables of a Typeshift Postgres store. It
applies, in order and each in its own transaction, the migrations the schema
lacks, under an advisory lock, so instances starting together are safe. Then,
unless -river=false, it applies River's migrations, the tables of the job queue
that runs background sub-agents (package riverqueue), beside the store's, and
the tenant policy of River's job table. It prints what it applied and the
schema's version.

`)
		fs.PrintDefaults()
	}
	url := fs.String("database-url", os.Getenv(envDatabaseURL), "the database's URL (default $"+envDatabaseURL+")")
	schema := fs.String("schema", "", "the schema to migrate (default: the first on the role's search_path)")
	withRiver := fs.Bool("river", true, "also migrate River's tables, for background sub-agents")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("migrate: unexpected arguments %q", fs.Args())
	}
	pool, err := openPool(ctx, *url, *schema)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer pool.Close()

	var applied, riverApplied []int
	if *withRiver {
		applied, riverApplied, err = riverqueue.Migrate(ctx, pool)
	} else {
		applied, err = postgres.Migrate(ctx, pool)
	}
	all, _ := postgres.Migrations()
	for _, v := range applied {
		for _, m := range all {
			if m.Version == v {
				fmt.Fprintf(stdout, "applied %s\n", m.Name)
			}
		}
	}
	for _, v := range riverApplied {
		fmt.Fprintf(stdout, "applied River migration %03d\n", v)
	}
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	v, err := postgres.SchemaVersion(ctx, pool)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if len(applied)+len(riverApplied) == 0 {
		fmt.Fprintf(stdout, "schema is up to date at version %d\n", v)
	} else {
		fmt.Fprintf(stdout, "schema is at version %d\n", v)
	}
	return nil
}

// openPool connects to url, with schema first on the search_path when given.
func openPool(ctx context.Context, url, schema string) (*pgxpool.Pool, error) {
	if url == "" {
		return nil, errors.New("no database: give -database-url or set " + envDatabaseURL)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("the database URL cannot be parsed: %s (its form: postgres://user:password@host:5432/database?sslmode=disable)",
			urlProblem(err, url))
	}
	if schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = schema
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	return pool, nil
}

// urlProblem returns why pgx cannot parse the database URL raw: its message without the URL it quotes (pgx hides
// the password there, but a URL it cannot read may hide it from pgx too), and with any text of the password that
// is left replaced.
func urlProblem(err error, raw string) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "cannot parse `"); ok {
		if _, reason, ok := strings.Cut(rest, "`: "); ok {
			msg = reason
		}
	}
	for _, pw := range passwords(raw) {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return msg
}

// passwords returns what may be the password in a database URL or keyword/value string, raw and decoded.
func passwords(raw string) []string {
	var out []string
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		authority, _, _ := strings.Cut(rest, "/")
		if at := strings.LastIndex(authority, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(authority[:at], ":"); ok && pw != "" {
				out = append(out, pw)
				if dec, err := neturl.PathUnescape(pw); err == nil && dec != pw {
					out = append(out, dec)
				}
			}
		}
	}
	for _, f := range strings.Fields(raw) {
		if pw, ok := strings.CutPrefix(f, "password="); ok && strings.Trim(pw, "'") != "" {
			out = append(out, strings.Trim(pw, "'"))
		}
	}
	return out
}
