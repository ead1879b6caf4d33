package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

func TestMigrateAndVerifyStore(t *testing.T) {
	is := is.New(t)
	schema, _ := pgtest.Schema(t)
	url := pgtest.URL(t)
	ctx := t.Context()

	var out, errOut bytes.Buffer
	err := verifyStore(ctx, []string{"-database-url", url, "-schema", schema}, &out, &errOut)
	is.True(err != nil) // an unmigrated schema is refused
	is.True(strings.Contains(err.Error(), "run typeshift migrate"))

	is.NoErr(migrate(ctx, []string{"-database-url", url, "-schema", schema}, &out, &errOut))
	is.True(strings.Contains(out.String(), "applied 0001_init.sql"))
	is.True(strings.Contains(out.String(), "applied 0003_background_runs.sql"))
	is.True(strings.Contains(out.String(), "applied River migration 001"))
	out.Reset()
	is.NoErr(migrate(ctx, []string{"-database-url", url, "-schema", schema}, &out, &errOut))
	is.True(strings.Contains(out.String(), "up to date"))

	out.Reset()
	is.NoErr(verifyStore(ctx, []string{"-database-url", url, "-schema", schema}, &out, &errOut))
	is.True(strings.Contains(out.String(), "ok: the Postgres store keeps all"))
}

func TestVerifyMemoryStore(t *testing.T) {
	is := is.New(t)
	var out, errOut bytes.Buffer
	is.NoErr(verifyStore(t.Context(), []string{"-memory"}, &out, &errOut))
	is.True(strings.HasPrefix(out.String(), "ok: the memory store keeps all"))
}

func TestStoreCommandsWithoutDatabase(t *testing.T) {
	is := is.New(t)
	t.Setenv("TYPESHIFT_DATABASE_URL", "")
	var out, errOut bytes.Buffer
	err := migrate(t.Context(), nil, &out, &errOut)
	is.True(err != nil && strings.Contains(err.Error(), "-database-url"))
	err = verifyStore(t.Context(), []string{"-database-url", "postgres://u:secret@[::1"}, &out, &errOut)
	is.True(err != nil)
	is.True(!strings.Contains(err.Error(), "secret")) // the password is never printed
}

// TestMalformedDatabaseURL: a URL pgx cannot parse is refused with the reason, and never with the password.
func TestMalformedDatabaseURL(t *testing.T) {
	tests := []struct{ url, reason string }{
		{"postgres://u:s3cret@host:54x32/db", "invalid port"},
		{"postgres://u:s3cret@host/db?sslmode=maybe", "sslmode is invalid"},
		{"postgres://u:s3cret@[::1/db", `looking for matching "]"`},
		{"postgres://u:s3%zzcret@h/db", "invalid percent-encoded token in password"},
		{"host=x password=s3cret port=abc", "invalid port"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			is := is.New(t)
			var out, errOut bytes.Buffer
			err := migrate(t.Context(), []string{"-database-url", tt.url}, &out, &errOut)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), "the database URL cannot be parsed: ")) // what
			is.True(strings.Contains(err.Error(), tt.reason))                             // and why
			is.True(!strings.Contains(err.Error(), "s3"))                                 // no part of the password
		})
	}
}
