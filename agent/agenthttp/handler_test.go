package agenthttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

func TestAgents(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New())

	resp := e.do(req{method: "GET", path: "/agents", token: tokenA})
	is.Equal(resp.status, http.StatusOK)
	var list struct {
		Agents []struct {
			Name           string `json:"name"`
			Description    string `json:"description"`
			SettingsKind   string `json:"settings_kind"`
			SettingsSchema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"settings_schema"`
			Tools []struct {
				Name             string          `json:"name"`
				InputSchema      json.RawMessage `json:"input_schema"`
				ReadOnly         bool            `json:"read_only"`
				RequiresApproval bool            `json:"requires_approval"`
			} `json:"tools"`
		} `json:"agents"`
	}
	resp.json(t, &list)
	is.Equal(len(list.Agents), 1)
	a := list.Agents[0]
	is.Equal(a.Name, "Desk")
	is.Equal(a.Description, "Answers questions about support tickets.")
	is.Equal(a.SettingsKind, "Desk")
	tools := map[string]int{}
	for i, tl := range a.Tools {
		tools[tl.Name] = i
		is.True(strings.Contains(string(tl.InputSchema), `"type"`))
	}
	is.Equal(len(tools), 3)
	is.True(a.Tools[tools["search_tickets"]].ReadOnly)
	is.True(!a.Tools[tools["search_tickets"]].RequiresApproval)
	is.True(a.Tools[tools["close_ticket"]].RequiresApproval)
	is.True(strings.Contains(string(a.SettingsSchema.Properties["tools"]), "search_tickets"))
	_, model := a.SettingsSchema.Properties["model"]
	is.True(model) // the chains made it configurable
	_, temp := a.SettingsSchema.Properties["temperature"]
	is.True(!temp) // they did not

	one := e.do(req{method: "GET", path: "/agents/Desk", token: tokenA})
	is.Equal(one.status, http.StatusOK)

	unknown := e.do(req{method: "GET", path: "/agents/Nobody", token: tokenA})
	is.Equal(unknown.status, http.StatusNotFound)
	is.Equal(unknown.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemUnknownAgent)

	anon := e.do(req{method: "GET", path: "/agents"})
	is.Equal(anon.status, http.StatusUnauthorized)
	is.Equal(anon.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemUnauthenticated)
	wrong := e.do(req{method: "GET", path: "/agents", token: "forged"})
	is.Equal(wrong.status, http.StatusUnauthorized)
}

func TestConversations(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)

		first := e.do(req{method: "POST", path: "/conversations", token: tokenA, body: map[string]any{"text": "hello"}})
		is.Equal(first.status, http.StatusCreated)
		var res runResult
		first.json(t, &res)
		is.Equal(res.Text, "You said: hello")
		is.Equal(first.header.Get("Location"), "conversations/"+res.ConversationID)
		is.True(res.Usage.TotalTokens > 0)
		id := res.ConversationID
		second := e.create(tokenA, "again")

		// The list is newest first, a page at a time.
		resp := e.do(req{method: "GET", path: "/conversations?limit=1", token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		var page struct {
			Conversations []struct {
				ID string `json:"id"`
			} `json:"conversations"`
			Next string `json:"next"`
		}
		resp.json(t, &page)
		is.Equal(len(page.Conversations), 1)
		is.Equal(page.Conversations[0].ID, second.ConversationID)
		is.True(page.Next != "")
		resp = e.do(req{method: "GET", path: "/conversations?limit=1&after=" + page.Next, token: tokenA})
		resp.json(t, &page)
		is.Equal(page.Conversations[0].ID, id)

		// A run that waits for approval, then its answer.
		resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "close 4711"}})
		is.Equal(resp.status, http.StatusOK)
		resp.json(t, &res)
		is.Equal(len(res.Pending), 1)
		is.Equal(res.Pending[0].Tool, "close_ticket")
		is.Equal(string(res.Pending[0].Arguments), `{"number":4711,"reason":"fixed"}`)
		var withParts struct {
			Messages []struct {
				Parts []struct {
					Type string `json:"type"`
					Call *struct {
						Type string `json:"type"`
						ID   string `json:"id"`
						Name string `json:"name"`
					} `json:"call"`
				} `json:"parts"`
			} `json:"messages"`
		}
		resp.json(t, &withParts)
		var requests int
		for _, m := range withParts.Messages {
			for _, p := range m.Parts {
				if p.Type == "approval_request" {
					requests++
					is.True(p.Call != nil)
					is.Equal(p.Call.Type, "tool_call") // the request's call is a part like any other, typed
					is.Equal(p.Call.ID, res.Pending[0].CallID)
				}
			}
		}
		is.Equal(requests, 1)

		resp = e.do(req{method: "GET", path: "/conversations/" + id, token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		var conv struct {
			ID      string `json:"id"`
			Mode    string `json:"mode"`
			Pending []struct {
				ID string `json:"id"`
			} `json:"pending"`
			Entries []struct {
				Seq  int64  `json:"seq"`
				Type string `json:"type"`
			} `json:"entries"`
		}
		resp.json(t, &conv)
		is.Equal(conv.ID, id)
		is.Equal(len(conv.Pending), 1)
		is.Equal(conv.Pending[0].ID, res.Pending[0].ID)
		is.True(len(conv.Entries) > 4)
		is.Equal(conv.Entries[0].Seq, int64(1))

		tk, _, _ := e.desk.Get(context.Background(), 4711)
		is.Equal(tk.Status, tickets.StatusOpen) // nothing runs before the answer

		resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
			body: map[string]any{"approvals": []map[string]any{{"request_id": res.Pending[0].ID, "approved": true}}}})
		is.Equal(resp.status, http.StatusOK)
		resp.json(t, &res)
		is.Equal(len(res.Pending), 0)
		is.True(strings.HasPrefix(res.Text, "Done"))
		tk, _, _ = e.desk.Get(context.Background(), 4711)
		is.Equal(tk.Status, tickets.StatusClosed)

		resp = e.do(req{method: "DELETE", path: "/conversations/" + id, token: tokenA})
		is.Equal(resp.status, http.StatusNoContent)
		resp = e.do(req{method: "GET", path: "/conversations/" + id, token: tokenA})
		is.Equal(resp.status, http.StatusNotFound)
		resp = e.do(req{method: "DELETE", path: "/conversations/" + id, token: tokenA})
		is.Equal(resp.status, http.StatusNotFound)
		resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "hi"}})
		is.Equal(resp.status, http.StatusNotFound) // runs continue conversations; POST /conversations starts them
	})
}

func TestApprovalAnswers(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s)
		run := func(id string, body map[string]any) response {
			return e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: body})
		}
		answer := func(a map[string]any) map[string]any { return map[string]any{"approvals": []map[string]any{a}} }
		pending := func(t *testing.T) (id, request string) {
			res := e.create(tokenA, "close 4711")
			if len(res.Pending) != 1 {
				t.Fatalf("pending: %+v", res)
			}
			return res.ConversationID, res.Pending[0].ID
		}
		closed := func() bool {
			tk, _, _ := e.desk.Get(context.Background(), 4711)
			return tk.Status == tickets.StatusClosed
		}

		t.Run("denied with a reason", func(t *testing.T) {
			is := is.New(t)
			id, rq := pending(t)
			resp := run(id, answer(map[string]any{"request_id": rq, "approved": false, "reason": "not yet"}))
			is.Equal(resp.status, http.StatusOK)
			var res runResult
			resp.json(t, &res)
			is.True(strings.Contains(res.Text, "not yet")) // the model read the reason
			is.True(!closed())
		})
		t.Run("unknown request", func(t *testing.T) {
			is := is.New(t)
			id, _ := pending(t)
			before := e.entries(tenantA, id)
			resp := run(id, answer(map[string]any{"request_id": "forged", "approved": true}))
			is.Equal(resp.status, http.StatusConflict)
			p := resp.problem(t)
			is.Equal(p.Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemApprovalUnknown)
			is.Equal(p.RequestID, "forged")
			is.True(!closed())
			is.Equal(e.entries(tenantA, id), before)
		})
		t.Run("answered twice", func(t *testing.T) {
			is := is.New(t)
			id, rq := pending(t)
			a := map[string]any{"request_id": rq, "approved": true}
			resp := run(id, map[string]any{"approvals": []map[string]any{a, a}})
			is.Equal(resp.status, http.StatusUnprocessableEntity)
			is.Equal(resp.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemApprovalAnsweredTwice)
			is.True(!closed())
		})
		t.Run("approved always, then replayed", func(t *testing.T) {
			is := is.New(t)
			id, rq := pending(t)
			resp := run(id, answer(map[string]any{"request_id": rq, "approved": true, "always": "tool"}))
			is.Equal(resp.status, http.StatusOK)
			is.True(closed())
			// The standing approval lets the next close run without asking.
			resp = run(id, map[string]any{"text": "close 4712"})
			var res runResult
			resp.json(t, &res)
			is.Equal(len(res.Pending), 0)
			tk, _, _ := e.desk.Get(context.Background(), 4712)
			is.Equal(tk.Status, tickets.StatusClosed)
			// The first answer again: its request is closed.
			resp = run(id, answer(map[string]any{"request_id": rq, "approved": true}))
			is.Equal(resp.status, http.StatusConflict)
			is.Equal(resp.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemApprovalClosed)
		})
	})
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, memory.New())
	id := e.create(tokenA, "hello").ConversationID
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, c := range []struct {
		name     string
		path     string
		body     any
		header   map[string]string
		status   int
		problem  string
		pointers []string
	}{
		{name: "malformed JSON", body: `{"text": "hi"`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "not an object", body: `["hi"]`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "unknown field", body: `{"text":"hi","tenant":"tenant-b"}`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "wrong type", body: `{"text":42}`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "two values", body: `{"text":"hi"}{"text":"again"}`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "empty body", body: ``, header: map[string]string{"Content-Type": "application/json"}, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "deeply nested", body: `{"text":` + deep + `}`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "form post", body: `text=hi`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, status: 415, problem: agenthttp.ProblemUnsupportedMediaType},
		{name: "text/plain", body: `{"text":"hi"}`, header: map[string]string{"Content-Type": "text/plain"}, status: 415, problem: agenthttp.ProblemUnsupportedMediaType},
		{name: "oversized", body: `{"text":"` + strings.Repeat("a", 70<<10) + `"}`, status: 413, problem: agenthttp.ProblemBodyTooLarge},
		{name: "nothing to send", body: `{}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{""}},
		{name: "auto mode", body: `{"text":"hi","mode":"auto"}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{"/mode"}},
		{name: "answer without id", body: `{"approvals":[{"approved":true}]}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{"/approvals/0/request_id"}},
		{name: "bad scope", body: `{"approvals":[{"request_id":"x","approved":true,"always":"forever"}]}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{"/approvals/0/always"}},
		{name: "standing denial", body: `{"approvals":[{"request_id":"x","always":"tool"}]}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{"/approvals/0/always"}},
		{name: "unknown agent", body: `{"text":"hi","agent":"Nobody"}`, status: 404, problem: agenthttp.ProblemUnknownAgent},
		{name: "unknown conversation", path: "/conversations/nope/runs", body: `{"text":"hi"}`, status: 404, problem: agenthttp.ProblemNotFound},
		{name: "steering without text", path: "/conversations/" + id + "/steering", body: `{}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{"/text"}},
		{name: "steering unknown field", path: "/conversations/" + id + "/steering", body: `{"text":"x","run":"y"}`, status: 400, problem: agenthttp.ProblemBadRequest},
		{name: "create with answers", path: "/conversations", body: `{"approvals":[{"request_id":"x","approved":true}]}`, status: 422, problem: agenthttp.ProblemValidation, pointers: []string{"/approvals"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			path := c.path
			if path == "" {
				path = "/conversations/" + id + "/runs"
			}
			before := e.entries(tenantA, id)
			resp := e.do(req{method: "POST", path: path, token: tokenA, body: c.body, header: c.header})
			is.Equal(resp.status, c.status)
			p := resp.problem(t)
			is.Equal(p.Type, agenthttp.ProblemTypePrefix+c.problem)
			is.Equal(p.Status, c.status)
			var got []string
			for _, f := range p.Errors {
				got = append(got, f.Pointer)
			}
			is.Equal(got, c.pointers)
			is.Equal(e.entries(tenantA, id), before) // nothing stored
		})
	}
	t.Run("list limit", func(t *testing.T) {
		is := is.New(t)
		resp := e.do(req{method: "GET", path: "/conversations?limit=0", token: tokenA})
		is.Equal(resp.status, http.StatusUnprocessableEntity)
		resp = e.do(req{method: "GET", path: "/conversations?limit=x", token: tokenA})
		is.Equal(resp.status, http.StatusUnprocessableEntity)
	})
	t.Run("unknown route", func(t *testing.T) {
		is := is.New(t)
		resp := e.do(req{method: "GET", path: "/nothing", token: tokenA})
		is.Equal(resp.status, http.StatusNotFound)
		is.Equal(resp.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemNotFound)
	})
}

// startWaiting starts a run that waits in its model call until the model is released, and returns when it is
// waiting; done receives its response.
func (e *env) startWaiting(id string, header map[string]string) (done chan response) {
	e.t.Helper()
	done = make(chan response, 1)
	go func() {
		done <- e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
			body: map[string]any{"text": "wait"}, header: header})
	}()
	select {
	case <-e.model.waiting:
	case <-time.After(10 * time.Second):
		e.t.Fatal("the run did not start")
	}
	return done
}

func TestBusyAndSteering(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		id := e.create(tokenA, "hello").ConversationID
		done := e.startWaiting(id, nil)

		second := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "hi"}})
		is.Equal(second.status, http.StatusConflict)
		is.Equal(second.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemConversationBusy)

		steer := e.do(req{method: "POST", path: "/conversations/" + id + "/steering", token: tokenA, body: map[string]any{"text": "only open ones"}})
		is.Equal(steer.status, http.StatusAccepted)
		close(e.model.release)
		first := <-done
		is.Equal(first.status, http.StatusOK)

		list, err := s.LoadAll(context.Background(), tenantA, id)
		is.NoErr(err)
		steered := false
		for _, en := range list {
			if en.Type == storage.EntrySteering && strings.Contains(string(en.Data), "only open ones") {
				steered = true
			}
		}
		is.True(steered) // the live run took the steering input in

		idle := e.do(req{method: "POST", path: "/conversations/" + id + "/steering", token: tokenA, body: map[string]any{"text": "late"}})
		is.Equal(idle.status, http.StatusConflict)
		is.Equal(idle.problem(t).Type, agenthttp.ProblemTypePrefix+agenthttp.ProblemNotRunning)
	})
}

func TestEventStream(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memory.New())
	id := e.create(tokenA, "hello").ConversationID
	sse := map[string]string{"Accept": "text/event-stream"}

	resp := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "search printer"}, header: sse})
	is.Equal(resp.status, http.StatusOK)
	is.Equal(resp.header.Get("Content-Type"), "text/event-stream")
	evs := events(t, resp.body)
	for i, ev := range evs {
		is.Equal(ev.id, strconv.Itoa(i+1))
	}
	is.True(strings.Contains(strings.Join(names(evs), ","), "usage"))
	evs = without(evs, "usage") // usage comes with each model call, before the calls the tool loop holds
	got := names(evs)
	is.Equal(got[0], "tool_call")
	is.Equal(got[1], "tool_result")
	is.Equal(got[2], "text")
	is.Equal(got[len(got)-1], "end")
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	is.NoErr(json.Unmarshal([]byte(evs[0].data), &call))
	is.Equal(call.Name, "search_tickets")
	is.Equal(string(call.Arguments), `{"query":"printer"}`)

	resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA, body: map[string]any{"text": "close 4711"}, header: sse})
	evs = without(events(t, resp.body), "usage")
	got = names(evs)
	is.Equal(got[0], "approval_request")
	var end struct {
		Pending []struct {
			ID string `json:"id"`
		} `json:"pending"`
	}
	is.NoErr(json.Unmarshal([]byte(evs[len(evs)-1].data), &end))
	is.Equal(len(end.Pending), 1)

	// Plan mode, then a refused run: the problem answers with its status, since nothing was sent yet.
	resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
		body: map[string]any{"approvals": []map[string]any{{"request_id": "forged", "approved": true}}}, header: sse})
	is.Equal(resp.status, http.StatusConflict)
	resp.problem(t)
	resp = e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
		body: map[string]any{"text": "hello", "mode": agent.ModePlan}, header: sse})
	evs = events(t, resp.body)
	got = names(evs)
	is.Equal(got[len(got)-2], "mode")
	is.Equal(evs[len(evs)-2].data, `{"mode":"plan"}`)
}

// without returns the events not named name.
func without(evs []event, name string) []event {
	var out []event
	for _, e := range evs {
		if e.name != name {
			out = append(out, e)
		}
	}
	return out
}

// TestEventStreamSteeringAndReasoning checks the native stream's steering and reasoning events: steering input
// the run took in shows where the stored conversation holds it (after the tool's result, before the answer that
// read it), on the run's stream and on a watch; reasoning streams its text, never its signature.
func TestEventStreamSteeringAndReasoning(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		id := e.create(tokenA, "hello").ConversationID
		lines, _ := e.watch(id, nil)
		sse := map[string]string{"Accept": "text/event-stream"}
		done := e.startWaiting(id, sse)
		steer := e.do(req{method: "POST", path: "/conversations/" + id + "/steering", token: tokenA, body: map[string]any{"text": "only open ones"}})
		is.Equal(steer.status, http.StatusAccepted)
		close(e.model.release)
		run := <-done
		is.Equal(run.status, http.StatusOK)
		evs := without(events(t, run.body), "usage")
		is.Equal(squeeze(names(evs)), []string{"tool_call", "tool_result", "steering", "text", "end"})
		is.Equal(evs[2].data, `{"text":"only open ones"}`)
		is.Equal(deltas(t, evs, "text"), "You said: only open ones")

		var watched strings.Builder
		for !slices.Contains(names(events(t, []byte(watched.String()))), "run_end") {
			select {
			case l := <-lines:
				watched.WriteString(l)
			case <-time.After(10 * time.Second):
				t.Fatalf("the watch saw no run_end: %s", watched.String())
			}
		}
		got := squeeze(names(without(events(t, []byte(watched.String())), "usage")))
		is.Equal(got, []string{"tool_call", "tool_result", "steering", "text", "run_end"})
		is.True(strings.Contains(watched.String(), `{"text":"only open ones"}`))

		think := e.do(req{method: "POST", path: "/conversations/" + id + "/runs", token: tokenA,
			body: map[string]any{"text": "think about the printer"}, header: sse})
		evs = without(events(t, think.body), "usage")
		is.Equal(squeeze(names(evs)), []string{"reasoning", "text", "end"})
		is.Equal(deltas(t, evs, "reasoning"), "The printer needs toner.")
		is.Equal(deltas(t, evs, "text"), "Order toner for floor 3.")
		for _, ev := range evs {
			if ev.name == "reasoning" {
				is.Equal(strings.Contains(ev.data, "sig-think"), false) // the signature is the provider's
			}
		}
	})
}

// squeeze returns names with each run of one name kept once: a text streams as many deltas.
func squeeze(names []string) []string {
	var out []string
	for _, n := range names {
		if len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	}
	return out
}

// deltas joins the deltas of the events named name.
func deltas(t *testing.T, evs []event, name string) string {
	t.Helper()
	var sb strings.Builder
	for _, ev := range evs {
		if ev.name != name {
			continue
		}
		var d struct {
			Delta string `json:"delta"`
		}
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			t.Fatal(err)
		}
		sb.WriteString(d.Delta)
	}
	return sb.String()
}
