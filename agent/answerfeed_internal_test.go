package agent

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// TestAnswerUpdatesOnTheFeed: a typed answer's updates are events of their own on a conversation's feed, between
// the text before and after them, never joined with it, and they reach a watcher in another process whole.
func TestAnswerUpdatesOnTheFeed(t *testing.T) {
	is := is.New(t)
	h := &Host{}
	h.useFeeds()
	c := &conversationRun{h: h, st: &runState{}, store: memory.New(), settingsID: "t", id: "answered", watches: newWatches()}
	f := newRunFeed(c, 0)
	say := func(text string) chat.Update {
		return chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}}
	}
	partial := &chat.AnswerUpdate{Type: "Verdict", Value: []byte(`{"decision":"close"}`)}
	final := &chat.AnswerUpdate{Type: "Verdict", Value: []byte(`{"decision":"close","priority":4}`), Final: true}
	f.add(say(`{"decision":"close",`))
	f.add(chat.Update{Answer: partial})
	f.add(say(`"priority":4}`))
	f.add(chat.Update{Answer: final})
	f.close(nil)

	evs := f.feed.after(0)
	is.Equal(len(evs), 5) // text, partial, text, final, end
	is.Equal(evs[0].u.Parts, []chat.Part{chat.Text{Text: `{"decision":"close",`}})
	is.Equal(evs[1].u.Answer, partial)
	is.Equal(len(evs[1].u.Parts), 0)
	is.Equal(evs[3].u.Answer, final)

	for _, e := range evs[1:4:4] {
		data, err := encodeEvent(e)
		is.NoErr(err)
		w, _, ok, err := decodeEvent(storage.Event{ID: e.id, Data: data})
		is.NoErr(err)
		is.True(ok)
		is.Equal(w.Answer, e.u.Answer)
		is.Equal(w.Parts, e.u.Parts)
	}
}
