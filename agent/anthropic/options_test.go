package anthropic_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
)

// sent returns the request body's top-level fields.
func sent(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReasoningOption checks that the request's reasoning options override the client's thinking budget.
func TestReasoningOption(t *testing.T) {
	no := false
	tests := []struct {
		name     string
		client   int64
		ro       *chat.ReasoningOptions
		thinking string
		max      string
	}{
		{"the client's default", 2048, nil, `{"budget_tokens":2048,"type":"enabled"}`, "4096"},
		{"a budget", 2048, &chat.ReasoningOptions{BudgetTokens: 8000}, `{"budget_tokens":8000,"type":"enabled"}`, "12096"},
		{"an effort", 0, &chat.ReasoningOptions{Effort: chat.ReasoningLow}, `{"budget_tokens":4096,"type":"enabled"}`, "8192"},
		{"thoughts omitted", 0, &chat.ReasoningOptions{BudgetTokens: 1024, IncludeThoughts: &no}, `{"budget_tokens":1024,"display":"omitted","type":"enabled"}`, "4096"},
		{"off", 2048, &chat.ReasoningOptions{Effort: chat.ReasoningNone}, `{"type":"disabled"}`, "4096"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c, body := capture(t)
			_, err := c.WithThinking(tt.client).Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Reasoning: tt.ro})
			is.NoErr(err)
			m := sent(t, *body)
			var got, want any
			is.NoErr(json.Unmarshal(m["thinking"], &got))
			is.NoErr(json.Unmarshal([]byte(tt.thinking), &want))
			is.Equal(got, want)
			is.Equal(string(m["max_tokens"]), tt.max)
		})
	}
	c, _ := capture(t)
	_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Reasoning: &chat.ReasoningOptions{BudgetTokens: 100}})
	is.New(t).True(errors.Is(err, chat.ErrInvalidRequest)) // below Claude's least budget
}

// TestCacheTTL checks the typed cache TTL on every cache mark, and that a TTL Claude does not keep is refused.
func TestCacheTTL(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")},
		&chat.Options{Instructions: "Be brief.", Tools: providertest.Tools(), CacheMessages: 1, CacheTTL: time.Hour})
	is.NoErr(err)
	is.Equal(strings.Count(string(*body), `"cache_control":{"ttl":"1h","type":"ephemeral"}`), 3) // tools, system, the message
	_, err = c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{CacheMessages: 1, CacheTTL: time.Minute})
	is.True(errors.Is(err, chat.ErrInvalidRequest))
	is.True(strings.Contains(err.Error(), "time.Hour"))
}

// TestExtraMerges checks that Options.Extra adds to the request, and that a field the options set is an error
// naming it.
func TestExtraMerges(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	temp := 0.25
	_, err := c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Temperature: &temp,
		Extra: map[string]json.RawMessage{"metadata": json.RawMessage(`{"user_id":"u-1"}`), "thinking": json.RawMessage(`{"type":"enabled","budget_tokens":1024}`)}})
	is.NoErr(err)
	m := sent(t, *body)
	is.Equal(string(m["temperature"]), "0.25")
	is.Equal(string(m["metadata"]), `{"user_id":"u-1"}`)

	*body = nil
	_, err = c.WithThinking(2048).Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Temperature: &temp,
		Extra: map[string]json.RawMessage{"thinking": json.RawMessage(`{"budget_tokens":1024}`)}})
	var ce *chat.ExtraConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Field, "thinking.budget_tokens")
	is.Equal(*body, []byte(nil)) // nothing sent
	_, err = c.Respond(t.Context(), []chat.Message{chat.UserText("hi")}, &chat.Options{Temperature: &temp,
		Extra: map[string]json.RawMessage{"temperature": json.RawMessage(`1`)}})
	is.True(errors.As(err, &ce))
	is.Equal(ce.Field, "temperature")
}

// TestFirstUserTurn checks that the messages begin with a user turn: on instructions alone, and before a
// history whose first turn is the model's.
func TestFirstUserTurn(t *testing.T) {
	is := is.New(t)
	c, body := capture(t)
	roles := func() []string {
		var req struct {
			Messages []struct{ Role string } `json:"messages"`
		}
		is.NoErr(json.Unmarshal(*body, &req))
		var out []string
		for _, m := range req.Messages {
			out = append(out, m.Role)
		}
		return out
	}
	_, err := c.Respond(t.Context(), nil, &chat.Options{Instructions: "Greet the user."})
	is.NoErr(err)
	is.Equal(roles(), []string{"user"})
	_, err = c.Respond(t.Context(), []chat.Message{
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "toolu_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":1}`)}}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "toolu_1", Result: json.RawMessage(`"Open"`)}}},
	}, &chat.Options{Tools: providertest.Tools()})
	is.NoErr(err)
	is.Equal(roles(), []string{"user", "assistant", "user"})
	is.True(strings.Contains(string(*body), `"content":[{"text":"Open","type":"text"}]`)) // a string result as text
}
