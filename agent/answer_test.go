package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/answertest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

const (
	goodVerdict     = `{"decision":"close","priority":4,"reasons":["The customer says it works now."]}`
	tooUrgent       = `{"decision":"close","priority":9,"reasons":["The customer says it works now."]}`
	unassigned      = `{"decision":"escalate","priority":1,"reasons":["The database is down."]}`
	assigned        = `{"decision":"escalate","priority":1,"reasons":["The database is down."],"assignee":"dba"}`
	answerCallID    = "call_answer"
	tooUrgentReason = `"priority" must be at most 5, got 9`
)

// answerReply is the model's answer in mode m: text, or a call of the answer tool.
func answerReply(m agent.AnswerMode, answer string) *chat.Response {
	switch m {
	case agent.AnswerTool:
		return chattest.Calls(chattest.Call(answerCallID, agent.AnswerToolName, answer))
	case agent.AnswerPrompted:
		return chattest.Text("Here is my verdict:\n```json\n" + answer + "\n```")
	}
	return chattest.Text(answer)
}

func triageHost(t *testing.T, m chat.Client, mode agent.AnswerMode, retries int, cfg agent.Config) *agent.Host {
	t.Helper()
	cfg.Client = m
	h, err := agent.NewHost(&answertest.Triage{Mode: mode, Retries: retries}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var modes = []agent.AnswerMode{agent.AnswerNative, agent.AnswerTool, agent.AnswerPrompted}

// TestAnswerModes: each mode asks for the answer its way, and the run returns the typed value, with the answer's
// JSON as the last assistant message.
func TestAnswerModes(t *testing.T) {
	for _, mode := range append(modes, agent.AnswerAuto) {
		t.Run(string(mode), func(t *testing.T) {
			is := is.New(t)
			asked := mode
			if mode == agent.AnswerAuto {
				asked = agent.AnswerTool // a client of no known provider
			}
			m := chattest.NewScript(answerReply(asked, goodVerdict))
			res, err := triageHost(t, m, mode, 2, agent.Config{}).Run(context.Background(), agent.Text("It works now, thanks."))
			is.NoErr(err)
			v, err := agent.AnswerOf[answertest.Verdict](res)
			is.NoErr(err)
			is.Equal(v.Decision, "close")
			is.Equal(v.Priority, 4)
			is.Equal(string(res.Answer), goodVerdict)
			is.Equal(res.Text(), map[bool]string{true: res.New[len(res.New)-1].Text(), false: goodVerdict}[asked == agent.AnswerPrompted])

			req := m.Requests()[0]
			is.Equal(req.Options.ResponseFormat != nil, asked == agent.AnswerNative)
			if asked == agent.AnswerNative {
				is.Equal(req.Options.ResponseFormat.Name, "Verdict")
				is.True(strings.Contains(string(req.Options.ResponseFormat.Schema), `"priority"`))
				is.True(!req.Options.ResponseFormat.Strict) // strict is OpenAI's
			}
			is.Equal(req.ToolNames() != nil, asked == agent.AnswerTool)
			if asked == agent.AnswerTool {
				is.Equal(req.ToolNames(), []string{agent.AnswerToolName})
				// The call is answered, and the answer follows as text.
				n := len(res.New)
				is.Equal(res.New[n-2].Role, chat.RoleTool)
				is.Equal(res.New[n-1].Text(), goodVerdict)
			}
			is.Equal(strings.Contains(req.Options.Instructions, `"reasons"`), asked == agent.AnswerPrompted)
		})
	}
}

// TestAnswerRetried: an answer the decoder refuses goes back to the model with the decoder's message, in each
// mode, and the next one is accepted; both calls count in the run's usage.
func TestAnswerRetried(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			is := is.New(t)
			m := chattest.NewScript(answerReply(mode, tooUrgent), answerReply(mode, goodVerdict))
			res, err := triageHost(t, m, mode, 2, agent.Config{}).Run(context.Background(), agent.Text("It works now."))
			is.NoErr(err)
			is.Equal(string(res.Answer), goodVerdict)
			reqs := m.Requests()
			is.Equal(len(reqs), 2)
			back := reqs[1].Messages[len(reqs[1].Messages)-1]
			if mode == agent.AnswerTool {
				is.Equal(back.Role, chat.RoleTool)
				r := back.Parts[0].(chat.ToolResult)
				is.Equal(r.CallID, answerCallID)
				is.True(strings.Contains(r.Error, tooUrgentReason))
			} else {
				is.Equal(back.Role, chat.RoleUser)
				is.True(strings.Contains(back.Text(), tooUrgentReason))
			}
			is.Equal(res.Usage.TotalTokens > 0, true)
			is.True(res.Usage.TotalTokens > reqUsage(t, mode, goodVerdict)) // two calls counted
		})
	}
}

// reqUsage is the usage of one scripted answer.
func reqUsage(t *testing.T, mode agent.AnswerMode, answer string) int64 {
	res, err := triageHost(t, chattest.NewScript(answerReply(mode, answer)), mode, 0, agent.Config{}).Run(context.Background(), agent.Text("It works now."))
	if err != nil {
		t.Fatal(err)
	}
	return res.Usage.TotalTokens
}

// TestAnswerValidatorRetry: a validator's refusal sends the answer back with its reason.
func TestAnswerValidatorRetry(t *testing.T) {
	is := is.New(t)
	m := chattest.NewScript(answerReply(agent.AnswerNative, unassigned), answerReply(agent.AnswerNative, assigned))
	res, err := triageHost(t, m, agent.AnswerNative, 1, agent.Config{}).Run(context.Background(), agent.Text("The database is down."))
	is.NoErr(err)
	v, err := agent.AnswerOf[answertest.Verdict](res)
	is.NoErr(err)
	is.Equal(*v.Assignee, "dba")
	last := m.Requests()[1].Messages
	is.True(strings.Contains(last[len(last)-1].Text(), answertest.ErrNoAssignee.Error()))
}

// TestAnswerBound: past the agent's retries the run ends with an AnswerError that keeps the last answer, and the
// Result holds every attempt.
func TestAnswerBound(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			is := is.New(t)
			m := chattest.NewScript(answerReply(mode, tooUrgent), answerReply(mode, unassigned))
			res, err := triageHost(t, m, mode, 1, agent.Config{}).Run(context.Background(), agent.Text("Help."))
			var ae *agent.AnswerError
			is.True(errors.As(err, &ae))
			is.Equal(ae.Type, "Verdict")
			is.Equal(ae.Attempts, 2)
			is.True(strings.Contains(ae.Raw, `"escalate"`))
			is.True(errors.Is(err, answertest.ErrNoAssignee))
			is.Equal(res.Answer, nil)
			is.Equal(res.Value, nil)
			is.Equal(len(m.Requests()), 2)
			is.True(len(res.New) >= 3) // the first answer, what sent it back, the second
			_, err = agent.AnswerOf[answertest.Verdict](res)
			is.True(err != nil)
		})
	}
}

// TestAnswerNoRetries: with WithAnswerRetries(0) the first refused answer ends the run.
func TestAnswerNoRetries(t *testing.T) {
	is := is.New(t)
	m := chattest.NewScript(answerReply(agent.AnswerNative, tooUrgent))
	_, err := triageHost(t, m, agent.AnswerNative, 0, agent.Config{}).Run(context.Background(), agent.Text("Help."))
	var ae *agent.AnswerError
	is.True(errors.As(err, &ae))
	is.Equal(ae.Attempts, 1)
	is.Equal(ae.Raw, tooUrgent)
	is.True(strings.Contains(err.Error(), tooUrgentReason))
}

// deskHost is a Desk host whose tool middleware records the names of the tools it invokes in invoked.
func deskHost(t *testing.T, m chat.Client, mode agent.AnswerMode) (*agent.Host, *[]string) {
	t.Helper()
	tickets := &answertest.Tickets{Texts: map[int]string{7: "It works now, thanks."}}
	var invoked []string
	record := func(next agent.ToolInvoker) agent.ToolInvoker {
		return func(ctx context.Context, tool *toolset.Tool, call *toolset.Call) (json.RawMessage, error) {
			invoked = append(invoked, tool.Name)
			return next(ctx, tool, call)
		}
	}
	h, err := agent.NewHost(&answertest.Desk{Mode: mode}, agent.Config{Client: m, Toolsets: []toolset.Source{tickets},
		ToolMiddleware: []agent.ToolMiddleware{record}})
	if err != nil {
		t.Fatal(err)
	}
	return h, &invoked
}

// TestAnswerWithTools: the model calls the agent's tools, then answers, in the same run; in tool mode the answer
// tool is offered beside the agent's, and a call of another tool beside the answer is not run.
func TestAnswerWithTools(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			is := is.New(t)
			m := chattest.NewScript(chattest.Calls(chattest.Call("c1", "get_ticket", `{"number":7}`)), answerReply(mode, goodVerdict))
			h, invoked := deskHost(t, m, mode)
			res, err := h.Run(context.Background(), agent.Text("Triage ticket 7."))
			is.NoErr(err)
			is.Equal(string(res.Answer), goodVerdict)
			is.Equal(*invoked, []string{"get_ticket"}) // the answer tool is never invoked
			reqs := m.Requests()
			is.Equal(len(reqs), 2)
			if mode == agent.AnswerTool {
				is.Equal(reqs[0].ToolNames(), []string{"get_ticket", agent.AnswerToolName})
			} else {
				is.Equal(reqs[0].ToolNames(), []string{"get_ticket"})
			}
			r := reqs[1].Messages[len(reqs[1].Messages)-1].Parts[0].(chat.ToolResult)
			is.True(strings.Contains(string(r.Result), "works now"))
		})
	}
	t.Run("beside", func(t *testing.T) {
		is := is.New(t)
		m := chattest.NewScript(chattest.Calls(chattest.Call("c1", "get_ticket", `{"number":7}`), chattest.Call(answerCallID, agent.AnswerToolName, goodVerdict)))
		h, invoked := deskHost(t, m, agent.AnswerTool)
		res, err := h.Run(context.Background(), agent.Text("Triage ticket 7."))
		is.NoErr(err)
		is.Equal(string(res.Answer), goodVerdict)
		is.Equal(len(m.Requests()), 1)
		is.Equal(len(*invoked), 0)
		results := res.New[len(res.New)-2]
		is.Equal(results.Parts[0].(chat.ToolResult).Error, "not run: the answer ended the run")
	})
}

// TestAnswerStreamed: RunStream yields the answer's partial values as its JSON streams, each one valid JSON that
// holds the fields complete so far and keeps those before it, then the accepted answer, Final.
func TestAnswerStreamed(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			is := is.New(t)
			m := chattest.NewScript(answerReply(mode, tooUrgent), answerReply(mode, assigned))
			m.SplitText(func(s string) []string { // a byte a delta
				out := make([]string, len(s))
				for i := range s {
					out[i] = s[i : i+1]
				}
				return out
			})
			h := triageHost(t, m, mode, 2, agent.Config{})
			var res agent.Result
			var partials []string
			var final []chat.AnswerUpdate
			for u, err := range h.RunStream(context.Background(), agent.Text("The database is down."), agent.ResultInto(&res)) {
				is.NoErr(err)
				if u.Answer == nil {
					continue
				}
				is.Equal(u.Answer.Type, "Verdict")
				if u.Answer.Final {
					final = append(final, *u.Answer)
					continue
				}
				is.True(json.Valid(u.Answer.Value))
				partials = append(partials, string(u.Answer.Value))
			}
			is.Equal(len(final), 1)
			is.Equal(string(final[0].Value), assigned)
			is.Equal(string(res.Answer), assigned)
			if mode == agent.AnswerTool {
				is.Equal(len(partials), 0) // a call's arguments arrive whole
				return
			}
			// Both attempts stream: the refused one's three complete fields, then the accepted one's four.
			is.Equal(partials, []string{
				`{"decision":"close"}`, `{"decision":"close","priority":9}`, tooUrgent,
				`{"decision":"escalate"}`, `{"decision":"escalate","priority":1}`,
				`{"decision":"escalate","priority":1,"reasons":["The database is down."]}`, assigned,
			})
		})
	}
}

// TestAnswerOfSubAgent: a sub-agent that answers with a type gives its caller the answer's JSON as the tool's
// result.
func TestAnswerOfSubAgent(t *testing.T) {
	is := is.New(t)
	sub := triageHost(t, chattest.NewScript(answerReply(agent.AnswerNative, goodVerdict)), agent.AnswerNative, 2, agent.Config{})
	m := chattest.NewScript(chattest.Calls(chattest.Call("c1", agent.AsTool(sub).Name, `{"task":"It works now."}`)), chattest.Text("Closed."))
	caller, err := agent.NewHost(&plain{}, agent.Config{Client: m, Tools: []toolset.Source{toolset.List{agent.AsTool(sub)}}})
	is.NoErr(err)
	res, err := caller.Run(context.Background(), agent.Text("Triage this."))
	is.NoErr(err)
	is.Equal(res.Answer, nil) // the caller answers with text
	r := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1].Parts[0].(chat.ToolResult)
	is.Equal(string(r.Result), goodVerdict)
}

// TestAnswerResumed: a stored conversation keeps each answer as its assistant message, and what sent a refused
// one back; its next run, resumed from the store and streamed, answers again. On the memory store and Postgres.
func TestAnswerResumed(t *testing.T) {
	stores(t, func(t *testing.T, store storage.Store) {
		for _, mode := range modes {
			is := is.New(t)
			m := chattest.NewScript(answerReply(mode, tooUrgent), answerReply(mode, goodVerdict), answerReply(mode, assigned))
			h := triageHost(t, m, mode, 2, agent.Config{Store: store})
			ctx := context.Background()
			id := "answered-" + string(mode)
			first, err := h.Run(ctx, agent.Text("It works now."), agent.SettingsID(tenant), agent.Conversation(id))
			is.NoErr(err)
			is.Equal(string(first.Answer), goodVerdict)
			var second agent.Result
			for _, err := range h.RunStream(ctx, agent.Text("Now the database is down."), agent.SettingsID(tenant), agent.Conversation(id), agent.ResultInto(&second)) {
				is.NoErr(err)
			}
			is.Equal(string(second.Answer), assigned)
			// The second run's request holds the first run's messages, the refused answer and its retry included.
			sent := m.Requests()[2].Messages
			is.Equal(len(sent), len(first.Messages)+1)
			is.True(strings.Contains(sent[len(first.Messages)-1].Text(), `"priority":4`))
			stored, err := h.LoadConversation(ctx, tenant, id)
			is.NoErr(err)
			checkHistory(t, stored.Messages)
			is.Equal(len(stored.Messages), len(second.Messages))
			last := stored.Messages[len(stored.Messages)-1]
			is.True(strings.Contains(last.Text(), `"assignee":"dba"`))
		}
	})
}

// misvalidated validates an answer of another type than the one it returns.
type misvalidated struct{ answertest.Triage }

func (a *misvalidated) Declare() {
	a.Triage.Declare()
	agent.ValidateAnswer(a, func(context.Context, string) error { return nil })
}

// TestAnswerValidatorOfAnotherType: a validator that does not take the answer type ends the run at the first
// answer: it is the code's mistake, which no retry of the model mends.
func TestAnswerValidatorOfAnotherType(t *testing.T) {
	is := is.New(t)
	m := chattest.NewScript(answerReply(agent.AnswerNative, goodVerdict))
	h, err := agent.NewHost(&misvalidated{answertest.Triage{Mode: agent.AnswerNative, Retries: 2}}, agent.Config{Client: m})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("It works now."))
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "takes string, but the answer is of type answertest.Verdict"))
	is.Equal(len(m.Requests()), 1)
}

// TestAnswerModeWithoutAnswerType: an agent that sets how it answers but declares no answer type is refused.
func TestAnswerModeWithoutAnswerType(t *testing.T) {
	is := is.New(t)
	_, err := agent.NewHost(&modeOnly{}, agent.Config{Client: chattest.NewScript()})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "declares none with agent.Returns"))
}

type modeOnly struct{ agent.Agent }

func (a *modeOnly) Declare() { a.WithAnswerMode(agent.AnswerTool) }
