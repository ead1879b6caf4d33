package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"
	oaoption "github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
	"github.com/typeshift-go/typeshift/toolset"
)

// Desk answers on Claude; Billing on GPT.
type Desk struct{ agent.Agent }

func (a *Desk) Declare() {
	a.WithName("Desk")
	a.WithInstructions("You answer questions about support tickets.")
	a.WithModel(anthropic.ProviderName, "claude-sonnet-4-5")
}

type Billing struct{ agent.Agent }

func (a *Billing) Declare() {
	a.WithName("Billing")
	a.WithInstructions("You answer questions about invoices.")
	a.WithModel(openai.ProviderName, "gpt-4.1-mini")
}

// messagesServer answers Messages API requests with the given messages in turn and keeps the requests' bodies.
type messagesServer struct {
	*httptest.Server
	mu      sync.Mutex
	answers []string
	bodies  []string
}

func newMessagesServer(t *testing.T, answers ...string) *messagesServer {
	s := &messagesServer{answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n >= len(s.answers) {
			w.WriteHeader(500)
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"no more answers"}}`)
			return
		}
		_, _ = io.WriteString(w, s.answers[n])
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *messagesServer) request(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.bodies) {
		return ""
	}
	return s.bodies[i]
}

func claudeMessage(id, stop string, content ...string) string {
	return `{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[` +
		strings.Join(content, ",") + `],"stop_reason":"` + stop + `","stop_sequence":null,` +
		`"usage":{"input_tokens":300,"output_tokens":80,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens_details":{"thinking_tokens":40}}}`
}

// process is one instance of the program: its own pool on the shared database, its own providers and hosts.
func process(t *testing.T, cfg *pgxpool.Config, claudeURL, gptURL string) *agent.Host {
	t.Helper()
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store, err := postgres.New(context.Background(), pool, &postgres.Options{Direct: pgtest.DirectOf(t, pool)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	providers := chat.NewProviders(nil)
	anthropic.Register(providers, option.WithoutEnvironmentDefaults(), option.WithBaseURL(claudeURL), option.WithAPIKey(testKey))
	openai.Register(providers, oaoption.WithBaseURL(gptURL), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
	getTicket := &toolset.Tool{Name: "get_ticket", Description: "Reads a ticket.", ID: "test.get_ticket",
		Schema: json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"}},"required":["number"]}`),
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"number":4711,"status":"open","invoice":12}`), nil
		},
		State: &toolset.State{}}
	billing, err := agent.NewHost(&Billing{}, agent.Config{Providers: providers, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	desk, err := agent.NewHost(&Desk{}, agent.Config{Providers: providers, Store: store,
		Tools:    []toolset.Source{toolset.List([]*toolset.Tool{getTicket})},
		Handoffs: []agent.Handoff{{To: billing, Description: "Hands invoices to billing."}}})
	if err != nil {
		t.Fatal(err)
	}
	return desk
}

// TestClaudeConversationResumesAndHandsOff is a conversation on Claude with extended thinking and a tool call,
// stored in Postgres, continued by another instance with Claude's signatures intact, then handed off to an agent
// on GPT, which goes on without seeing Claude's reasoning.
func TestClaudeConversationResumesAndHandsOff(t *testing.T) {
	is := is.New(t)
	_, cfg := pgtest.Schema(t)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg.Copy())
	is.NoErr(err)
	_, err = postgres.Migrate(context.Background(), pool)
	is.NoErr(err)
	pool.Close()

	claude := newMessagesServer(t,
		claudeMessage("msg_1", "tool_use",
			`{"type":"thinking","thinking":"I should read ticket 4711.","signature":"sig-A-EqQBCkYIBxgC"}`,
			`{"type":"redacted_thinking","data":"red-A-EmwKAhgBEgy3va3pzix"}`,
			`{"type":"tool_use","id":"toolu_01","name":"get_ticket","input":{"number":4711}}`),
		claudeMessage("msg_2", "end_turn", `{"type":"text","text":"Ticket 4711 is open; its invoice is 12."}`),
		claudeMessage("msg_3", "tool_use",
			`{"type":"thinking","thinking":"Invoices are billing's.","signature":"sig-B-ErUBCkYIAxgC"}`,
			`{"type":"tool_use","id":"toolu_02","name":"handoff_to_billing","input":{"reason":"a question about invoice 12"}}`),
	)
	gpt := openaitest.NewServer(openaitest.Reply{Text: "Invoice 12 was paid on 3 March."}, openaitest.Reply{Text: "Invoice 13 is open."})
	t.Cleanup(gpt.Close)
	conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("conv-1")}
	ctx := context.Background()

	// The first instance: Claude thinks, calls the tool, and answers after the result.
	first := process(t, cfg, claude.URL, gpt.URL)
	res, err := first.Run(ctx, append(conv, agent.Text("Is ticket 4711 open?"))...)
	is.NoErr(err)
	is.Equal(res.Text(), "Ticket 4711 is open; its invoice is 12.")
	second := claude.request(1)
	is.True(strings.Contains(second, `"signature":"sig-A-EqQBCkYIBxgC"`)) // the thinking went back with the result
	is.True(strings.Contains(second, `"data":"red-A-EmwKAhgBEgy3va3pzix"`))
	is.True(strings.Index(second, "sig-A") < strings.Index(second, `"tool_use_id":"toolu_01"`))

	// Another instance continues the stored conversation: Claude reads its own thinking back, signed.
	next := process(t, cfg, claude.URL, gpt.URL)
	res, err = next.Run(ctx, append(conv, agent.Text("Was invoice 12 paid?"))...)
	is.NoErr(err) // handed off to GPT, the run goes on
	is.Equal(res.Agent, "Billing")
	is.Equal(res.Text(), "Invoice 12 was paid on 3 March.")
	third := claude.request(2)
	for _, want := range []string{`"signature":"sig-A-EqQBCkYIBxgC"`, `"thinking":"I should read ticket 4711."`, `"data":"red-A-EmwKAhgBEgy3va3pzix"`, "Ticket 4711 is open"} {
		is.True(strings.Contains(third, want)) // read back from Postgres, intact
	}

	// GPT saw the conversation without Claude's reasoning.
	reqs := gpt.Requests()
	is.Equal(len(reqs), 1)
	body := string(reqs[0].Body)
	is.True(strings.Contains(body, "Ticket 4711 is open; its invoice is 12."))
	for _, secret := range []string{"sig-A", "red-A", "sig-B", "I should read ticket 4711.", "Invoices are billing's."} {
		is.True(!strings.Contains(body, secret))
	}

	// The next run goes to Billing, the agent that answered last, on GPT again.
	res, err = next.Run(ctx, append(conv, agent.Text("And invoice 13?"))...)
	is.NoErr(err)
	is.Equal(res.Agent, "Billing")
	is.Equal(res.Text(), "Invoice 13 is open.")
}
