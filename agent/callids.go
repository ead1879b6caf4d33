package agent

import (
	"context"
	"iter"
	"strconv"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// uniqueCallIDs makes the tool calls' ids unique within a run. Some providers number calls per response
// ("call_0", "call_1", ...) or send none, and a result answers its call by id: a repeated id would bind a result to
// the wrong call.
type uniqueCallIDs struct {
	next chat.Client
}

func (u *uniqueCallIDs) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	resp, err := u.next.Respond(ctx, msgs, opts)
	if resp == nil {
		return resp, err
	}
	ids := newCallIDs(msgs)
	for i := range resp.Messages {
		parts := resp.Messages[i].Parts
		copied := false
		for j, p := range parts {
			c, ok := p.(chat.ToolCall)
			if !ok {
				continue
			}
			if id := ids.unique(c.ID); id != c.ID {
				if !copied {
					parts = append([]chat.Part(nil), parts...)
					resp.Messages[i].Parts, copied = parts, true
				}
				c.ID = id
				parts[j] = c
			}
		}
	}
	return resp, err
}

func (u *uniqueCallIDs) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		var ids *callIDs // made at the first call: most updates are text
		for up, err := range u.next.Stream(ctx, msgs, opts) {
			if err == nil {
				copied := false
				for j, p := range up.Parts {
					c, ok := p.(chat.ToolCall)
					if !ok {
						continue
					}
					if ids == nil {
						ids = newCallIDs(msgs)
					}
					if id := ids.unique(c.ID); id != c.ID {
						if !copied {
							up.Parts = append([]chat.Part(nil), up.Parts...)
							copied = true
						}
						c.ID = id
						up.Parts[j] = c
					}
				}
			}
			if !yield(up, err) || err != nil {
				return
			}
		}
	}
}

// callIDs are the call ids a model call may not reuse: those of the calls and results in its messages, and those
// given to the calls of its response so far. unique takes linear time over a response, however many calls share
// an id: each base remembers the number it got to, and the set of used ids only grows, so the first free number
// is never below it.
type callIDs struct {
	used map[string]bool
	next map[string]int // for a base, the first number that may be free
}

func newCallIDs(msgs []chat.Message) *callIDs {
	ids := &callIDs{used: map[string]bool{}}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				ids.used[p.ID] = true
			case chat.ToolResult:
				ids.used[p.CallID] = true
			}
		}
	}
	return ids
}

// unique returns id, or, when it is empty or already used, the first free "id_2", "id_3", ... ("call_2", ... for
// an empty id), and marks what it returns as used.
func (ids *callIDs) unique(id string) string {
	if id != "" && !ids.used[id] {
		ids.used[id] = true
		return id
	}
	base := id
	if base == "" {
		base = "call"
	}
	if ids.next == nil {
		ids.next = map[string]int{}
	}
	n := max(ids.next[base], 2)
	for ids.used[base+"_"+strconv.Itoa(n)] {
		n++
	}
	c := base + "_" + strconv.Itoa(n)
	ids.used[c] = true
	ids.next[base] = n + 1
	return c
}
