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
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

const tenant = "tenant-1"

// pgStore returns a Postgres store on a fresh, migrated schema, and a function that opens another store, with a
// pool of its own, on the same schema: another process, as far as the database can tell.
func pgStore(t testing.TB) (*postgres.Store, func() *postgres.Store) {
	t.Helper()
	_, cfg := pgtest.Schema(t)
	open := func() (*postgres.Store, *pgxpool.Pool) {
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
		if err != nil {
			t.Fatalf("opening a pool: %v", err)
		}
		t.Cleanup(pool.Close)
		if _, err := postgres.Migrate(context.Background(), pool); err != nil {
			t.Fatalf("migrating: %v", err)
		}
		s := newPostgresStore(t, pool)
		t.Cleanup(s.Close)
		return s, pool
	}
	first, _ := open()
	return first, func() *postgres.Store { s, _ := open(); return s }
}

// stores runs f against the memory store and against Postgres.
func stores(t *testing.T, f func(t *testing.T, s storage.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, memory.New()) })
	t.Run("postgres", func(t *testing.T) {
		s, _ := pgStore(t)
		f(t, s)
	})
}

// checkHistory fails when msgs is not a history a provider accepts: a call without its result, a result without
// its call, a call ID twice, or an approval part.
func checkHistory(t *testing.T, msgs []chat.Message) {
	t.Helper()
	calls := map[string]int{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				if _, dup := calls[p.ID]; dup {
					t.Fatalf("call %s twice in %v", p.ID, msgs)
				}
				calls[p.ID] = 0
			case chat.ToolResult:
				n, ok := calls[p.CallID]
				if !ok {
					t.Fatalf("result of %s without its call", p.CallID)
				}
				calls[p.CallID] = n + 1
			case chat.ApprovalRequest, chat.ApprovalAnswer:
				t.Fatalf("approval part %#v sent to the provider", p)
			}
		}
	}
	for id, n := range calls {
		if n != 1 {
			t.Fatalf("call %s has %d results", id, n)
		}
	}
}

func compact(b json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

func types(entries []storage.Entry) string {
	var ts []string
	for _, e := range entries {
		ts = append(ts, string(e.Type))
	}
	return strings.Join(ts, ",")
}

func TestConversationHistory(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		m := script(call(tc("1", "search", `{"q":"a"}`)), say("found a"), say("you said b"))
		h := host(m, agent.Config{Store: s}, echo("search"))
		res, err := h.Run(ctx, agent.Text("look for a"), agent.SettingsID(tenant), agent.Conversation("c1"))
		is.NoErr(err)
		is.Equal(res.Text(), "found a")
		res, err = h.Run(ctx, agent.Text("b"), agent.SettingsID(tenant), agent.Conversation("c1"))
		is.NoErr(err)
		is.Equal(res.Text(), "you said b")
		// The second run's model call saw the first run whole, then the input.
		seen := m.Requests()[2].Messages
		checkHistory(t, seen)
		is.Equal(len(seen), 5) // user, call, result, answer, user
		is.Equal(seen[0].Text(), "look for a")
		is.Equal(seen[3].Text(), "found a")
		is.Equal(seen[4].Text(), "b")
		is.Equal(len(res.Messages), 6)
		is.Equal(len(res.New), 1)

		all, err := s.LoadAll(ctx, tenant, "c1")
		is.NoErr(err)
		is.Equal(types(all), "run_start,input,response,tool_results,response,run_end,run_start,input,response,run_end")
		for _, e := range all {
			is.True(e.RunID != "")
			is.Equal(e.Agent, "tester")
		}
	})
}

func TestConversationNeeds(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	_, err := host(script(say("x")), agent.Config{}).Run(ctx, agent.Text("x"), agent.SettingsID(tenant), agent.Conversation("c"))
	is.True(errors.Is(err, agent.ErrNoStore))
	h := host(script(say("x")), agent.Config{Store: memory.New()})
	_, err = h.Run(ctx, agent.Text("x"), agent.Conversation("c"))
	is.True(errors.Is(err, agent.ErrNoSettingsID))
	_, err = h.Run(ctx, agent.Messages([]chat.Message{chat.UserText("old")}), agent.SettingsID(tenant), agent.Conversation("c"))
	is.True(errors.Is(err, agent.ErrHistoryWithConversation))
}

func TestConversationStoredSettings(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	_, err := s.PutSettings(ctx, storage.Document{SettingsID: tenant, Kind: "tester", SchemaVersion: 1,
		Data: json.RawMessage(`{"max_iterations":1}`)}, 0)
	is.NoErr(err)
	m := script(call(tc("1", "search", `{}`)), say("never"))
	h := host(m, agent.Config{Store: s}, echo("search"))
	_, err = h.Run(ctx, agent.Text("x"), agent.SettingsID(tenant), agent.Conversation("c"))
	is.NoErr(err)
	is.Equal(len(m.Requests()), 1) // the stored max_iterations of 1 applied
}

func TestConversationApprovals(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		var runs atomic.Int32
		conv := []agent.RunOption{agent.SettingsID(tenant), agent.Conversation("c-approve")}
		run := func(m *chattest.Script, opts ...agent.RunOption) (*agent.Result, error) {
			return host(m, agent.Config{Store: s}, echo("search"), closer(&runs)).Run(ctx, append(opts, conv...)...)
		}
		res, err := run(script(call(tc("1", "search", `{"q":"x"}`), tc("2", "close_ticket", `{"number":4711}`))), agent.Text("close 4711"))
		is.NoErr(err)
		is.Equal(len(res.Pending), 1)
		id := res.Pending[0].ID

		// A forged id and an id of no request are refused before anything is stored.
		before, _ := s.LoadAll(ctx, tenant, "c-approve")
		_, err = run(script(say("never")), agent.Approve("approval_forged"))
		var ae *agent.ApprovalError
		is.True(errors.As(err, &ae))
		is.Equal(ae.Reason, agent.ApprovalUnknown)
		after, _ := s.LoadAll(ctx, tenant, "c-approve")
		is.Equal(len(after), len(before))

		// The answer alone binds to the request the stored conversation holds.
		m := script(say("closed"))
		_, err = run(m, agent.ApproveAlways(id, chat.ForTool))
		is.NoErr(err)
		is.Equal(runs.Load(), int32(1))
		checkHistory(t, m.Requests()[0].Messages)
		is.Equal(compact(lastResults(m)["2"].Result), `{"number":4711}`) // Postgres keeps JSONB: spacing may change

		// Answering it again is an answer to a closed request.
		_, err = run(script(say("never")), agent.Approve(id))
		is.True(errors.As(err, &ae))
		is.Equal(ae.Reason, agent.ApprovalClosed)

		// The standing approval carries over: the next call of the tool runs without asking.
		m = script(call(tc("3", "close_ticket", `{"number":1}`)), say("closed 1"))
		res, err = run(m, agent.Text("close 1 too"))
		is.NoErr(err)
		is.Equal(len(res.Pending), 0)
		is.Equal(runs.Load(), int32(2))
		checkHistory(t, m.Requests()[1].Messages)

		// The mode carries over too.
		_, err = run(script(say("planning")), agent.Text("plan"), agent.Mode(agent.ModePlan))
		is.NoErr(err)
		m = script(say("still planning"))
		res, err = run(m, agent.Text("go on"))
		is.NoErr(err)
		is.Equal(res.Mode, agent.ModePlan)
		is.True(strings.Contains(m.Requests()[0].Options.Instructions, "plan mode"))
		checkHistory(t, m.Requests()[0].Messages)
	})
}

func TestConversationBusy(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	started, release := make(chan struct{}), make(chan struct{})
	slow := script(func([]chat.Message, *chat.Options) (*chat.Response, error) {
		close(started)
		<-release
		return say("slow")(nil, nil)
	})
	h := host(slow, agent.Config{Store: s})
	done := make(chan error)
	go func() {
		_, err := h.Run(ctx, agent.Text("1"), agent.SettingsID(tenant), agent.Conversation("c"))
		done <- err
	}()
	<-started
	_, err := host(script(say("never")), agent.Config{Store: s}).Run(ctx, agent.Text("2"), agent.SettingsID(tenant), agent.Conversation("c"))
	is.True(errors.Is(err, storage.ErrConversationBusy))
	var ce *agent.ConversationError
	is.True(errors.As(err, &ce))
	is.Equal(ce.ConversationID, "c")
	close(release)
	is.NoErr(<-done)
	// Released at the end: the next run goes ahead.
	_, err = host(script(say("next")), agent.Config{Store: s}).Run(ctx, agent.Text("3"), agent.SettingsID(tenant), agent.Conversation("c"))
	is.NoErr(err)
}

// TestConversationLeaseLost: a run whose lease is taken over stops instead of writing over the new owner.
func TestConversationLeaseLost(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	s := memory.NewWithOptions(&memory.Options{Now: func() time.Time { return time.Unix(0, now.Load()) }})
	m := script(
		func([]chat.Message, *chat.Options) (*chat.Response, error) {
			now.Add(int64(time.Hour)) // the lease expires, and another run takes the conversation
			_, err := s.Claim(ctx, tenant, "c", "other", time.Hour)
			is.NoErr(err)
			return say("late")(nil, nil)
		})
	_, err := host(m, agent.Config{Store: s, LeaseTTL: time.Minute}).Run(ctx, agent.Text("x"), agent.SettingsID(tenant), agent.Conversation("c"))
	is.True(errors.Is(err, storage.ErrClaimLost))
	is.True(strings.Contains(err.Error(), `conversation "c"`))
}

func TestConversationCorruptEntries(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		ctx := context.Background()
		tests := []struct{ name, typ, data string }{
			{"response that is not messages", "response", `{"not":"messages"}`},
			{"unknown part", "tool_results", `[{"role":"tool","parts":[{"type":"hologram"}]}]`},
			{"run end of another shape", "run_end", `[1,2]`},
		}
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				id := fmt.Sprintf("corrupt-%d", i)
				c, err := s.Claim(ctx, tenant, id, "test", time.Minute)
				is.NoErr(err)
				_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryInput, Data: json.RawMessage(`[]`)},
					storage.Entry{Type: storage.EntryType(tt.typ), Data: json.RawMessage(tt.data)})
				is.NoErr(err)
				is.NoErr(s.Release(ctx, c))
				m := script(say("never"))
				_, err = host(m, agent.Config{Store: s}).Run(ctx, agent.Text("x"), agent.SettingsID(tenant), agent.Conversation(id))
				var ce *storage.CorruptEntryError
				is.True(errors.As(err, &ce))
				is.Equal(ce.ConversationID, id)
				is.Equal(ce.Seq, int64(2))
				is.True(strings.Contains(err.Error(), id))
				is.Equal(len(m.Requests()), 0)
				// The conversation is free again: the failed run released it.
				c, err = s.Claim(ctx, tenant, id, "test", time.Minute)
				is.NoErr(err)
				is.NoErr(s.Release(ctx, c))
			})
		}
	})
}

// summarizing is an Inner middleware that, on its call number at, records a summary of everything before the
// last two messages, as compaction's OnSummary would.
func summarizing(at int) chat.Middleware {
	n := 0
	return func(next chat.Client) chat.Client {
		return chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
			n++
			if n == at {
				agent.StoreSummary(ctx, chat.UserText("Summary of the conversation so far: they asked about a."), len(msgs)-2)
			}
			return next.Respond(ctx, msgs, opts)
		})
	}
}

func TestConversationSummary(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		conv := []agent.RunOption{agent.SettingsID(tenant), agent.Conversation("c-sum")}
		m := script(say("one"), call(tc("1", "search", `{"q":"a"}`)), say("found a"), say("three"))
		h := host(m, agent.Config{Store: s, Inner: []chat.Middleware{summarizing(3)}}, echo("search"))
		_, err := h.Run(ctx, append(conv, agent.Text("first"), agent.Mode(agent.ModeAuto))...)
		is.NoErr(err)
		_, err = h.Run(ctx, append(conv, agent.Text("look for a"))...)
		is.NoErr(err)
		res, err := h.Run(ctx, append(conv, agent.Text("third"))...)
		is.NoErr(err)
		is.Equal(res.Mode, agent.ModeAuto) // the mode came from the summary or the run end after it
		seen := m.Requests()[3].Messages
		checkHistory(t, seen)
		// The summary, the two messages it kept (the call and its result), the answer, the input.
		is.Equal(len(seen), 5)
		is.True(strings.HasPrefix(seen[0].Text(), "Summary of the conversation so far"))
		is.Equal(len(seen[1].ToolCalls()), 1)
		is.Equal(seen[3].Text(), "found a")
		is.Equal(seen[4].Text(), "third")
	})
}

func TestConversationSpan(t *testing.T) {
	is := is.New(t)
	in, rec, _ := newTelemetry(t)
	h := host(script(say("ok")), agent.Config{Telemetry: in, Store: memory.New()})
	_, err := h.Run(context.Background(), agent.Text("x"), agent.SettingsID(tenant), agent.Conversation("c-span"))
	is.NoErr(err)
	spans := rec.Ended()
	run := spans[len(spans)-1]
	is.Equal(run.Name(), "invoke_agent tester")
	is.Equal(attr(run, "gen_ai.conversation.id").AsString(), "c-span")
}

// TestConversationStreamApprovals: a streaming run stores its pending requests as a plain run does, and the next
// streaming run binds the answer to them.
func TestConversationStreamApprovals(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		var runs atomic.Int32
		conv := []agent.RunOption{agent.SettingsID(tenant), agent.Conversation("c-stream")}
		stream := func(m *chattest.Script, opts ...agent.RunOption) agent.Result {
			var res agent.Result
			h := host(m, agent.Config{Store: s}, echo("search"), closer(&runs))
			for _, err := range h.RunStream(ctx, append(append(opts, conv...), agent.ResultInto(&res))...) {
				is.NoErr(err)
			}
			return res
		}
		res := stream(script(call(tc("1", "search", `{"q":"x"}`), tc("2", "close_ticket", `{"number":4711}`))), agent.Text("close 4711"))
		is.Equal(len(res.Pending), 1)
		all, err := s.LoadAll(ctx, tenant, "c-stream")
		is.NoErr(err)
		is.Equal(types(all), "run_start,input,response,tool_results,approval_requests,run_end")

		m := script(say("closed"))
		res = stream(m, agent.Approve(res.Pending[0].ID))
		is.Equal(res.Text(), "closed")
		is.Equal(runs.Load(), int32(1))
		checkHistory(t, m.Requests()[0].Messages)
		is.Equal(len(results(m.Requests()[0].Messages)), 2) // the search's result from the first run, and the closing's
	})
}
