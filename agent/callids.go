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
	var seen []string
	for i := range resp.Messages {
		parts := resp.Messages[i].Parts
		copied := false
		for j, p := range parts {
			c, ok := p.(chat.ToolCall)
			if !ok {
				continue
			}
			if id := uniqueID(c.ID, msgs, seen); id != c.ID {
				if !copied {
					parts = append([]chat.Part(nil), parts...)
					resp.Messages[i].Parts, copied = parts, true
				}
				c.ID = id
				parts[j] = c
			}
			seen = append(seen, c.ID)
		}
	}
	return resp, err
}

func (u *uniqueCallIDs) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		var seen []string
		for up, err := range u.next.Stream(ctx, msgs, opts) {
			if err == nil {
				copied := false
				for j, p := range up.Parts {
					c, ok := p.(chat.ToolCall)
					if !ok {
						continue
					}
					if id := uniqueID(c.ID, msgs, seen); id != c.ID {
						if !copied {
							up.Parts = append([]chat.Part(nil), up.Parts...)
							copied = true
						}
						c.ID = id
						up.Parts[j] = c
					}
					seen = append(seen, c.ID)
				}
			}
			if !yield(up, err) || err != nil {
				return
			}
		}
	}
}

// uniqueID returns id, or, when it is empty or already used in msgs or seen, the first free "id_2", "id_3", ...
func uniqueID(id string, msgs []chat.Message, seen []string) string {
	base := id
	if base == "" {
		base = "call"
	}
	if id != "" && !usedID(id, msgs, seen) {
		return id
	}
	for n := 2; ; n++ {
		c := base + "_" + strconv.Itoa(n)
		if !usedID(c, msgs, seen) {
			return c
		}
	}
}

func usedID(id string, msgs []chat.Message, seen []string) bool {
	for _, s := range seen {
		if s == id {
			return true
		}
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				if p.ID == id {
					return true
				}
			case chat.ToolResult:
				if p.CallID == id {
					return true
				}
			}
		}
	}
	return false
}
