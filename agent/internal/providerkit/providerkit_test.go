package providerkit_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name, body, extra, want, conflict string
	}{
		{"adds a key", `{"a":1}`, `{"b":2}`, `{"a":1,"b":2}`, ""},
		{"merges objects at depth", `{"generationConfig":{"temperature":0.5,"responseSchema":{"type":"object"}}}`,
			`{"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`,
			`{"generationConfig":{"responseSchema":{"type":"object"},"temperature":0.5,"thinkingConfig":{"includeThoughts":true}}}`, ""},
		{"the same value is no conflict", `{"a":{"b":1}}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`, ""},
		{"a value the library set", `{"generationConfig":{"temperature":0.5}}`, `{"generationConfig":{"temperature":1}}`, "", "generationConfig.temperature"},
		{"an object over a value", `{"a":1}`, `{"a":{"b":1}}`, "", "a"},
		{"a value over an object", `{"a":{"b":1}}`, `{"a":2}`, "", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			v, err := providerkit.Decode([]byte(tt.body))
			is.NoErr(err)
			body := v.(map[string]any)
			var extra map[string]json.RawMessage
			is.NoErr(json.Unmarshal([]byte(tt.extra), &extra))
			err = providerkit.Merge("p", body, extra)
			if tt.conflict != "" {
				var ce *chat.ExtraConflictError
				is.True(errors.As(err, &ce))
				is.Equal(ce.Field, tt.conflict)
				is.True(errors.Is(err, chat.ErrInvalidRequest))
				b, _ := json.Marshal(body)
				is.Equal(string(b), tt.body) // unchanged
				return
			}
			is.NoErr(err)
			b, _ := json.Marshal(body)
			is.Equal(string(b), tt.want)
		})
	}
}

func TestExtraFields(t *testing.T) {
	is := is.New(t)
	req := map[string]any{"model": "m", "reasoning": map[string]any{"effort": "low"}}
	got, err := providerkit.ExtraFields("p", req, map[string]json.RawMessage{
		"reasoning": json.RawMessage(`{"summary":"auto"}`), "user": json.RawMessage(`"u1"`)})
	is.NoErr(err)
	b, _ := json.Marshal(got)
	is.Equal(string(b), `{"reasoning":{"effort":"low","summary":"auto"},"user":"u1"}`)
	_, err = providerkit.ExtraFields("p", req, map[string]json.RawMessage{"model": json.RawMessage(`"other"`)})
	var ce *chat.ExtraConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Error(), `p: Options.Extra sets "model", which the request already sets from the options: set it through the options, or leave it out of Extra`)
}

func TestResultText(t *testing.T) {
	tests := []struct {
		res  chat.ToolResult
		want string
	}{
		{chat.ToolResult{Result: json.RawMessage(`"Mexico"`)}, "Mexico"},
		{chat.ToolResult{Result: json.RawMessage(`"line\n\"quoted\""`)}, "line\n\"quoted\""},
		{chat.ToolResult{Result: json.RawMessage(`{"city":"Mexico"}`)}, `{"city":"Mexico"}`},
		{chat.ToolResult{Result: json.RawMessage(`42`)}, `42`},
		{chat.ToolResult{Result: json.RawMessage(`"bad`)}, `"bad`},
		{chat.ToolResult{Error: "no such city"}, "no such city"},
	}
	for _, tt := range tests {
		is.New(t).Equal(providerkit.ResultText(tt.res), tt.want)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"-1"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second},
		{http.Header{"Retry-After": {now.Add(-3 * time.Second).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
	}
	for _, tt := range tests {
		is.New(t).Equal(providerkit.RetryAfter(tt.h, now), tt.want)
	}
}

func TestBudgetAndEffort(t *testing.T) {
	is := is.New(t)
	for _, e := range []chat.ReasoningEffort{chat.ReasoningMinimal, chat.ReasoningLow, chat.ReasoningMedium, chat.ReasoningHigh} {
		is.Equal(providerkit.Effort(providerkit.Budget(e)), e) // each effort's budget maps back to it
	}
	is.Equal(providerkit.Budget(chat.ReasoningNone), 0)
	is.Equal(providerkit.Effort(100000), chat.ReasoningHigh)
}
