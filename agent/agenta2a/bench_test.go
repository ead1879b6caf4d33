package agenta2a_test

import (
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/internal/streambench"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// turnRequests are the two requests of one turn that starts a conversation: the native JSON API's and A2A's
// message/send, each answered with the whole result as JSON.
func turnRequests(e *env) (native, a2a func() *http.Request) {
	native = func() *http.Request {
		r, _ := http.NewRequest("POST", e.srv.URL+"/api/conversations", strings.NewReader(`{"text":"hello"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json")
		r.Header.Set("Authorization", "Bearer "+tokenA)
		return r
	}
	a2a = func() *http.Request {
		r, _ := http.NewRequest("POST", e.endpoint(), strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+tokenA)
		return r
	}
	return native, a2a
}

// do sends a request and reads its answer whole.
func do(tb testing.TB, c *http.Client, r *http.Request) string {
	resp, err := c.Do(r)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode >= 300 {
		tb.Fatalf("%s %s: %d %s %v", r.Method, r.URL, resp.StatusCode, b, err)
	}
	return string(b)
}

// BenchmarkTurn times one turn that starts a conversation over loopback HTTP, the native JSON API's and A2A's
// message/send, interleaved within each iteration so that the machine's load falls on both alike; it reports the
// median of each and their ratio. The model answers at once, so the figures are the layers' own cost: the
// authentication, the decoding, the run (claim, load, store) and the encoding.
func BenchmarkTurn(b *testing.B) {
	for _, c := range []struct {
		name  string
		store func(testing.TB) storage.Store
	}{
		{"memory", func(testing.TB) storage.Store { return memory.New() }},
		{"postgres", func(tb testing.TB) storage.Store { return streambench.OpenPostgres(tb, nil).Store }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b, c.store(b), nil)
			client := e.srv.Client()
			native, a2a := turnRequests(e)
			for range 5 { // warm both paths: connections, pools, the store's prepared statements
				do(b, client, native())
				do(b, client, a2a())
			}
			var nt, at []time.Duration
			for i := 0; b.Loop(); i++ {
				first, second := native, a2a
				if i%2 == 1 {
					first, second = a2a, native
				}
				t0 := time.Now()
				do(b, client, first())
				t1 := time.Now()
				do(b, client, second())
				t2 := time.Now()
				if i%2 == 0 {
					nt, at = append(nt, t1.Sub(t0)), append(at, t2.Sub(t1))
				} else {
					at, nt = append(at, t1.Sub(t0)), append(nt, t2.Sub(t1))
				}
			}
			n, a := median(nt), median(at)
			b.ReportMetric(float64(n.Microseconds()), "µs/native-turn")
			b.ReportMetric(float64(a.Microseconds()), "µs/a2a-turn")
			b.ReportMetric(float64(a)/float64(n), "a2a/native")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// TestTurnTransactions counts the Postgres transactions of one turn that starts a conversation, over the native
// JSON API and over A2A's message/send: A2A adds none. Everything the process sends on the store's pool is
// counted, until the store has been quiet for 200 ms after the answer.
func TestTurnTransactions(t *testing.T) {
	is := is.New(t)
	pg := streambench.OpenPostgres(t, &streambench.PGOptions{AsyncCommit: true})
	e := newEnv(t, pg.Store, nil)
	client := e.srv.Client()
	native, a2a := turnRequests(e)
	do(t, client, native()) // the tenant's settings and the pool's connections, once
	count := func(r *http.Request) (streambench.Counts, string) {
		before := pg.Counter.Settle(200*time.Millisecond, 5*time.Second)
		body := do(t, client, r)
		return pg.Counter.Settle(200*time.Millisecond, 5*time.Second).Sub(before), body
	}
	n, nb := count(native())
	a, ab := count(a2a())
	t.Logf("native: %d transactions, %d statements; a2a: %d transactions, %d statements", n.Tx, n.Stmts, a.Tx, a.Stmts)
	is.True(strings.Contains(nb, "You said: hello"))
	is.True(strings.Contains(ab, `"state":"completed"`))
	is.Equal(a.Tx, n.Tx)
	is.Equal(a.Stmts, n.Stmts)
}
