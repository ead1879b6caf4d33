package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// badText lists text no store holds as it is, in the forms a model or a tool
// can send it: prose (a Go string), arguments and a tool result (JSON).
var badText = []struct {
	name         string
	prose        string // what the model says
	args, result string // what it sends to a tool and what the tool returns
	wantProse    string // the prose as stored
	wantResult   string // the result as the model reads it and as stored
}{
	{"NUL", "a\x00b", `{"q":"a\u0000b"}`, `{"r":"a\u0000b"}`, "a\uFFFDb", `{"r":"a\ufffdb"}`},
	{"lone surrogate", "a\xed\xa0\x80b", `{"q":"\ud800"}`, `{"r":"\udc00 tail"}`, "a\uFFFD\uFFFD\uFFFDb", `{"r":"\ufffd tail"}`},
	{"invalid UTF-8", "a\xffb", "{\"q\":\"a\xffb\"}", "{\"r\":\"a\xffb\"}", "a\uFFFDb", "{\"r\":\"a\uFFFDb\"}"},
	{"huge number", "fine", `{"q":1e999999}`, `{"r":1e999999}`, "fine", `{"r":"1e999999"}`},
}

// TestBadTextNeverFailsARun sends text no store holds from the model (prose,
// provider data, arguments, a tool name) and from tools (a result, an error)
// on both stores: the run ends normally, arguments that break the rule are
// answered with a message and their call does not run, and everything else
// is stored with U+FFFD in place of what could not be, the same on both.
func TestBadTextNeverFailsARun(t *testing.T) {
	for _, bt := range badText {
		t.Run(bt.name, func(t *testing.T) {
			stores(t, func(t *testing.T, s storage.Store) {
				for _, streaming := range []bool{false, true} {
					name := "respond"
					if streaming {
						name = "stream"
					}
					t.Run(name, func(t *testing.T) { badTextRun(t, s, bt, streaming) })
				}
			})
		})
	}
}

func badTextRun(t *testing.T, s storage.Store, bt struct {
	name                  string
	prose                 string
	args, result          string
	wantProse, wantResult string
}, streaming bool) {
	is := is.New(t)
	ctx := context.Background()
	conv := "bad-" + strings.ReplaceAll(bt.name, " ", "-")
	if streaming {
		conv += "-stream"
	}
	var ran atomic.Int32
	var seen [][]chat.Message
	model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		seen = append(seen, msgs)
		if len(seen)%2 == 0 {
			return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "done"}}}}}, nil
		}
		return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Text{Text: bt.prose},
			chat.Raw{Provider: "test", Data: json.RawMessage(bt.result)},
			chat.ToolCall{ID: "args", Name: "search", Arguments: json.RawMessage(bt.args)},
			chat.ToolCall{ID: "result", Name: "fetch", Arguments: json.RawMessage(`{}`)},
			chat.ToolCall{ID: "error", Name: "broken", Arguments: json.RawMessage(`{}`)},
			chat.ToolCall{ID: "name", Name: "no_such\x00tool" + bt.prose, Arguments: json.RawMessage(`{}`)},
		}}}}, nil
	})
	search := tool("search", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		ran.Add(1)
		return json.RawMessage(`{}`), nil
	})
	fetch := tool("fetch", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(bt.result), nil
	})
	broken := tool("broken", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("broke: " + bt.prose)
	})
	h := host(model, agent.Config{Store: s}, search, fetch, broken)
	run := func(text string) (*agent.Result, error) {
		opts := []agent.RunOption{agent.Text(text), agent.SettingsID(tenant), agent.Conversation(conv)}
		if !streaming {
			return h.Run(ctx, opts...)
		}
		var res agent.Result
		for _, err := range h.RunStream(ctx, append(opts, agent.ResultInto(&res))...) {
			if err != nil {
				return nil, err
			}
		}
		return &res, nil
	}
	res, err := run("go " + bt.prose)
	is.NoErr(err) // bad text does not fail the run
	is.Equal(res.Text(), "done")
	is.Equal(ran.Load(), int32(0)) // the call with bad arguments did not run

	// What the model read of its calls in the same run.
	got := map[string]chat.ToolResult{}
	for _, m := range seen[len(seen)-1] {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				got[r.CallID] = r
			}
		}
	}
	is.True(strings.Contains(got["args"].Error, "the arguments cannot be used")) // the model is told why
	is.True(len(got["args"].Result) == 0)
	is.Equal(string(got["result"].Result), bt.wantResult) // the result as stored
	is.Equal(got["error"].Error, "broke: "+bt.wantProse)
	is.True(strings.Contains(got["name"].Error, "unknown tool"))

	// Everything stored is what every store holds, with U+FFFD in place.
	all, err := s.LoadAll(ctx, tenant, conv)
	is.NoErr(err)
	for _, e := range all {
		is.NoErr(storage.CheckJSON(e.Data))
	}
	var stored []chat.Message
	for _, e := range all {
		if e.Type == storage.EntryResponse {
			var msgs []chat.Message
			is.NoErr(json.Unmarshal(e.Data, &msgs))
			stored = append(stored, msgs...)
		}
	}
	is.True(len(stored) > 0)
	is.Equal(stored[0].Parts[0].(chat.Text).Text, bt.wantProse)

	// A later run reads the history back and goes on.
	res, err = run("again")
	is.NoErr(err)
	is.Equal(res.Text(), "done")
	history := seen[len(seen)-2]
	is.Equal(history[0].Text(), "go "+bt.wantProse) // the input, as stored
	is.Equal(ran.Load(), int32(0))
}

// TestDeepArgumentsGetTheDepthMessage sends arguments nested far past the
// decoders' limit, to where encoding/json gives up, to a tool that needs
// approval (whose arguments are checked before anyone is asked): the model
// reads the depth limit's message, and the run ends normally on both stores.
func TestDeepArgumentsGetTheDepthMessage(t *testing.T) {
	for _, depth := range []int{65, 10000, 10001, 12000} {
		stores(t, func(t *testing.T, s storage.Store) {
			is := is.New(t)
			args := `{"q":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
			m := script(call(tc("deep", "close_ticket", args)), say("done"))
			h := host(m, agent.Config{Store: s}, needsApproval(echo("close_ticket")))
			res, err := h.Run(context.Background(), agent.Text("go"), agent.SettingsID(tenant), agent.Conversation("deep"))
			is.NoErr(err)
			is.Equal(res.Text(), "done")
			is.Equal(len(res.Pending), 0) // nothing to approve: the call was answered
			msg := lastResults(m)["deep"].Error
			is.True(strings.Contains(msg, "nested too deeply (more than 64 levels)")) // the depth limit's message
			is.True(!strings.Contains(msg, "send a JSON object;"))
		})
	}
}

// TestDepthAroundTheLimit sends a model's call with arguments nested at every depth around the one depth limit
// (tooljson.MaxDepth) and around encoding/json's (10,000): every run ends, and every stored conversation loads
// and goes on, on both stores. Arguments within the limit are stored as sent; deeper ones get the limit's message
// and are stored as a string of their text.
func TestDepthAroundTheLimit(t *testing.T) {
	var depths []int
	for d := tooljson.MaxDepth - 2; d <= tooljson.MaxDepth+2; d++ {
		depths = append(depths, d)
	}
	for d := 9994; d <= 10002; d++ {
		depths = append(depths, d)
	}
	stores(t, func(t *testing.T, s storage.Store) {
		for _, depth := range depths {
			is := is.New(t)
			id := fmt.Sprintf("depth-%d", depth)
			args := `{"q":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}` // depth levels
			m := script(call(tc("deep", "close_ticket", args)), say("done"), say("again"))
			h := host(m, agent.Config{Store: s}, echo("close_ticket"))
			res, err := h.Run(context.Background(), agent.Text("go"), agent.SettingsID(tenant), agent.Conversation(id))
			is.NoErr(err) // depth
			is.Equal(res.Text(), "done")
			deep := strings.Contains(lastResults(m)["deep"].Error, "nested too deeply")
			if deep != (depth > tooljson.MaxDepth) {
				t.Fatalf("depth %d: the call's result is %+v", depth, lastResults(m)["deep"])
			}

			st, err := h.LoadConversation(context.Background(), tenant, id)
			is.NoErr(err) // depth: the stored conversation loads
			var stored json.RawMessage
			for _, msg := range st.Messages {
				for _, p := range msg.Parts {
					if c, ok := p.(chat.ToolCall); ok && c.ID == "deep" {
						stored = c.Arguments
					}
				}
			}
			if depth > tooljson.MaxDepth {
				var text string
				is.NoErr(json.Unmarshal(stored, &text))
				is.Equal(text, args) // kept whole, as text
			} else {
				var got bytes.Buffer
				is.NoErr(json.Compact(&got, stored)) // Postgres's jsonb spaces it out
				is.Equal(got.String(), args)         // kept as sent
			}
			res, err = h.Run(context.Background(), agent.Text("more"), agent.SettingsID(tenant), agent.Conversation(id))
			is.NoErr(err) // depth: the conversation goes on
			is.Equal(res.Text(), "again")
		}
	})
}
