package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

// closer is an approval-required tool that counts its runs and returns its arguments.
func closer(runs *atomic.Int32) *toolset.Tool {
	t := tool("close_ticket", func(_ context.Context, a json.RawMessage) (json.RawMessage, error) {
		runs.Add(1)
		return a, nil
	})
	t.ID = "example.com/tickets.Tickets.close_ticket"
	t.RequiresApproval = true
	return t
}

// pendingRun makes a run whose model calls an ordinary tool and close_ticket in one response.
func pendingRun(t *testing.T, runs *atomic.Int32, cfg agent.Config) (*agent.Result, *chattest.Script) {
	is := is.New(t)
	m := script(call(tc("1", "search", `{"q":"x"}`), tc("2", "close_ticket", `{"number":4711}`)))
	h := host(m, cfg, echo("search"), closer(runs))
	res, err := h.Run(context.Background(), agent.Text("close 4711"))
	is.NoErr(err)
	return res, m
}

func TestApprovalPendsAndOrdinaryCallsRun(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	res, m := pendingRun(t, &runs, agent.Config{})
	is.Equal(len(m.Requests()), 1)
	is.Equal(runs.Load(), int32(0)) // not run before approval
	is.Equal(len(res.Pending), 1)
	p := res.Pending[0]
	is.Equal(p.Call.Name, "close_ticket")
	is.Equal(string(p.Call.Arguments), `{"number":4711}`)
	is.Equal(p.ToolID, "example.com/tickets.Tickets.close_ticket")
	got := results(res.New)
	is.Equal(string(got["1"].Result), `{"q":"x"}`) // the ordinary call ran
	_, answered := got["2"]
	is.True(!answered)
	// The assistant message shows the request in place of the call.
	is.Equal(len(res.New[0].ToolCalls()), 1)
	is.Equal(len(requests(res.New)), 1)
}

func requests(msgs []chat.Message) []chat.ApprovalRequest {
	var out []chat.ApprovalRequest
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ApprovalRequest); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

func TestApprovalAnswers(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(id string) agent.RunOption
		wantRuns int32
		want     string // the result or error the model reads
	}{
		{"approve", agent.Approve, 1, `{"number":4711}`},
		{"reject with reason", func(id string) agent.RunOption { return agent.Reject(id, "Ticket 4711 stays open.") }, 0, "Ticket 4711 stays open."},
		{"reject without reason", func(id string) agent.RunOption { return agent.Reject(id, "") }, 0, "The tool call was denied."},
		{"no answer", func(string) agent.RunOption { return agent.Text("never mind") }, 0, "nobody approved it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var runs atomic.Int32
			res, _ := pendingRun(t, &runs, agent.Config{})
			m := script(say("done"))
			h := host(m, agent.Config{}, echo("search"), closer(&runs))
			res2, err := h.Run(context.Background(), agent.Messages(res.Messages), tt.answer(res.Pending[0].ID))
			is.NoErr(err)
			is.Equal(runs.Load(), tt.wantRuns)
			r := lastResults(m)["2"]
			is.True(strings.Contains(string(r.Result)+r.Error, tt.want))
			is.Equal(len(res2.Pending), 0)
			// The model sees the call exactly as requested, with its result, and no approval parts.
			sawCall := false
			for _, msg := range m.Requests()[0].Messages {
				for _, p := range msg.Parts {
					switch p := p.(type) {
					case chat.ApprovalRequest, chat.ApprovalAnswer:
						t.Fatalf("the provider received an approval part: %#v", p)
					case chat.ToolCall:
						if p.ID == "2" {
							sawCall = true
							is.Equal(string(p.Arguments), `{"number":4711}`)
						}
					}
				}
			}
			is.True(sawCall)

			// Answering again, in the run after, is an answer to a closed request.
			_, err = host(script(say("x")), agent.Config{}, echo("search"), closer(&runs)).Run(context.Background(),
				agent.Messages(res2.Messages), agent.Approve(res.Pending[0].ID))
			var ae *agent.ApprovalError
			is.True(errors.As(err, &ae))
			is.Equal(ae.Reason, agent.ApprovalClosed)
		})
	}
}

func TestApprovalErrors(t *testing.T) {
	var runs atomic.Int32
	res, _ := pendingRun(t, &runs, agent.Config{})
	id := res.Pending[0].ID

	tampered := cloneMessages(res.Messages)
	for i, msg := range tampered {
		for j, p := range msg.Parts {
			if r, ok := p.(chat.ApprovalRequest); ok {
				r.Call.Arguments = json.RawMessage(`{"number":1}`) // an answer cannot change what it approves
				tampered[i].Parts[j] = r
			}
		}
	}
	otherTool := cloneMessages(res.Messages)
	for i, msg := range otherTool {
		for j, p := range msg.Parts {
			if r, ok := p.(chat.ApprovalRequest); ok {
				r.ToolID = "test.search"
				otherTool[i].Parts[j] = r
			}
		}
	}
	tests := []struct {
		name    string
		history []chat.Message
		opts    []agent.RunOption
		want    agent.ApprovalProblem
	}{
		{"forged id", res.Messages, []agent.RunOption{agent.Approve("approval_forged")}, agent.ApprovalUnknown},
		{"id of another conversation", nil, []agent.RunOption{agent.Approve(id)}, agent.ApprovalUnknown},
		{"answered twice", res.Messages, []agent.RunOption{agent.Approve(id), agent.Reject(id, "")}, agent.ApprovalAnsweredTwice},
		{"arguments changed", tampered, []agent.RunOption{agent.Approve(id)}, agent.ApprovalTampered},
		{"tool changed", otherTool, []agent.RunOption{agent.Approve(id)}, agent.ApprovalTampered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(say("never"))
			h := host(m, agent.Config{}, echo("search"), closer(&runs))
			_, err := h.Run(context.Background(), append([]agent.RunOption{agent.Messages(tt.history)}, tt.opts...)...)
			var ae *agent.ApprovalError
			is.True(errors.As(err, &ae))
			is.Equal(ae.Reason, tt.want)
			is.Equal(len(m.Requests()), 0) // the run did not start
			is.Equal(runs.Load(), int32(0))
		})
	}
}

func cloneMessages(msgs []chat.Message) []chat.Message {
	out := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		m.Parts = append([]chat.Part(nil), m.Parts...)
		out[i] = m
	}
	return out
}

func TestInvalidArgumentsNeverAskForApproval(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	m := script(call(tc("1", "close_ticket", `{"number":`)), call(tc("2", "close_ticket", `[4711]`)), say("sorry"))
	h := host(m, agent.Config{}, closer(&runs))
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(len(res.Pending), 0)
	is.Equal(len(requests(res.Messages)), 0)
	got := results(res.New)
	is.True(strings.Contains(got["1"].Error, "invalid JSON"))
	is.True(strings.Contains(got["2"].Error, "must be a JSON object"))
}

func TestSeveralPendingRequests(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	m := script(call(tc("1", "close_ticket", `{"number":1}`), tc("2", "close_ticket", `{"number":2}`)))
	h := host(m, agent.Config{}, closer(&runs))
	res, err := h.Run(context.Background(), agent.Text("close both"))
	is.NoErr(err)
	is.Equal(len(res.Pending), 2)

	m2 := script(say("closed one"))
	h2 := host(m2, agent.Config{}, closer(&runs))
	res2, err := h2.Run(context.Background(), agent.Messages(res.Messages),
		agent.Approve(res.Pending[0].ID), agent.Reject(res.Pending[1].ID, "not this one"))
	is.NoErr(err)
	is.Equal(runs.Load(), int32(1))
	got := lastResults(m2)
	is.Equal(string(got["1"].Result), `{"number":1}`)
	is.Equal(got["2"].Error, "not this one")
	is.Equal(res2.Text(), "closed one")
}

func TestStandingApprovals(t *testing.T) {
	tests := []struct {
		name  string
		scope chat.Standing
		next  string // arguments of the later call
		asks  bool
	}{
		{"once asks again", chat.Once, `{"number":4711}`, true},
		{"for the tool", chat.ForTool, `{"number":1}`, false},
		{"for these arguments", chat.ForArguments, `{ "number" : 4711 }`, false},
		{"for other arguments", chat.ForArguments, `{"number":1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var runs atomic.Int32
			res, _ := pendingRun(t, &runs, agent.Config{})
			m := script(say("closed"))
			res2, err := host(m, agent.Config{}, echo("search"), closer(&runs)).Run(context.Background(),
				agent.Messages(res.Messages), agent.ApproveAlways(res.Pending[0].ID, tt.scope))
			is.NoErr(err)
			is.Equal(runs.Load(), int32(1))

			// A later run, with the history: the standing approval holds across runs.
			m3 := script(call(tc("9", "close_ticket", tt.next)), say("closed again"))
			res3, err := host(m3, agent.Config{}, echo("search"), closer(&runs)).Run(context.Background(),
				agent.Messages(res2.Messages), agent.Text("and again"))
			is.NoErr(err)
			if tt.asks {
				is.Equal(len(res3.Pending), 1)
				is.Equal(runs.Load(), int32(1))
				return
			}
			is.Equal(len(res3.Pending), 0)
			is.Equal(runs.Load(), int32(2))
			is.Equal(res3.Text(), "closed again")
		})
	}
}

func TestRulesKeyOnIdentity(t *testing.T) {
	const id = "example.com/tickets.Tickets.close_ticket"
	renamed := func(runs *atomic.Int32) *toolset.Tool {
		t := closer(runs).Clone()
		t.Name = "tickets_close" // as a prefix or a rename would offer it
		return t
	}
	tests := []struct {
		name     string
		rules    []agent.Rule
		mode     string
		wantRuns int32
		pending  int
		want     string
	}{
		{"deny rule", []agent.Rule{agent.DenyTool(id)}, "", 0, 0, "The tool call was denied."},
		{"allow rule", []agent.Rule{agent.AllowTool(id)}, "", 1, 0, `{"number":4711}`},
		{"rule of another tool asks", []agent.Rule{agent.AllowTool("tickets_close")}, "", 0, 1, ""},
		{"first decision wins", []agent.Rule{agent.DenyTool(id), agent.AllowTool(id)}, "", 0, 0, "denied"},
		{"auto mode", nil, agent.ModeAuto, 1, 0, `{"number":4711}`},
		{"a deny rule beats auto mode", []agent.Rule{agent.DenyTool(id)}, agent.ModeAuto, 0, 0, "denied"},
		{"rule sees the arguments", []agent.Rule{func(_ context.Context, t *toolset.Tool, c chat.ToolCall) agent.Decision {
			if t.ID == id && strings.Contains(string(c.Arguments), "4711") {
				return agent.Allow
			}
			return agent.Ask
		}}, "", 1, 0, "4711"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var runs atomic.Int32
			m := script(call(tc("1", "tickets_close", `{"number":4711}`)), say("done"))
			h := host(m, agent.Config{Rules: tt.rules}, renamed(&runs))
			res, err := h.Run(context.Background(), agent.Text("x"), agent.Mode(tt.mode))
			is.NoErr(err)
			is.Equal(runs.Load(), tt.wantRuns)
			is.Equal(len(res.Pending), tt.pending)
			if tt.pending == 0 {
				r := lastResults(m)["1"]
				is.True(strings.Contains(string(r.Result)+r.Error, tt.want))
				is.Equal(res.Text(), "done")
			}
		})
	}
}
