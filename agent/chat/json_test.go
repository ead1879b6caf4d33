package chat_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

func allParts() []chat.Message {
	return []chat.Message{
		chat.SystemText("You help with tickets."),
		{Role: chat.RoleUser, AuthorName: "ada", Parts: []chat.Part{chat.Text{Text: "Close ticket 4711, \"please\" <now>"}}},
		{Role: chat.RoleAssistant, AuthorName: "support", Parts: []chat.Part{
			chat.Text{Text: "Let me look."},
			chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`)},
			chat.ToolCall{ID: "call_2", Name: "close_ticket", Arguments: json.RawMessage(`{"number":47`)},
			chat.ToolCall{ID: "call_3", Name: "list", Arguments: json.RawMessage{}},
			chat.UsagePart{Usage: chat.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}},
		}},
		{Role: chat.RoleTool, Parts: []chat.Part{
			chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`{"title":"Printer"}`)},
			chat.ToolResult{CallID: "call_2", Error: "argument number: unexpected end of JSON"},
		}},
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ApprovalRequest{ID: "apr_1", ToolID: "example.com/tickets.Tickets.close_ticket",
				Call: chat.ToolCall{ID: "call_4", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711}`)}},
		}},
		{Role: chat.RoleUser, Parts: []chat.Part{
			chat.ApprovalAnswer{RequestID: "apr_1", Approved: true, Always: chat.ForArguments},
			chat.ApprovalAnswer{RequestID: "apr_2", Reason: "not today", Always: chat.ForTool},
			chat.ApprovalAnswer{RequestID: "apr_3"},
			chat.Raw{Provider: "openai", Data: json.RawMessage(`{"refusal":null}`)},
			chat.Raw{Provider: "odd", Data: json.RawMessage(`not json`)},
		}},
		{Role: chat.RoleAssistant},
	}
}

func TestMessageJSONRoundTrip(t *testing.T) {
	is := is.New(t)
	msgs := allParts()
	data, err := chat.MarshalMessages(msgs)
	is.NoErr(err)
	got, err := chat.UnmarshalMessages(data)
	is.NoErr(err)
	is.Equal(len(got), len(msgs))
	for i := range msgs {
		is.Equal(got[i].Role, msgs[i].Role)
		is.Equal(got[i].AuthorName, msgs[i].AuthorName)
		is.Equal(len(got[i].Parts), len(msgs[i].Parts))
		for j := range msgs[i].Parts {
			a, _ := json.Marshal(chat.Message{Parts: []chat.Part{msgs[i].Parts[j]}})
			b, _ := json.Marshal(chat.Message{Parts: []chat.Part{got[i].Parts[j]}})
			is.Equal(string(a), string(b)) // part survives the round trip
		}
	}
	// The malformed arguments come back byte for byte, and typed.
	call := got[2].Parts[2].(chat.ToolCall)
	is.Equal(string(call.Arguments), `{"number":47`)
	is.Equal(got[5].Parts[0].(chat.ApprovalAnswer).Always, chat.ForArguments)
	is.Equal(got[4].Parts[0].(chat.ApprovalRequest).Call.Name, "close_ticket")
	is.Equal(got[2].Parts[4].(chat.UsagePart).Usage.TotalTokens, int64(15))
}

func TestMessageJSONShape(t *testing.T) {
	is := is.New(t)
	m := chat.Message{Role: chat.RoleAssistant, AuthorName: "support", Parts: []chat.Part{
		chat.Text{Text: "hi"},
		chat.ToolCall{ID: "c1", Name: "get", Arguments: json.RawMessage(`{"n":1}`)},
	}}
	data, err := json.Marshal(m)
	is.NoErr(err)
	is.Equal(string(data), `{"role":"assistant","author_name":"support","parts":[{"type":"text","text":"hi"},{"type":"tool_call","id":"c1","name":"get","arguments":{"n":1}}]}`)
}

func TestMessageJSONErrors(t *testing.T) {
	tests := []struct {
		name, in string
		unknown  bool
	}{
		{"unknown part", `{"role":"user","parts":[{"type":"image","url":"x"}]}`, true},
		{"missing type", `{"role":"user","parts":[{"text":"x"}]}`, false},
		{"request without call", `{"role":"assistant","parts":[{"type":"approval_request","id":"a"}]}`, false},
		{"bad scope", `{"role":"user","parts":[{"type":"approval_answer","request_id":"a","always":"forever"}]}`, false},
		{"not an object", `[1,2]`, false},
		{"parts not an array", `{"role":"user","parts":{}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var m chat.Message
			err := json.Unmarshal([]byte(tt.in), &m)
			is.True(err != nil)
			is.Equal(errors.Is(err, chat.ErrUnknownPart), tt.unknown)
			if tt.unknown {
				is.True(strings.Contains(err.Error(), `"image"`)) // the error names the type
			}
		})
	}
}

func TestMessageJSONRejectsNilPart(t *testing.T) {
	is := is.New(t)
	_, err := json.Marshal(chat.Message{Role: chat.RoleUser, Parts: []chat.Part{nil}})
	is.True(err != nil)
}

func FuzzUnmarshalMessages(f *testing.F) {
	data, _ := chat.MarshalMessages(allParts())
	f.Add(data)
	f.Add([]byte(`[{"role":"user","parts":[{"type":"tool_call","arguments_text":"{"}]}]`))
	f.Add([]byte(`[{"parts":[{"type":"approval_request","call":{"arguments":[1]}}]}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := chat.UnmarshalMessages(data)
		if err != nil {
			return
		}
		// What decodes must encode, and decode again to the same encoding.
		again, err := chat.MarshalMessages(msgs)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		msgs2, err := chat.UnmarshalMessages(again)
		if err != nil {
			t.Fatalf("re-decode %s: %v", again, err)
		}
		third, err := chat.MarshalMessages(msgs2)
		if err != nil || string(third) != string(again) {
			t.Fatalf("unstable encoding:\n%s\n%s", again, third)
		}
	})
}
