package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// These tests build one stage of a run alone, from the parts pipeline.go would give it, over a scripted model in
// the place of the stages below it.

type bare struct{ Agent }

func (b *bare) Declare() {}

// stageHost is a host whose config the stages read (rules, the request key, the invoker); its client is never
// called by these tests.
func stageHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	if cfg.Client == nil {
		cfg.Client = chattest.NewScript()
	}
	h, err := NewHost(&bare{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// stageParts builds the parts a run's stages share, as prepare and stages do.
func stageParts(h *Host, limit int) *runState {
	st := &runState{}
	ri := st.ask.begin(h)
	SettingsID("t")(ri)
	st.session.start(toolset.Run{SettingsID: "t", RunID: "r", Agent: h.decl.Name}, nil)
	st.ask.resolved.limits = limits{maxIterations: limit, maxRetries: 3, maxConsecutiveErrors: 3}
	st.rounds = newRounds(&st.ask.resolved.limits)
	st.stages.tools = toolRunner{h: h, session: &st.session, usage: &st.usage}
	return st
}

func echoTool(name string, requiresApproval bool) *toolset.Tool {
	return &toolset.Tool{Name: name, Schema: json.RawMessage(`{"type":"object"}`), RequiresApproval: requiresApproval,
		Invoke: func(_ context.Context, c *toolset.Call) (json.RawMessage, error) { return c.Arguments, nil }}
}

func TestToolLoopAlone(t *testing.T) {
	is := is.New(t)
	h := stageHost(t, Config{})
	st := stageParts(h, 3)
	model := chattest.NewScript(chattest.Calls(chattest.Call("c1", "echo", `{"a":1}`)), chattest.Text("done"))
	loop := toolLoop{next: model, ask: &st.ask, rounds: &st.rounds, usage: &st.usage, session: &st.session,
		shown: &st.shown, tools: &st.stages.tools}
	opts := &chat.Options{Tools: []*toolset.Tool{echoTool("echo", false)}}

	resp, err := loop.Respond(context.Background(), []chat.Message{chat.UserText("go")}, opts)
	is.NoErr(err)
	is.Equal(len(resp.Messages), 3) // the call, its result, the answer
	is.Equal(results(resp.Messages)["c1"].Result, json.RawMessage(`{"a":1}`))
	is.Equal(resp.Messages[2].Text(), "done")
	is.Equal(st.rounds.remaining, 1) // two model calls spent of three
	is.Equal(len(model.Requests()), 2)

	// The last model call offers no tools, and a call made on it is answered, not run.
	st = stageParts(h, 1)
	model = chattest.NewScript(chattest.Calls(chattest.Call("c2", "echo", `{}`)))
	loop = toolLoop{next: model, ask: &st.ask, rounds: &st.rounds, usage: &st.usage, session: &st.session,
		shown: &st.shown, tools: &st.stages.tools}
	resp, err = loop.Respond(context.Background(), []chat.Message{chat.UserText("go")}, opts)
	is.NoErr(err)
	is.Equal(len(model.Requests()[0].Options.Tools), 0)
	is.Equal(results(resp.Messages)["c2"].Error, iterationLimitText)
	is.Equal(st.rounds.remaining, 0)
}

func TestApprovalStageAlone(t *testing.T) {
	closeTool := echoTool("close", true)
	tests := []struct {
		name    string
		rules   []Rule
		calls   int // model calls (passes of the stage below)
		pending int
		result  string // what the model reads of the call, when the stage decided it
	}{
		{"a rule allows: the call runs and another pass starts", []Rule{AllowTool("close")}, 2, 0, `{"n":1}`},
		{"a rule denies: the call is rejected and another pass starts", []Rule{DenyTool("close")}, 2, 0, deniedText},
		{"nobody decides: the request is left pending", nil, 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			h := stageHost(t, Config{Rules: tt.rules})
			st := stageParts(h, 5)
			call := chattest.Call("c1", "close", `{"n":1}`)
			// The stage below (the tool loop) shows the call as a request, as it does for a tool needing approval.
			asks := &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{h.newRequest(call, "close")}}}}
			model := chattest.NewScript(asks, chattest.Text("done"))
			a := approvals{next: model, ask: &st.ask, session: &st.session, rounds: &st.rounds, shown: &st.shown,
				tools: &st.stages.tools}

			resp, err := a.Respond(context.Background(), []chat.Message{chat.UserText("close it")}, &chat.Options{Tools: []*toolset.Tool{closeTool}})
			is.NoErr(err)
			is.Equal(len(model.Requests()), tt.calls)
			is.Equal(len(st.session.pending), tt.pending)
			is.Equal(len(st.shown.visible), 1) // the tools it was given, for the tool loop
			if tt.result == "" {
				return
			}
			r := results(resp.Messages)["c1"]
			is.Equal(string(r.Result)+r.Error, tt.result)
			// The second pass reads the call and its result, without the request.
			second := model.Requests()[1].Messages
			is.True(!hasApprovalParts(second))
			is.Equal(string(results(second)["c1"].Result)+results(second)["c1"].Error, tt.result)
		})
	}
}

func TestContextStageAlone(t *testing.T) {
	is := is.New(t)
	sess := &session{run: toolset.Run{SettingsID: "t"}}
	extra := echoTool("lookup", false)
	var saw toolset.Run
	provider := ContextFunc(func(_ context.Context, r *toolset.Run, msgs []chat.Message) (Context, error) {
		saw = *r
		r.Mode = "plan" // the provider's copy: the run's mode stays
		return Context{Instructions: "The user prefers French.", Messages: []chat.Message{chat.UserText("a document")},
			Tools: []*toolset.Tool{extra}}, nil
	})
	model := chattest.NewScript(chattest.Text("ok"))
	c := &contextClient{next: model, session: sess, providers: []ContextProvider{provider}}
	opts := &chat.Options{Instructions: "Be brief.", Tools: []*toolset.Tool{echoTool("echo", false)}}

	_, err := c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, opts)
	is.NoErr(err)
	is.Equal(saw, sess.run) // the provider sees a copy of the run
	is.Equal(sess.mode(), "")
	req := model.Requests()[0]
	is.Equal(req.Options.Instructions, "Be brief.\n\nThe user prefers French.")
	is.Equal(len(req.Options.Tools), 2)
	is.Equal(req.Messages[0].Text(), "a document") // before the conversation
	is.Equal(req.Messages[1].Text(), "hi")
	is.Equal(opts.Instructions, "Be brief.") // the caller's options stay as they were
	is.Equal(len(opts.Tools), 1)

	// A provider offering a tool the run offers already fails the pass before any model call.
	c = &contextClient{next: model, session: sess, providers: []ContextProvider{ContextFunc(func(context.Context, *toolset.Run, []chat.Message) (Context, error) {
		return Context{Tools: []*toolset.Tool{echoTool("echo", false)}}, nil
	})}}
	_, err = c.Respond(context.Background(), nil, opts)
	is.True(err != nil)
	is.Equal(len(model.Requests()), 1)
}

func TestCheckpointAlone(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	store := memory.New()
	h := stageHost(t, Config{Store: store})
	st := stageParts(h, 5)
	Conversation("c1")(&st.ask.input)
	c, _, _, err := h.claimConversation(ctx, st, h.leaseTTL(), nil)
	is.NoErr(err)
	input := []chat.Message{chat.UserText("go")}
	c.journal.open(input, input)
	ctx, err = c.begin(ctx)
	is.NoErr(err)
	model := chattest.NewScript(chattest.Calls(chattest.Call("c1", "echo", `{}`)), chattest.Text("done"), chattest.Text("lost"))
	cp := &checkpoint{next: model, conv: c}

	// The first call stores the run's start and input before the model is called, and queues its response.
	resp, err := cp.Respond(ctx, input, &chat.Options{})
	is.NoErr(err)
	entries, err := store.Load(ctx, "t", "c1")
	is.NoErr(err)
	is.Equal(entryTypes(entries), []storage.EntryType{storage.EntryRunStart, storage.EntryInput})

	// The next stores that response with the tool results that answer it, before the model is called.
	msgs := append(append(input, resp.Messages...), chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "c1", Result: json.RawMessage(`{}`)}}})
	_, err = cp.Respond(ctx, msgs, &chat.Options{})
	is.NoErr(err)
	entries, err = store.Load(ctx, "t", "c1")
	is.NoErr(err)
	is.Equal(entryTypes(entries)[2:], []storage.EntryType{storage.EntryResponse, storage.EntryToolResults})
	is.Equal(entries[2].Author, h.decl.Name) // stamped with the run's agent

	// A step that cannot be stored ends the run: here, the claim is lost.
	c.lose(errors.New("lost"))
	_, err = cp.Respond(ctx, append(msgs, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "c9"}}}), &chat.Options{})
	is.True(err != nil)
	is.Equal(model.Remaining(), 1) // the model was not called
	_ = c.close()
}

func entryTypes(entries []storage.Entry) []storage.EntryType {
	out := make([]storage.EntryType, len(entries))
	for i, e := range entries {
		out[i] = e.Type
	}
	return out
}

func results(msgs []chat.Message) map[string]chat.ToolResult {
	out := map[string]chat.ToolResult{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				out[r.CallID] = r
			}
		}
	}
	return out
}
