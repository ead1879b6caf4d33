package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/storage/storetest"
)

// TestCheckJSONMatchesJSONB asks Postgres which inputs jsonb holds and checks
// that storage.CheckJSON accepts exactly those: the suite's good and bad
// data, numbers at the edges of numeric, and a few hundred mutations of
// them. Nesting is left out: MaxJSONDepth is a limit of the store's own,
// below what jsonb parses. It is what makes the memory store refuse what Postgres refuses, and
// no more.
func TestCheckJSONMatchesJSONB(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	var inputs []string
	for _, b := range storetest.BadData {
		inputs = append(inputs, b.Data)
	}
	for _, g := range storetest.GoodData {
		inputs = append(inputs, g.Data)
	}
	for _, n := range []string{
		"1e131071", "1e131072", "9.99e131071", "10e131071", "0.01e131073", "0.01e131074", "-1e131071",
		"1e-16383", "1e-16384", "1.5e-16382", "1.55e-16382", "12e-16383", "0.1e-16382", "0.1e-16383",
		"0e200000", "0e-16383", "0e-16384", "0.0e-16383", "0e1073741822", "0e1073741823", "1E+5", "-0", "-0.0",
		"1" + strings.Repeat("0", 131071), "1" + strings.Repeat("0", 131072),
		"0." + strings.Repeat("0", 16382) + "1", "0." + strings.Repeat("0", 16383) + "1",
		"1." + strings.Repeat("0", 16383), "1." + strings.Repeat("0", 16384),
	} {
		inputs = append(inputs, n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seeds := []string{`{"a":"é\u00e9\ud83d\ude00","b":[1,-2.5e3,true,null]}`, `"\\u0000"`, `["x\ud800\udc00y"]`}
	pieces := []string{`\u0000`, `\ud800`, `\udc00`, `\uDBFF\uDFFF`, "\xff", "\xc3", "\x00", `\\`, `"`, `1e131072`, `]`, ` `}
	for range 300 {
		s := seeds[rng.IntN(len(seeds))]
		at := rng.IntN(len(s) + 1)
		s = s[:at] + pieces[rng.IntN(len(pieces))] + s[at:]
		inputs = append(inputs, s)
	}

	for _, in := range inputs {
		var typ string
		pgErr := conn.QueryRow(ctx, `SELECT jsonb_typeof($1::text::jsonb)`, in).Scan(&typ)
		checkErr := storage.CheckJSON([]byte(in))
		if checkErr != nil && strings.Contains(checkErr.Error(), "nested deeper") {
			// The one rule of its own: jsonb's depth depends on the server's
			// max_stack_depth, so the limit is set below it (about 13,000
			// levels with the default 2MB).
			continue
		}
		if (pgErr == nil) != (checkErr == nil) {
			t.Errorf("%s: jsonb says %v, CheckJSON says %v", short(in), pgErr, checkErr)
		}
	}
}

func short(s string) string {
	if len(s) > 60 {
		return fmt.Sprintf("%q… (%d bytes)", s[:60], len(s))
	}
	return fmt.Sprintf("%q", s)
}
