package agenthttp_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// BenchmarkFirstByte compares the time to the first update of a run: directly from Host.RunStream, and as the
// first byte of the SSE answer over loopback HTTP (authentication, decoding, the conversation check, the run's
// start and the first event). Each run starts a new conversation; the rest of the run is read before the next.
func BenchmarkFirstByte(b *testing.B) {
	e := newEnv(b, memory.New())
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		var total time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			first := true
			for _, err := range e.host.RunStream(ctx, agent.SettingsID(tenantA), agent.Conversation(fmt.Sprintf("direct-%d", i)), agent.Text("hello")) {
				if err != nil {
					b.Fatal(err)
				}
				if first {
					total += time.Since(start)
					first = false
				}
			}
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-update")
	})
	b.Run("http", func(b *testing.B) {
		client := e.srv.Client()
		body := `{"text":"hello"}`
		var total time.Duration
		for b.Loop() {
			r, _ := http.NewRequest("POST", e.srv.URL+"/conversations", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "text/event-stream")
			r.Header.Set("Authorization", "Bearer "+tokenA)
			start := time.Now()
			resp, err := client.Do(r)
			if err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			if _, err := br.ReadByte(); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
			for {
				line, err := br.ReadString('\n')
				if err != nil || line == "event: end\n" {
					break
				}
			}
			resp.Body.Close()
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-byte")
	})
}

// BenchmarkWatchStreams holds 1,000 watch streams of one conversation open on one instance (loopback, the memory
// store) and measures what each costs: heap and goroutines per stream (the client's side, in the same process,
// included), and, per iteration, the time until every stream has seen the text of one run.
func BenchmarkWatchStreams(b *testing.B) {
	const streams = 1000
	e := newEnv(b, memory.New())
	id := e.create(tokenA, "hello").ConversationID
	transport := &http.Transport{MaxIdleConnsPerHost: streams}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan struct{}, streams)
	var opened sync.WaitGroup
	for range streams {
		opened.Add(1)
		go func() {
			r, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/conversations/"+id+"/events", nil)
			r.Header.Set("Authorization", "Bearer "+tokenA)
			resp, err := client.Do(r)
			if err != nil {
				opened.Done()
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			_, _ = br.ReadString('\n') // ": watching"
			opened.Done()
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if line == "event: text\n" {
					seen <- struct{}{}
				}
			}
		}()
	}
	opened.Wait()
	time.Sleep(200 * time.Millisecond) // let every watch subscribe to the store
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapInuse-before.HeapInuse) / streams
	perStream := float64(runtime.NumGoroutine()-goroutines) / streams

	for b.Loop() {
		// One text update per run: the model's answer is one word.
		for _, err := range e.host.RunStream(context.Background(), agent.SettingsID(tenantA), agent.Conversation(id), agent.Text("x")) {
			if err != nil {
				b.Fatal(err)
			}
		}
		deadline := time.After(30 * time.Second)
		for n := 0; n < streams; {
			select {
			case <-seen:
				n++
			case <-deadline:
				b.Fatalf("%d of %d streams saw the run", n, streams)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(heap, "heap-B/stream")
	b.ReportMetric(perStream, "goroutines/stream")
	cancel()
}
