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
	feeds := &feedRegistry{} // a registry of its own: no other test's feeds are in it
	mine := func() int {
		feeds.mu.Lock()
		defer feeds.mu.Unlock()
		return len(feeds.convs)
	}

	f := feeds.acquire(liveKey{"t", "big"})
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
	f.release()

	for i := range 1000 {
		feeds.acquire(liveKey{"t", fmt.Sprint("c", i)}).release()
	}
	is.True(mine() >= 1000)
	deadline := time.Now().Add(5 * time.Second)
	for mine() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	is.Equal(mine(), 0) // every feed nobody holds is forgotten after the retention

	// A feed held again before its retention ends is kept.
	g := feeds.acquire(liveKey{"t", "again"})
	g.release()
	g2 := feeds.acquire(liveKey{"t", "again"})
	is.True(g == g2)
	time.Sleep(3 * liveRetention)
	is.True(feeds.watched(liveKey{"t", "again"})) // still held
	g2.release()
}

// TestCoalescing: text and reasoning deltas gather into one event for the window or up to the size; a part that is
// not a delta, a finish, and another message each close the event; ids follow one another after the base.
func TestCoalescing(t *testing.T) {
	is := is.New(t)
	h := &Host{}
	h.useFeeds()
	c := &conversationRun{h: h, st: &runState{}, store: memory.New(), settingsID: "t", id: "coalesced", watches: newWatches()}
	f := newRunFeed(c, 100)
	say := func(parts ...chat.Part) chat.Update { return chat.Update{Role: chat.RoleAssistant, Parts: parts} }
	for _, w := range []string{"Hello", " there", ","} {
		f.add(say(chat.Text{Text: w}))
	}
	f.add(say(chat.Reasoning{Provider: "p", Text: "think"}))
	f.add(say(chat.Reasoning{Provider: "p", Text: "ing", Signature: "sig"}))
	f.add(say(chat.Text{Text: " friend"}))
	f.add(chat.Update{Role: chat.RoleAssistant, FinishReason: chat.FinishStop}) // closes the event
	f.add(say(chat.ToolCall{ID: "c1", Name: "search"}))                         // a part that is not a delta: alone
	f.add(chat.Update{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "c1"}}})
	f.add(say(chat.Text{Text: strings.Repeat("y", coalesceBytes)})) // full at once
	f.add(say(chat.Text{Text: "late"}))
	time.Sleep(3 * coalesceWindow) // the window closes the event however long the stream goes on
	last := f.close(nil)

	evs := f.feed.after(100)
	is.Equal(len(evs), 6)
	is.Equal(last, int64(106))
	for i, e := range evs {
		is.Equal(e.id, int64(101+i)) // numbered after the base, none skipped
		is.Equal(e.base, int64(100))
	}
	is.Equal(evs[0].u.Parts, []chat.Part{chat.Text{Text: "Hello there,"}, chat.Reasoning{Provider: "p", Text: "thinking", Signature: "sig"}, chat.Text{Text: " friend"}})
	is.Equal(evs[0].u.FinishReason, chat.FinishStop)
	is.Equal(evs[1].u.Parts, []chat.Part{chat.ToolCall{ID: "c1", Name: "search"}})
	is.Equal(evs[2].u.Role, chat.RoleTool)
	is.Equal(len(evs[3].u.Parts[0].(chat.Text).Text), coalesceBytes)
	is.Equal(evs[4].u.Parts, []chat.Part{chat.Text{Text: "late"}})
	is.True(evs[5].end && !evs[4].end) // the run's end closes the run
}
