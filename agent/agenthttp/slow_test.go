package agenthttp_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/storage"
)

// TestNonReadingClients: clients that send a run and never read its stream are cut off at the write deadline;
// their runs go on to their ends (a run that waits ends by RunTimeout), every conversation is free again, and the
// server's memory comes back down. It logs the server's heap before, while the clients hold their streams, and
// after.
func TestNonReadingClients(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		const (
			runTimeout   = 5 * time.Second
			writeTimeout = 300 * time.Millisecond
			clients      = 20
			answerWords  = 16 // of 64 KiB: 1 MiB of text per run, more than the sockets buffer
		)
		e := newEnv(t, s, func(_ *agent.Config, o *agenthttp.Options) {
			o.RunTimeout, o.WriteTimeout = runTimeout, writeTimeout
			o.MaxBodyBytes = 1 << 20
		})
		// The server's sockets buffer little, as a busy server's would: a client that does not read blocks the
		// server's writes after a few KiB rather than after the kernel's default of megabytes.
		e.srv.Close()
		srv := httptest.NewUnstartedServer(e.handler)
		srv.Listener = smallBuffers{srv.Listener}
		srv.Start()
		e.srv = srv
		base := heapInUse()

		// Each client sends its run, then never reads: its receive buffer is small, so the server's writes block.
		var conns []net.Conn
		for i := range clients {
			text := fmt.Sprintf("big %d", answerWords)
			if i%5 == 4 {
				text = "wait" // a run that waits in its model call until RunTimeout
			}
			body := fmt.Sprintf(`{"threadId":"slow-%d","runId":"r","messages":[{"id":"m","role":"user","content":%q}]}`, i, text)
			c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
			is.NoErr(err)
			conns = append(conns, c)
			_, err = fmt.Fprintf(c, "POST /agents/Desk/agui HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n"+
				"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", tokenA, len(body), body)
			is.NoErr(err)
		}
		t.Cleanup(func() {
			for _, c := range conns {
				c.Close()
			}
		})
		started := time.Now()
		// Each run holds its conversation before it is probed: it has stored its input, which it does before its
		// model call. Probing earlier would race the run on a loaded machine: the probe's own run could take the
		// new conversation first.
		for i := range clients {
			id := fmt.Sprintf("slow-%d", i)
			for {
				st, err := e.host.LoadConversation(context.Background(), tenantA, id)
				if err == nil && len(st.Messages) > 0 {
					break
				}
				if time.Since(started) > 4*runTimeout {
					t.Fatalf("%s: the run never stored its input: %v", id, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}

		// Every conversation is free again: a new run on it is not refused as busy. The runs that wait end by
		// their RunTimeout; the others go on without their clients once the writes that block are cut.
		var wg sync.WaitGroup
		var mu sync.Mutex
		var peak uint64
		freed := make([]time.Duration, clients)
		for i := range clients {
			wg.Go(func() {
				for {
					mu.Lock()
					peak = max(peak, heapInUse())
					mu.Unlock()
					resp := e.do(req{method: "POST", path: "/agents/Desk/agui", token: tokenA,
						body: map[string]any{"threadId": fmt.Sprintf("slow-%d", i), "runId": "r2",
							"messages": []any{map[string]any{"id": "m2", "role": "user", "content": "hello"}}}})
					if resp.status == http.StatusOK {
						freed[i] = time.Since(started)
						return
					}
					if resp.status != http.StatusConflict || time.Since(started) > 4*runTimeout {
						t.Errorf("slow-%d: %d %s after %v", i, resp.status, resp.body, time.Since(started))
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			})
		}
		wg.Wait()
		for i, d := range freed {
			is.True(d < runTimeout+2*time.Second) // slow-i: ended by its RunTimeout at the latest
			st, err := e.host.LoadConversation(context.Background(), tenantA, fmt.Sprintf("slow-%d", i))
			is.NoErr(err)
			if i%5 != 4 {
				// The run went on to its end without its client: the whole answer is stored.
				is.Equal(len(st.Messages[1].Text()), answerWords<<16)
			}
		}
		after := heapInUse()
		t.Logf("server heap in use: %d MiB before, %d MiB at most while %d clients held their streams, %d MiB after",
			base>>20, peak>>20, clients, after>>20)
		is.True(after < base+64<<20) // what the held streams pinned is released

		// Watchers that stop reading are cut off too: their watches end while the run they watch goes on.
		id := e.create(tokenA, "hello").ConversationID
		done := make(chan response, 1)
		go func() {
			done <- e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
				body: map[string]any{"text": fmt.Sprintf("wait big %d", answerWords)}})
		}()
		<-e.model.waiting
		const watchers = 3
		for range watchers {
			c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
			is.NoErr(err)
			conns = append(conns, c)
			_, err = fmt.Fprintf(c, "GET /conversations/%s/events HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n"+
				"Accept: text/event-stream\r\n\r\n", id, tokenA)
			is.NoErr(err)
			// The watcher reads until the stream says it is watching, then stops reading.
			br := bufio.NewReader(c)
			for {
				l, err := br.ReadString('\n')
				is.NoErr(err)
				if strings.HasPrefix(l, ": watching") {
					break
				}
			}
		}
		close(e.model.release)
		resp := <-done
		is.Equal(resp.status, http.StatusOK)
		line := "path=/conversations/" + id + "/events"
		for deadline := time.Now().Add(10 * time.Second); strings.Count(e.logs.String(), line) < watchers; {
			is.True(time.Now().Before(deadline)) // every watch ended: each request's log line is written
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// smallBuffers gives the connections it accepts small socket buffers.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// heapInUse returns the heap in use after a garbage collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
