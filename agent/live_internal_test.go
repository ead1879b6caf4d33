package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// TestFeedsBounded: a feed keeps its latest events within its bounds, and the registry forgets a feed nobody holds
// after the retention, so memory does not grow with the number of conversations.
func TestFeedsBounded(t *testing.T) {
	is := is.New(t)
	saved := liveRetention
	liveRetention = 20 * time.Millisecond
	t.Cleanup(func() { liveRetention = saved })
	store := memory.New() // a store of its own: no other test's feeds share its keys
	mine := func() int {
		feeds.mu.Lock()
		defer feeds.mu.Unlock()
		n := 0
		for k := range feeds.convs {
			if k.store == store {
				n++
			}
		}
		return n
	}

	f := feeds.acquire(liveKey{store, "t", "big"})
	text := strings.Repeat("x", 2000)
	for i := range feedEvents + 500 {
		f.add(liveEvent{id: int64(i + 1), u: chat.Update{Parts: []chat.Part{chat.Text{Text: text}}}, size: sizeOf(chat.Update{Parts: []chat.Part{chat.Text{Text: text}}})})
	}
	f.mu.Lock()
	n, bytes, first := len(f.events), f.bytes, f.events[0].id
	f.mu.Unlock()
	is.True(n <= feedEvents)                   // no more events than the bound
	is.True(bytes <= feedBytes)                // nor more bytes
	is.Equal(first, int64(feedEvents+500-n+1)) // the oldest went first
	feeds.release(f)

	for i := range 1000 {
		feeds.release(feeds.acquire(liveKey{store, "t", fmt.Sprint("c", i)}))
	}
	is.True(mine() >= 1000)
	deadline := time.Now().Add(5 * time.Second)
	for mine() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	is.Equal(mine(), 0) // every feed nobody holds is forgotten after the retention

	// A feed held again before its retention ends is kept.
	g := feeds.acquire(liveKey{store, "t", "again"})
	feeds.release(g)
	g2 := feeds.acquire(liveKey{store, "t", "again"})
	is.True(g == g2)
	time.Sleep(3 * liveRetention)
	is.True(feeds.watched(liveKey{store, "t", "again"})) // still held
	feeds.release(g2)
}
