package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// The benchmarks compare the store with plain pgx on a table of the same
// shape (plain_entries: same columns, primary key and defaults, but no row-
// level security, no foreign key, no lease). The store's numbers include
// what plain pgx skips: the tenant setting, the lease check and numbering,
// validation of the JSON. See docs/performance-storage.md.

// stepData is the JSON of a typical step: a response with one tool call.
var stepData = json.RawMessage(`{"role":"assistant","parts":[{"type":"text","text":"Let me look that up."},` +
	`{"type":"tool_call","id":"call_8f2a","name":"search_tickets","arguments":{"query":"refund","limit":20}}],` +
	`"usage":{"input_tokens":1234,"output_tokens":56}}`)

const plainTable = `CREATE TABLE plain_entries (LIKE conversation_entries INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`

const plainInsert = `INSERT INTO plain_entries
	(settings_id, conversation_id, seq, type, run_id, agent, author, created_at, schema_version, data)
VALUES ($1, $2, $3, $4, $5, $6, $7, now(), 1, $8::jsonb)`

const plainSelect = `SELECT seq, type, run_id, agent, author, created_at, schema_version, data FROM plain_entries
WHERE settings_id = $1 AND conversation_id = $2 ORDER BY seq`

func benchStore(b *testing.B) (*postgres.Store, *pgxpool.Pool) {
	b.Helper()
	s, pool, _ := newStore(b)
	if _, err := pool.Exec(context.Background(), plainTable); err != nil {
		b.Fatal(err)
	}
	return s, pool
}

// BenchmarkAppendStep appends one entry per iteration under a claim: what a
// run does for each step.
func BenchmarkAppendStep(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	c, err := s.Claim(ctx, "tenant", "conv", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	e := storage.Entry{Type: storage.EntryResponse, RunID: "run-1", Agent: "support", Author: "assistant", Data: stepData}
	for b.Loop() {
		if _, err := s.Append(ctx, c, e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlainInsert inserts the same row with one pgx Exec.
func BenchmarkPlainInsert(b *testing.B) {
	_, pool := benchStore(b)
	ctx := context.Background()
	data := string(stepData)
	var seq int64
	for b.Loop() {
		seq++
		if _, err := pool.Exec(ctx, plainInsert, "tenant", "conv", seq, "response", "run-1", "support", "assistant", data); err != nil {
			b.Fatal(err)
		}
	}
}

// fill stores n entries in the store's conversation and in plain_entries.
func fill(b *testing.B, s *postgres.Store, pool *pgxpool.Pool, n int) {
	b.Helper()
	ctx := context.Background()
	c, err := s.Claim(ctx, "tenant", "conv", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]storage.Entry, 100)
	for i := range batch {
		batch[i] = storage.Entry{Type: storage.EntryResponse, RunID: "run-1", Agent: "support", Author: "assistant", Data: stepData}
	}
	for range n / len(batch) {
		if _, err := s.Append(ctx, c, batch...); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `BEGIN;
		SELECT set_config('typeshift.settings_id', 'tenant', true);
		INSERT INTO plain_entries SELECT * FROM conversation_entries;
		COMMIT; ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLoad1000 loads a conversation of 1,000 entries.
func BenchmarkLoad1000(b *testing.B) {
	s, pool := benchStore(b)
	fill(b, s, pool, 1000)
	ctx := context.Background()
	for b.Loop() {
		es, err := s.Load(ctx, "tenant", "conv")
		if err != nil || len(es) != 1000 {
			b.Fatal(len(es), err)
		}
	}
}

// BenchmarkPlainSelect1000 reads the same 1,000 rows with one pgx Query,
// scanning them into the same entries.
func BenchmarkPlainSelect1000(b *testing.B) {
	s, pool := benchStore(b)
	fill(b, s, pool, 1000)
	for b.Loop() {
		if n := plainSelectEntries(b, pool); n != 1000 {
			b.Fatal(n)
		}
	}
}

// The paired benchmarks do both operations in each iteration, alternating
// which goes first, and report each one's mean time and their ratio. On a
// shared machine, whose load changes from second to second, the ratio is
// steadier than that of two benchmarks run one after the other.

// BenchmarkPairedAppendVsInsert reports append-ns/op, insert-ns/op and
// append/insert (the time ratio; throughput ratio is its inverse).
func BenchmarkPairedAppendVsInsert(b *testing.B) {
	s, pool := benchStore(b)
	ctx := context.Background()
	c, err := s.Claim(ctx, "tenant", "conv", "bench", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	e := storage.Entry{Type: storage.EntryResponse, RunID: "run-1", Agent: "support", Author: "assistant", Data: stepData}
	data := string(stepData)
	var seq int64
	var tApp, tIns time.Duration
	appendStep := func() {
		t0 := time.Now()
		if _, err := s.Append(ctx, c, e); err != nil {
			b.Fatal(err)
		}
		tApp += time.Since(t0)
	}
	insert := func() {
		seq++
		t0 := time.Now()
		if _, err := pool.Exec(ctx, plainInsert, "tenant", "conv", seq, "response", "run-1", "support", "assistant", data); err != nil {
			b.Fatal(err)
		}
		tIns += time.Since(t0)
	}
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			appendStep()
			insert()
		} else {
			insert()
			appendStep()
		}
		n++
	}
	b.ReportMetric(float64(tApp.Nanoseconds())/float64(n), "append-ns/op")
	b.ReportMetric(float64(tIns.Nanoseconds())/float64(n), "insert-ns/op")
	b.ReportMetric(float64(tApp)/float64(tIns), "append/insert")
}

// BenchmarkPairedLoadVsSelect reports load-ns/op, select-ns/op and
// load/select for a conversation of 1,000 entries.
func BenchmarkPairedLoadVsSelect(b *testing.B) {
	s, pool := benchStore(b)
	fill(b, s, pool, 1000)
	ctx := context.Background()
	var tLoad, tSel time.Duration
	load := func() {
		t0 := time.Now()
		es, err := s.Load(ctx, "tenant", "conv")
		if err != nil || len(es) != 1000 {
			b.Fatal(len(es), err)
		}
		tLoad += time.Since(t0)
	}
	sel := func() {
		t0 := time.Now()
		if n := plainSelectEntries(b, pool); n != 1000 {
			b.Fatal(n)
		}
		tSel += time.Since(t0)
	}
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			load()
			sel()
		} else {
			sel()
			load()
		}
		n++
	}
	b.ReportMetric(float64(tLoad.Nanoseconds())/float64(n), "load-ns/op")
	b.ReportMetric(float64(tSel.Nanoseconds())/float64(n), "select-ns/op")
	b.ReportMetric(float64(tLoad)/float64(tSel), "load/select")
}

// plainSelectEntries reads the plain rows into entries, as Load would.
func plainSelectEntries(b *testing.B, pool *pgxpool.Pool) int {
	rows, err := pool.Query(context.Background(), plainSelect, "tenant", "conv")
	if err != nil {
		b.Fatal(err)
	}
	var out []storage.Entry
	var e storage.Entry
	var typ string
	var version int16
	var data []byte
	for rows.Next() {
		if err := rows.Scan(&e.Seq, &typ, &e.RunID, &e.Agent, &e.Author, &e.Time, &version, &data); err != nil {
			b.Fatal(err)
		}
		e.Type, e.Data = storage.EntryType(typ), data
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return len(out)
}
