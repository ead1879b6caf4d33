package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
)

// The streaming benchmarks compare, in one run and in turn, a streamed run on the memory store, the same run on
// Postgres with durable commits (synchronous_commit=on) over a pool of pgxpool's default size, and a plain pgx
// program that reads the same model's stream and stores the answer with one INSERT. See
// docs/performance-streaming.md.

const (
	// A streamed answer of the concurrency benchmarks: 100 tokens at 50 a second, two seconds.
	streamTokens   = 100
	streamInterval = 20 * time.Millisecond
	// streamRounds is how many runs each stream makes, one after the other, in its own conversation.
	streamRounds = 3
	// warmUp is the input that gets a one-word answer without stamps: the run that tells a watcher is following.
	warmUp = "warm up"
)

// benchModel answers warmUp with one word at once and anything else with the paced, stamped answer.
type benchModel struct{ streambench.Paced }

func (m benchModel) quick(msgs []chat.Message) bool {
	return len(msgs) > 0 && msgs[len(msgs)-1].Text() == warmUp
}

func (m benchModel) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	if m.quick(msgs) {
		return chattest.NewScript(chattest.Text("ready")).Stream(ctx, msgs, opts)
	}
	return m.Paced.Stream(ctx, msgs, opts)
}

func (m benchModel) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	if m.quick(msgs) {
		return chattest.Text("ready"), nil
	}
	return m.Paced.Respond(ctx, msgs, opts)
}

// streamSide is one of the compared stores: how it runs, who watches, and what was measured.
type streamSide struct {
	name string
	// run makes one run of the conversation, records its duration and its end after the model's last update.
	run func(ctx context.Context, conversationID, text string) error
	// watcher, when set, follows every conversation: a host on another store instance, or on the same memory store.
	watcher *agent.Host
	// start, when set, runs the warm-up run that tells a watcher is following.
	warm func(ctx context.Context, conversationID string) error

	// counters count what the side sends Postgres; counts are their totals over the measured runs, warm-ups left
	// out.
	counters []*streambench.Counter
	counts   []streambench.Counts
	// pool, when set, is the side's pool: its waits for a connection are measured over the measured runs.
	pool                 *pgxpool.Pool
	acquires, emptyWaits int64
	acquireWait          time.Duration
	// cpu is the process's CPU time (user and system) over the measured runs of this side, and serverCPU that of
	// the Postgres server processes of servers' connections.
	cpu, serverCPU time.Duration
	servers        []*streambench.Counter
	serverCPUOK    bool

	dur, end, delay streambench.Sample
	runs, errs      atomic.Int64
	seen, watchErrs atomic.Int64
	notReady        atomic.Int64
	firstErr        atomic.Pointer[error]
}

func (s *streamSide) fail(err error) {
	s.errs.Add(1)
	s.firstErr.CompareAndSwap(nil, &err)
}

// hostSide runs h's streamed runs, as a service would: RunStream in the tenant's conversation.
func hostSide(name string, h *agent.Host) *streamSide {
	s := &streamSide{name: name}
	s.run = func(ctx context.Context, conversationID, text string) error {
		probe := &streambench.Probe{}
		start := time.Now()
		for _, err := range h.RunStream(streambench.WithProbe(ctx, probe), agent.SettingsID(tenant), agent.Conversation(conversationID), agent.Text(text)) {
			if err != nil {
				return err
			}
		}
		if text != warmUp {
			s.dur.Add(time.Since(start))
			if d, ok := probe.Since(); ok {
				s.end.Add(d)
			}
			s.runs.Add(1)
		}
		return nil
	}
	s.warm = func(ctx context.Context, conversationID string) error { return s.run(ctx, conversationID, warmUp) }
	return s
}

// plainSide reads the model's stream and stores the answer with one INSERT on pg's pool: the floor a program
// without the library would have.
func plainSide(pg *streambench.PG, model chat.Client) *streamSide {
	s := &streamSide{name: "plain"}
	var seq atomic.Int64
	s.run = func(ctx context.Context, conversationID, text string) error {
		probe := &streambench.Probe{}
		start := time.Now()
		resp, err := chat.Collect(model.Stream(streambench.WithProbe(ctx, probe), []chat.Message{chat.UserText(text)}, nil))
		if err != nil {
			return err
		}
		data, err := json.Marshal(resp.Messages[0])
		if err != nil {
			return err
		}
		if err := pg.InsertMessage(ctx, tenant, conversationID, seq.Add(1), "run", data); err != nil {
			return err
		}
		s.dur.Add(time.Since(start))
		if d, ok := probe.Since(); ok {
			s.end.Add(d)
		}
		s.runs.Add(1)
		return nil
	}
	return s
}

// follow watches the conversation through s.watcher until ctx ends, recording each stamp's delay; ready is closed
// at the first update it gets.
func (s *streamSide) follow(ctx context.Context, conversationID string, ready chan<- struct{}) {
	var once sync.Once
	var delays []time.Duration
	for ctx.Err() == nil {
		for u, err := range s.watcher.WatchAfter(ctx, tenant, conversationID, storage.WatchFromNow) {
			if err != nil {
				if ctx.Err() == nil {
					s.watchErrs.Add(1)
					time.Sleep(10 * time.Millisecond)
				}
				break
			}
			once.Do(func() { close(ready) })
			for _, p := range u.Parts {
				if t, ok := p.(chat.Text); ok {
					delays = streambench.Delays(delays[:0], t.Text)
					s.delay.Add(delays...)
					s.seen.Add(int64(len(delays)))
				}
			}
		}
	}
}

// processCPU returns the CPU time, user and system, the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU returns the Postgres server CPU time of the counters' connections; ok is false if it cannot be read.
func serverCPU(cs []*streambench.Counter) (time.Duration, bool) {
	var total time.Duration
	for _, c := range cs {
		d, ok := c.ServerCPU()
		if !ok {
			return 0, false
		}
		total += d
	}
	return total, true
}

// fleet runs n streams on s: each its own conversation (and its watcher), streamRounds runs one after the other;
// the streams start spread over one run's length, so that n run at once in the middle. It returns when every run
// has ended and every watcher has seen every stamp (or ten seconds later).
func (s *streamSide) fleet(b *testing.B, prefix string, n int, interval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var watchers sync.WaitGroup
	defer watchers.Wait()
	defer cancel()
	seenBefore := s.seen.Load()

	ids := make([]string, n)
	for w := range ids {
		ids[w] = fmt.Sprintf("%s-%s-%d", prefix, s.name, w)
	}
	if s.watcher != nil {
		// Each watcher is following once it has seen a warm-up run of its conversation.
		var ready sync.WaitGroup
		for _, id := range ids {
			seen := make(chan struct{})
			watchers.Go(func() { s.follow(ctx, id, seen) })
			ready.Go(func() {
				for range 40 {
					if err := s.warm(ctx, id); err != nil {
						s.fail(err)
						return
					}
					select {
					case <-seen:
						return
					case <-time.After(250 * time.Millisecond):
					}
				}
				s.notReady.Add(1)
			})
		}
		ready.Wait()
	}

	before := make([]streambench.Counts, len(s.counters))
	for i, c := range s.counters {
		before[i] = c.Counts()
	}
	var stat0 *pgxpool.Stat
	if s.pool != nil {
		stat0 = s.pool.Stat()
	}
	cpu0 := processCPU(b)
	server0, serverOK := serverCPU(s.servers)
	defer func() {
		s.cpu += processCPU(b) - cpu0
		if server1, ok := serverCPU(s.servers); ok && serverOK && len(s.servers) > 0 {
			s.serverCPU += server1 - server0
			s.serverCPUOK = true
		}
		s.counts = slices.Grow(s.counts, len(s.counters))[:len(s.counters)]
		for i, c := range s.counters {
			s.counts[i] = s.counts[i].Add(c.Counts().Sub(before[i]))
		}
		if stat0 != nil {
			st := s.pool.Stat()
			s.acquires += st.AcquireCount() - stat0.AcquireCount()
			s.emptyWaits += st.EmptyAcquireCount() - stat0.EmptyAcquireCount()
			s.acquireWait += st.EmptyAcquireWaitTime() - stat0.EmptyAcquireWaitTime()
		}
	}()

	stagger := streamTokens * interval / time.Duration(n)
	var runs sync.WaitGroup
	// The runs' goroutines, and those they start, carry the side's name in a CPU profile: go tool pprof
	// -tagfocus side=pg shows the Postgres side's.
	labels := pprof.WithLabels(ctx, pprof.Labels("side", s.name))
	for w, id := range ids {
		runs.Go(func() {
			pprof.SetGoroutineLabels(labels)
			time.Sleep(time.Duration(w) * stagger)
			for range streamRounds {
				if err := s.run(ctx, id, "go on"); err != nil {
					s.fail(err)
					return
				}
			}
		})
	}
	runs.Wait()
	if s.watcher != nil {
		want := seenBefore + int64(n*streamRounds*streamTokens)
		deadline := time.Now().Add(10 * time.Second)
		for s.seen.Load() < want && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// report reports s's figures with its name as prefix.
func (s *streamSide) report(b *testing.B, n int) {
	b.ReportMetric(s.dur.Ms(0.5), s.name+"-p50-ms")
	b.ReportMetric(s.dur.Ms(0.99), s.name+"-p99-ms")
	b.ReportMetric(s.end.Ms(0.5), s.name+"-end-p50-ms")
	b.ReportMetric(s.end.Ms(0.99), s.name+"-end-p99-ms")
	b.ReportMetric(float64(s.errs.Load()), s.name+"-errors")
	if runs := s.runs.Load(); runs > 0 {
		b.ReportMetric(float64(s.cpu.Microseconds())/1000/float64(runs), s.name+"-cpu-ms/run")
		if s.serverCPUOK {
			b.ReportMetric(float64(s.serverCPU.Microseconds())/1000/float64(runs), s.name+"-server-cpu-ms/run")
		}
	}
	if s.acquires > 0 {
		// The pool's waits for a connection: the share of acquisitions that found none free, and what they
		// waited, per run.
		b.ReportMetric(100*float64(s.emptyWaits)/float64(s.acquires), s.name+"-acquire-waited-%")
		b.ReportMetric(float64(s.acquireWait.Microseconds())/1000/float64(max(s.runs.Load(), 1)), s.name+"-acquire-wait-ms/run")
	}
	if s.watcher != nil {
		b.ReportMetric(s.delay.Ms(0.5), s.name+"-delay-p50-ms")
		b.ReportMetric(s.delay.Ms(0.99), s.name+"-delay-p99-ms")
		want := float64(s.runs.Load() * streamTokens)
		b.ReportMetric(100*float64(s.seen.Load())/max(want, 1), s.name+"-seen-%")
		b.ReportMetric(float64(s.watchErrs.Load()), s.name+"-watch-errors")
		if k := s.notReady.Load(); k > 0 {
			b.Logf("%s: %d of %d watchers saw no warm-up run", s.name, k, n)
		}
	}
	if p := s.firstErr.Load(); p != nil {
		b.Logf("%s: %d runs failed; the first: %v", s.name, s.errs.Load(), *p)
	}
}

// benchPoolSize is the pools' size the streams benchmarks use: TYPESHIFT_BENCH_POOL, or pgxpool's default (0).
func benchPoolSize(b *testing.B) int32 {
	v := os.Getenv("TYPESHIFT_BENCH_POOL")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("TYPESHIFT_BENCH_POOL=%q: want a number of connections", v)
	}
	return int32(n)
}

// benchInterval is the streams' interval between tokens: TYPESHIFT_BENCH_TOKENS_PER_S tokens a second, or 50.
func benchInterval(b *testing.B) time.Duration {
	v := os.Getenv("TYPESHIFT_BENCH_TOKENS_PER_S")
	if v == "" {
		return streamInterval
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 1000 {
		b.Fatalf("TYPESHIFT_BENCH_TOKENS_PER_S=%q: want a number of tokens a second, 1 to 1,000", v)
	}
	return time.Second / time.Duration(n)
}

// benchStreams runs n paced streams on each side in turn, iteration after iteration, and reports each side's run
// durations, the run's end after the model's last update, and the ratio of Postgres's to the memory store's.
func benchStreams(b *testing.B, n int, watched bool) {
	interval := benchInterval(b)
	model := benchModel{streambench.Paced{Tokens: streamTokens, Interval: interval}}
	pg := streambench.OpenPostgres(b, &streambench.PGOptions{MaxConns: benchPoolSize(b)})
	mem := memory.New()
	memSide := hostSide("mem", host(model, agent.Config{Store: mem}))
	pgSide := hostSide("pg", host(model, agent.Config{Store: pg.Store}))
	sides := []*streamSide{memSide, pgSide}
	var watchCounter *streambench.Counter
	if watched {
		var other *postgres.Store
		other, watchCounter = pg.Another()
		memSide.watcher = host(model, agent.Config{Store: mem})
		pgSide.watcher = host(model, agent.Config{Store: other})
	} else {
		plain := plainSide(pg, model)
		plain.servers = []*streambench.Counter{pg.Counter}
		sides = append(sides, plain)
	}
	pgSide.counters = []*streambench.Counter{pg.Counter}
	pgSide.pool = pg.Pool
	pgSide.servers = pgSide.counters
	if watchCounter != nil {
		pgSide.counters = append(pgSide.counters, watchCounter)
	}
	for i := 0; b.Loop(); i++ {
		for k := range sides {
			sides[(i+k)%len(sides)].fleet(b, fmt.Sprintf("i%d", i), n, interval)
		}
	}
	for _, s := range sides {
		s.report(b, n)
	}
	b.ReportMetric(pgSide.dur.Ms(0.5)/memSide.dur.Ms(0.5), "pg/mem-p50")
	b.ReportMetric(pgSide.dur.Ms(0.99)/memSide.dur.Ms(0.99), "pg/mem-p99")
	if runs := pgSide.runs.Load(); runs > 0 {
		b.ReportMetric(float64(pgSide.counts[0].Tx)/float64(runs), "pg-tx/run")
		b.ReportMetric(float64(pgSide.counts[0].Deadlocks), "pg-deadlocks")
		if watched {
			// The watchers' instance: its reads of the events, its LISTEN connection's statements.
			b.ReportMetric(float64(pgSide.counts[1].Tx)/float64(runs), "pg-watcher-tx/run")
		}
	}
}

// BenchmarkStreams runs N streams at once at 50 tokens a second, 100 tokens a run, three runs each, nobody
// watching, on the memory store, on Postgres and as plain pgx, in turn. Run it one iteration at a time:
//
//	go test ./agent -run '^$' -bench 'BenchmarkStreams/streams=100$' -benchtime 1x
//
// The sizes between 300 and 1,000 show where the machine runs out: each is a number of runs a second (N / 2).
func BenchmarkStreams(b *testing.B) {
	for _, n := range []int{100, 300, 500, 700, 1000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) { benchStreams(b, n, false) })
	}
}

// BenchmarkWatchedStreams is BenchmarkStreams with a watcher per stream: on Postgres on a second store (another
// pool, another instance), on the memory store through a second host over the same store. It reports the
// watcher's delay from the model's delta to the update that carries it.
func BenchmarkWatchedStreams(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) { benchStreams(b, n, true) })
	}
}

// BenchmarkStreamTx makes one unpaced streamed run of 500 or 5,000 text deltas at a time, nobody watching, in a new
// conversation each, in turn on the memory store, on Postgres and as plain pgx (the stream read, the answer stored
// with one INSERT), and reports the Postgres transactions and statements each run sends, with each side's time.
func BenchmarkStreamTx(b *testing.B) {
	for _, deltas := range []int{500, 5000} {
		b.Run(fmt.Sprintf("deltas=%d", deltas), func(b *testing.B) {
			model := streambench.Paced{Tokens: deltas}
			pg := streambench.OpenPostgres(b, nil)
			sides := []*streamSide{
				hostSide("mem", host(model, agent.Config{Store: memory.New()})),
				hostSide("pg", host(model, agent.Config{Store: pg.Store})),
				plainSide(pg, model),
			}
			counts := map[*streamSide]streambench.Counts{}
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				for k := range sides {
					s := sides[(i+k)%len(sides)]
					c0 := pg.Counter.Counts()
					if err := s.run(ctx, fmt.Sprintf("tx-%s-%d", s.name, i), "go on"); err != nil {
						b.Fatal(s.name, err)
					}
					counts[s] = counts[s].Add(pg.Counter.Counts().Sub(c0))
				}
			}
			for _, s := range sides {
				b.ReportMetric(float64(s.dur.Quantile(0.5).Microseconds())/1000, s.name+"-ms/run")
			}
			pgSide, plain := sides[1], sides[2]
			runs := float64(pgSide.runs.Load())
			b.ReportMetric(float64(counts[pgSide].Tx)/runs, "tx/run")
			b.ReportMetric(float64(counts[pgSide].Stmts)/runs, "stmts/run")
			b.ReportMetric(float64(counts[plain].Tx)/float64(plain.runs.Load()), "plain-tx/run")
		})
	}
}
