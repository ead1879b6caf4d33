package agent_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// The soak runs only when asked, for as long as TYPESHIFT_SOAK says (a Go duration such as 15m):
//
//	TYPESHIFT_SOAK=15m go test ./agent -run TestStreamSoak -v -timeout 40m
//
// TYPESHIFT_SOAK_STREAMS sets how many streams run at once on Postgres (100 unless set),
// TYPESHIFT_SOAK_MEMORY_STREAMS on the memory store (1,000), TYPESHIFT_SOAK_INTERVAL the length of a reported
// interval (1m), and TYPESHIFT_SOAK_STORE picks one store ("postgres" or "memory"; both unless set).
// See docs/performance-streaming.md.
const (
	envSoak = "TYPESHIFT_SOAK"
	// soakRunsPerConversation is how many runs a Postgres stream makes in one conversation before the next.
	soakRunsPerConversation = 10
	// soakConversations is how many conversations the memory store's soak goes through, one run each.
	soakConversations = 100_000
)

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a duration such as 15m", name, v)
	}
	return d
}

// soakInterval is what one reported interval of a soak saw.
type soakInterval struct {
	runs, errs       atomic.Int64
	dur              streambench.Sample
	deadlocks        int64 // 40P01 answers so far, both instances
	deadRows         int64 // n_dead_tup of the events' tables at the interval's end
	heapMB           float64
	conversations    int64 // conversations begun so far
	throughputPerSec float64
}

// soak runs streams until the deadline and records each run in the interval it started in.
type soak struct {
	t         *testing.T
	start     time.Time
	interval  time.Duration
	intervals []*soakInterval
}

func newSoak(t *testing.T, length, interval time.Duration) *soak {
	s := &soak{t: t, start: time.Now(), interval: interval}
	for range int(length / interval) {
		s.intervals = append(s.intervals, &soakInterval{})
	}
	return s
}

// at returns the interval of moment m, nil past the last.
func (s *soak) at(m time.Time) *soakInterval {
	i := int(m.Sub(s.start) / s.interval)
	if i >= len(s.intervals) {
		return nil
	}
	return s.intervals[i]
}

// sample calls f at the end of each interval with it, until the last.
func (s *soak) sample(f func(*soakInterval)) {
	for i, iv := range s.intervals {
		time.Sleep(time.Until(s.start.Add(time.Duration(i+1) * s.interval)))
		f(iv)
		iv.throughputPerSec = float64(iv.runs.Load()) / s.interval.Seconds()
	}
}

// log writes the intervals as a table.
func (s *soak) log(name string) {
	s.t.Logf("%s: interval  runs/s  p50-ms  p99-ms  errors  deadlocks  dead-rows  heap-MB  conversations", name)
	for i, iv := range s.intervals {
		s.t.Logf("%s: %8d  %6.1f  %6.0f  %6.0f  %6d  %9d  %9d  %7.1f  %13d", name, i+1, iv.throughputPerSec,
			iv.dur.Ms(0.5), iv.dur.Ms(0.99), iv.errs.Load(), iv.deadlocks, iv.deadRows, iv.heapMB, iv.conversations)
	}
}

// checkSteady fails the test unless the last interval's throughput and p99 are within 10% of the first's.
func (s *soak) checkSteady() {
	first, last := s.intervals[0], s.intervals[len(s.intervals)-1]
	if r := last.throughputPerSec / first.throughputPerSec; r < 0.9 {
		s.t.Errorf("throughput in the last interval is %.2f× the first's (want ≥ 0.9)", r)
	}
	if r := last.dur.Ms(0.99) / first.dur.Ms(0.99); r > 1.1 {
		s.t.Errorf("p99 run time in the last interval is %.2f× the first's (want ≤ 1.1)", r)
	}
}

// heapMB collects garbage and returns the heap in use.
func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse) / (1 << 20)
}

// TestStreamSoak streams without pause for TYPESHIFT_SOAK: on Postgres (durable commits, events kept one minute),
// streams of 100 tokens at 50 a second, ten runs a conversation, every other conversation followed by a watcher on
// a second instance; on the memory store, 100,000 conversations of one run each, every other followed by a watcher
// on a second host. Each interval reports the runs a second, their p50 and p99, the deadlocks (SQLSTATE 40P01)
// counted on every connection, the dead rows of the events' tables, and the process's heap. It fails when the
// last interval's throughput or p99 is more than 10% off the first's, when any deadlock happened, or when the dead
// rows grow past what they were once events began to expire.
func TestStreamSoak(t *testing.T) {
	if os.Getenv(envSoak) == "" {
		t.Skip(envSoak + " is not set; to soak the streaming path: " + envSoak + "=15m go test ./agent -run TestStreamSoak -v -timeout 40m")
	}
	length := envDuration(t, envSoak, 15*time.Minute)
	interval := envDuration(t, "TYPESHIFT_SOAK_INTERVAL", time.Minute)
	if length < 2*interval {
		t.Fatalf("%s=%s: want at least two intervals of %s", envSoak, length, interval)
	}
	which := os.Getenv("TYPESHIFT_SOAK_STORE")
	if which == "" || which == "postgres" {
		t.Run("postgres", func(t *testing.T) {
			soakPostgres(t, length, interval, envInt(t, "TYPESHIFT_SOAK_STREAMS", 100))
		})
	}
	if which == "" || which == "memory" {
		t.Run("memory", func(t *testing.T) {
			soakMemory(t, length, interval, envInt(t, "TYPESHIFT_SOAK_MEMORY_STREAMS", 1000))
		})
	}
}

// watchAll follows a conversation until ctx ends and counts the text updates it gets.
func watchAll(ctx context.Context, h *agent.Host, conversationID string, updates *atomic.Int64) {
	for ctx.Err() == nil {
		for u, err := range h.WatchAfter(ctx, tenant, conversationID, storage.WatchFromNow) {
			if err != nil {
				if ctx.Err() == nil {
					time.Sleep(10 * time.Millisecond)
				}
				break
			}
			for _, p := range u.Parts {
				if _, ok := p.(chat.Text); ok {
					updates.Add(1)
				}
			}
		}
	}
}

func soakPostgres(t *testing.T, length, interval time.Duration, streams int) {
	pg := streambench.OpenPostgres(t, &streambench.PGOptions{EventRetention: time.Minute})
	other, otherCounter := pg.Another()
	model := streambench.Paced{Tokens: streamTokens, Interval: streamInterval}
	h := host(model, agent.Config{Store: pg.Store})
	watcher := host(model, agent.Config{Store: other})
	s := newSoak(t, length, interval)
	deadline := s.start.Add(time.Duration(len(s.intervals)) * interval)
	var conversations, watched atomic.Int64
	var firstErr atomic.Pointer[error]

	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range streams {
		wg.Go(func() {
			time.Sleep(time.Duration(w) * streamInterval * streamTokens / time.Duration(streams))
			for c := 0; time.Now().Before(deadline); c++ {
				id := fmt.Sprintf("soak-%d-%d", w, c)
				conversations.Add(1)
				wctx, stop := context.WithCancel(ctx)
				var following sync.WaitGroup
				if w%2 == 0 {
					following.Go(func() { watchAll(wctx, watcher, id, &watched) })
				}
				for range soakRunsPerConversation {
					begun := time.Now()
					iv := s.at(begun)
					if iv == nil {
						break
					}
					var err error
					for _, e := range h.RunStream(ctx, agent.SettingsID(tenant), agent.Conversation(id), agent.Text("go on")) {
						if e != nil {
							err = e
						}
					}
					if err != nil {
						iv.errs.Add(1)
						firstErr.CompareAndSwap(nil, &err)
						continue
					}
					iv.runs.Add(1)
					iv.dur.Add(time.Since(begun))
				}
				stop()
				following.Wait()
			}
		})
	}
	s.sample(func(iv *soakInterval) {
		iv.deadlocks = pg.Counter.Counts().Deadlocks + otherCounter.Counts().Deadlocks
		n, err := pg.DeadRows(ctx, "conversation_event")
		if err != nil {
			t.Errorf("reading the dead rows: %v", err)
		}
		iv.deadRows, iv.heapMB, iv.conversations = n, heapMB(), conversations.Load()
	})
	wg.Wait()
	s.log("postgres")
	t.Logf("postgres: %d text updates reached the watchers", watched.Load())
	if p := firstErr.Load(); p != nil {
		t.Errorf("runs failed; the first: %v", *p)
	}
	if d := s.intervals[len(s.intervals)-1].deadlocks; d > 0 {
		t.Errorf("%d deadlocks (SQLSTATE 40P01)", d)
	}
	s.checkSteady()
	// Events begin to expire after the retention; from then on the dead rows should stay near what they were.
	var bound int64
	expiring := int(time.Minute/interval) + 1
	for _, iv := range s.intervals[min(expiring, len(s.intervals)-1) : len(s.intervals)/2+1] {
		bound = max(bound, iv.deadRows)
	}
	if last := s.intervals[len(s.intervals)-1].deadRows; last > bound*3/2+1000 {
		t.Errorf("%d dead rows in the events' tables at the end, %d at most in the first half once events expired", last, bound)
	}
}

func soakMemory(t *testing.T, length, interval time.Duration, streams int) {
	store := memory.New()
	model := streambench.Paced{Tokens: 20, Interval: streamInterval}
	h := host(model, agent.Config{Store: store})
	watcher := host(model, agent.Config{Store: store})
	s := newSoak(t, length, interval)
	deadline := s.start.Add(time.Duration(len(s.intervals)) * interval)
	before := heapMB()
	var conversations, watched atomic.Int64
	var firstErr atomic.Pointer[error]

	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range streams {
		wg.Go(func() {
			time.Sleep(time.Duration(w) * streamInterval * 20 / time.Duration(streams))
			for time.Now().Before(deadline) {
				c := conversations.Add(1)
				if c > soakConversations {
					return
				}
				id := fmt.Sprintf("soak-%d", c)
				begun := time.Now()
				iv := s.at(begun)
				if iv == nil {
					return
				}
				wctx, stop := context.WithCancel(ctx)
				var following sync.WaitGroup
				if c%2 == 0 {
					following.Go(func() { watchAll(wctx, watcher, id, &watched) })
				}
				var err error
				for _, e := range h.RunStream(ctx, agent.SettingsID(tenant), agent.Conversation(id), agent.Text("go on")) {
					if e != nil {
						err = e
					}
				}
				stop()
				following.Wait()
				if err != nil {
					iv.errs.Add(1)
					firstErr.CompareAndSwap(nil, &err)
					continue
				}
				iv.runs.Add(1)
				iv.dur.Add(time.Since(begun))
			}
		})
	}
	s.sample(func(iv *soakInterval) {
		iv.heapMB, iv.conversations = heapMB()-before, min(conversations.Load(), soakConversations)
	})
	wg.Wait()
	s.log("memory")
	last := s.intervals[len(s.intervals)-1]
	// What a conversation holds as data, for comparison with the heap it costs: the rest is the store's bookkeeping
	// and whatever it keeps for watchers.
	entries, err := store.LoadAll(ctx, tenant, "soak-1")
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, e := range entries {
		stored += len(e.Data)
	}
	t.Logf("memory: %d text updates reached the watchers; %.1f KB of heap a conversation at the end, of which its entries' data are %.1f KB",
		watched.Load(), last.heapMB*1024/float64(max(last.conversations, 1)), float64(stored)/1024)
	if p := firstErr.Load(); p != nil {
		t.Errorf("runs failed; the first: %v", *p)
	}
	if last.conversations < soakConversations {
		t.Logf("memory: only %d of %d conversations in %s", last.conversations, soakConversations, length)
	}
}
