package chat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "anthropic", Text: "The user wants ticket 4711.", Signature: "EqQBCkYIBxgC"},
			chat.Reasoning{Provider: "anthropic", Encrypted: "EmwKAhgBEgy3va3pzix"},
			chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "**Looking up**", Encrypted: "gAAAAB"},
			chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "**Answering**", Index: 1},
			chat.ToolCall{ID: "call_5", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4712}`), Provider: "openai", ItemID: "fc_5"},
			chat.UsagePart{Usage: chat.Usage{InputTokens: 1200, OutputTokens: 300, TotalTokens: 1500,
				CacheReadTokens: 1000, CacheWriteTokens: 150, ReasoningTokens: 240}},
		}},
		chat.UserFile("What is on this screenshot?",
			chat.File{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\xff"), Name: "screen.png"},
			chat.File{URL: "https://example.com/cat.jpg"},
			chat.File{MediaType: "application/pdf", URL: "https://example.com/manual.pdf", Name: "manual.pdf"}),
		{Role: chat.RoleTool, Parts: []chat.Part{
			chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`{"title":"Printer"}`)},
			chat.ToolResult{CallID: "call_2", Error: "argument number: unexpected end of JSON"},
			chat.ToolResult{CallID: "call_3", Result: json.RawMessage(`"Sales by month\n[image image/png, 10 bytes]"`),
				Files: []chat.File{{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\xff")}, {MediaType: "image/webp", URL: "https://example.com/w.webp", Name: "w.webp"}}},
		}},
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ApprovalRequest{ID: "apr_1", ToolID: "example.com/tickets.Tickets.close_ticket",
				Call: chat.ToolCall{ID: "call_4", Name: "close_ticket", Arguments: json.RawMessage(`{"number":4711}`), Provider: "openai", ItemID: "fc_4"}},
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
	is.Equal(got[7].Parts[0].(chat.ApprovalAnswer).Always, chat.ForArguments)
	is.Equal(got[6].Parts[0].(chat.ApprovalRequest).Call.Name, "close_ticket")
	is.Equal(got[2].Parts[4].(chat.UsagePart).Usage.TotalTokens, int64(15))
	// Reasoning, files and the detailed usage come back typed, bytes for bytes.
	is.Equal(got[3].Parts[0], chat.Reasoning{Provider: "anthropic", Text: "The user wants ticket 4711.", Signature: "EqQBCkYIBxgC"})
	is.Equal(got[3].Parts[2].(chat.Reasoning).Encrypted, "gAAAAB")
	is.Equal(got[3].Parts[5].(chat.UsagePart).Usage, chat.Usage{InputTokens: 1200, OutputTokens: 300, TotalTokens: 1500,
		CacheReadTokens: 1000, CacheWriteTokens: 150, ReasoningTokens: 240})
	img := got[4].Parts[1].(chat.File)
	is.Equal(img.Data, []byte("\x89PNG\r\n\x1a\n\x00\xff"))
	is.Equal(img.MediaType, "image/png")
	is.True(img.IsImage())
	is.True(got[4].Parts[2].(chat.File).IsImage())  // a URL without a type is an image
	is.True(!got[4].Parts[3].(chat.File).IsImage()) // a PDF is not
	// A tool result's images come back with it, in order.
	res := got[5].Parts[2].(chat.ToolResult)
	is.Equal(res.Files, msgs[5].Parts[2].(chat.ToolResult).Files)
	is.Equal(string(res.Result), `"Sales by month\n[image image/png, 10 bytes]"`)
}

// TestToolResultFilesJSON checks the stored form of a tool result's images, and that a result stored before
// they existed loads without any.
func TestToolResultFilesJSON(t *testing.T) {
	is := is.New(t)
	m := chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "c1", Result: json.RawMessage(`"chart"`),
		Files: []chat.File{{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}}}}
	data, err := json.Marshal(m)
	is.NoErr(err)
	is.Equal(string(data), `{"role":"tool","parts":[{"type":"tool_result","call_id":"c1","result":"chart","files":[{"type":"file","media_type":"image/png","bytes":"iVBORw=="}]}]}`)

	var old chat.Message
	is.NoErr(json.Unmarshal([]byte(`{"role":"tool","parts":[{"type":"tool_result","call_id":"c1","result":"chart"}]}`), &old))
	is.Equal(old.Parts[0], chat.Part(chat.ToolResult{CallID: "c1", Result: json.RawMessage(`"chart"`)}))

	err = json.Unmarshal([]byte(`{"role":"tool","parts":[{"type":"tool_result","call_id":"c1","files":[{"type":"text","text":"x"}]}]}`), &old)
	is.True(err != nil) // a result's file must be a file part
	is.True(strings.Contains(err.Error(), `tool_result file 0: a part of type "text", not file`))
}

// TestProviderIDsJSON checks the stored form of the ids a provider needs back (a call's item id, a reasoning
// part's index within its item), and that parts stored before them load without them.
func TestProviderIDsJSON(t *testing.T) {
	is := is.New(t)
	m := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "b", Index: 1, Encrypted: "gA"},
		chat.ToolCall{ID: "call_1", Name: "get", Arguments: json.RawMessage(`{}`), Provider: "openai", ItemID: "fc_1"},
	}}
	data, err := json.Marshal(m)
	is.NoErr(err)
	is.Equal(string(data), `{"role":"assistant","parts":[{"type":"reasoning","text":"b","id":"rs_1","provider":"openai","encrypted":"gA","index":1},{"type":"tool_call","id":"call_1","name":"get","arguments":{},"provider":"openai","item_id":"fc_1"}]}`)
	var back chat.Message
	is.NoErr(json.Unmarshal(data, &back))
	is.True(reflect.DeepEqual(back, m)) // round trip

	var old chat.Message
	is.NoErr(json.Unmarshal([]byte(`{"role":"assistant","parts":[{"type":"reasoning","text":"a","id":"rs_1","provider":"openai"},{"type":"tool_call","id":"call_1","name":"get","arguments":{}}]}`), &old))
	is.Equal(old.Parts[0], chat.Part(chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "a"}))
	is.Equal(old.Parts[1], chat.Part(chat.ToolCall{ID: "call_1", Name: "get", Arguments: json.RawMessage(`{}`)}))
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

// history is a realistic conversation of 20 messages: texts, tool calls with arguments, results, an approval
// and usage, as a run with tools stores them.
func history() []chat.Message {
	var msgs []chat.Message
	msgs = append(msgs, chat.SystemText("You are the support desk's assistant. Answer briefly; look tickets up before you answer."))
	for i := range 4 {
		n := fmt.Sprint(4711 + i)
		msgs = append(msgs,
			chat.Message{Role: chat.RoleUser, AuthorName: "ada", Parts: []chat.Part{chat.Text{Text: "What is the state of ticket " + n + "? The printer on the \"third\" floor <still> fails & beeps."}}},
			chat.Message{Role: chat.RoleAssistant, AuthorName: "support", Parts: []chat.Part{
				chat.Text{Text: "Let me look that up."},
				chat.ToolCall{ID: "call_" + n + "_a", Name: "get_ticket", Arguments: json.RawMessage(`{"number":` + n + `,"fields":["title","state","assignee"]}`)},
				chat.ToolCall{ID: "call_" + n + "_b", Name: "search", Arguments: json.RawMessage(`{"query":"printer third floor","limit":5}`)},
				chat.UsagePart{Usage: chat.Usage{InputTokens: 812, OutputTokens: 64, TotalTokens: 876}},
			}},
			chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
				chat.ToolResult{CallID: "call_" + n + "_a", Result: json.RawMessage(`{"title":"Printer jams","state":"open","assignee":{"name":"Grace","team":"facilities"},"updated":"2026-11-29T10:04:00Z"}`)},
				chat.ToolResult{CallID: "call_" + n + "_b", Result: json.RawMessage(`[{"number":4702,"title":"Toner low"},{"number":4690,"title":"Paper tray stuck"}]`)},
			}},
			chat.Message{Role: chat.RoleAssistant, AuthorName: "support", Parts: []chat.Part{
				chat.ApprovalRequest{ID: "apr_" + n, ToolID: "example.com/tickets.Tickets.close_ticket",
					Call: chat.ToolCall{ID: "call_" + n + "_c", Name: "close_ticket", Arguments: json.RawMessage(`{"number":` + n + `,"note":"duplicate"}`)}},
			}},
		)
		if i%2 == 0 {
			msgs = append(msgs, chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.ApprovalAnswer{RequestID: "apr_" + n, Approved: true, Always: chat.ForTool}}})
		} else {
			msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
				chat.Text{Text: "Ticket " + n + " is open and assigned to Grace in facilities; two similar tickets exist (4702, 4690)."},
				chat.UsagePart{Usage: chat.Usage{InputTokens: 1304, OutputTokens: 41, TotalTokens: 1345}},
			}})
		}
	}
	return msgs[:20]
}

// decodeCases are inputs at the edges of the wire form, for the differential tests and as fuzz seeds.
var decodeCases = []string{
	`[{"role":"user","parts":[{"type":"file","media_type":"image/png","bytes":"iVBORw0KGgo="}]}]`,
	`[{"role":"user","parts":[{"type":"file","media_type":"image/png","bytes":""}]}]`,
	`[{"role":"user","parts":[{"type":"file","media_type":"image/png","bytes":null,"url":"https://x/y.png"}]}]`,
	`[{"role":"user","parts":[{"type":"file","bytes":"not base64!"}]}]`,
	`[{"role":"user","parts":[{"type":"file","bytes":"iVBO\nRw0KGgo="}]}]`,
	`[{"role":"user","parts":[{"type":"file","bytes":7}]}]`,
	`[{"role":"assistant","parts":[{"type":"reasoning","provider":"anthropic","text":"hm","signature":"s1"},{"type":"reasoning","encrypted":"e"}]}]`,
	`[{"role":"assistant","parts":[{"type":"usage","cache_read_tokens":5,"cache_write_tokens":6,"reasoning_tokens":7}]}]`,
	`[{"role":"assistant","parts":[{"type":"usage","Cache_Read_Tokens":5}]}]`,
	`null`, `[]`, ` [ ] `, `[null]`, `[{}]`, `[{"role":null,"author_name":null,"parts":null}]`,
	`[{"role":"user","parts":[]}]`,
	`[{"role":"tool","parts":[{"type":"tool_call","id":"c","name":"n","arguments":null}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_call","arguments_text":"{\"n\":4"}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_call","arguments_text":null,"arguments":{"a": [1, 2 ]}}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","result":"x","error":null}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","result_text":"","result":[1]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","result":"x","files":[{"type":"file","media_type":"image/png","bytes":"iVBORw0KGgo="},{"type":"file","url":"https://x/y.png","name":"y"}]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":null}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":[]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":[null]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":[{"type":"text","text":"x"}]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":{}}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":[1]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","files":[{"type":"file","bytes":"not base64!"}]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","Files":[{"type":"file","bytes":"iVBORw=="}]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","files":[{"type":"file"}],"files":[{"type":"file","url":"u"}]}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_result","files":[{"type":"file","files":[{"type":"text"}]}]}]}]`,
	`[{"role":"user","parts":[{"type":"file","files":[{"type":"file","bytes":"iVBORw=="}]}]}]`,
	`[{"role":"user","parts":[{"type":"image","url":"x"}]}]`,
	`[{"role":"user","parts":[{"text":"x"}]}]`,
	`[{"role":"user","parts":[null]}]`,
	`[{"role":"user","parts":[{"type":null}]}]`,
	`[{"role":"assistant","parts":[{"type":"approval_request","id":"a"}]}]`,
	`[{"role":"assistant","parts":[{"type":"approval_request","id":"a","call":null}]}]`,
	`[{"role":"assistant","parts":[{"type":"approval_request","id":"a","call":{"type":"x","id":"c","arguments":{},"call":{"id":"z"}}}]}]`,
	`[{"role":"user","parts":[{"type":"approval_answer","request_id":"a","always":"forever"}]}]`,
	`[{"role":"user","parts":[{"type":"approval_answer","request_id":"a","always":"once","approved":null}]}]`,
	`[{"role":"user","parts":[{"type":"approval_answer","approved":"yes"}]}]`,
	`[{"role":"user","parts":[{"type":"usage","input_tokens":1,"output_tokens":null,"total_tokens":-3}]}]`,
	`[{"role":"user","parts":[{"type":"usage","input_tokens":1.5}]}]`,
	`[{"role":"user","parts":[{"type":"usage","input_tokens":1e2}]}]`,
	`[{"role":"user","parts":[{"type":"usage","input_tokens":99999999999999999999}]}]`,
	`[{"role":"user","parts":[{"type":"raw","provider":"p","data":{"refusal":null}}]}]`,
	`[{"role":"user","parts":[{"type":"raw","provider":"p","data_text":"not json"}]}]`,
	`[{"role":"user","extra":{"a":[1,{"b":null}]},"parts":[{"type":"text","text":"x","unknown":true}]}]`,
	`[{"ROLE":"user","Parts":[{"TYPE":"text","Text":"x"}]}]`,
	`[{"role":"user","parts":[{"type":"usage","input_to\u212aens":3}]}]`,
	`[{"role":"user","role":"tool","parts":[{"type":"text","text":"a","text":"b"}]}]`,
	`[{"parts":[{"type":"tool_call","id":"x"}],"parts":[{"type":"tool_call"}]}]`,
	`[{"parts":[{"type":"approval_request","call":{"id":"a"},"call":{"name":"b"}}]}]`,
	`[{"role":"us\u0065r","parts":[{"type":"t\u0065xt","text":"\ud83d\ude00 \u00e9\n"}]}]`,
	"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"text\":\"bad \xff utf-8\"}]}]",
	`[{"role":"user","parts":[{"type":"text","text":"x"}]},]`,
	`[{"role":"user","parts":[{"type":"text","text":"x"}]}] x`,
	`[{"role":"user","parts":{}}]`, `[1,2]`, `{}`, `"x"`, ``, `[`,
	`[{"parts":[{"type":"raw","data":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}]}]`,
}

func TestDecodeMatchesReference(t *testing.T) {
	inputs := append([]string(nil), decodeCases...)
	for _, msgs := range [][]chat.Message{allParts(), history()} {
		data, err := refMarshalMessages(msgs)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(data))
	}
	for _, in := range inputs {
		t.Run("", func(t *testing.T) {
			is := is.New(t)
			want, wantErr := refUnmarshalMessages([]byte(in))
			got, gotErr := chat.UnmarshalMessages([]byte(in))
			is.Equal(gotErr == nil, wantErr == nil) // accepted alike
			if wantErr != nil {
				is.Equal(gotErr.Error(), sameError(wantErr))
				is.Equal(errors.Is(gotErr, chat.ErrUnknownPart), errors.Is(wantErr, chat.ErrUnknownPart))
				return
			}
			is.True(reflect.DeepEqual(got, want)) // same messages
			var raws []json.RawMessage
			is.NoErr(json.Unmarshal([]byte(in), &raws))
			for _, raw := range raws {
				var one chat.Message
				var ref refMessage
				is.NoErr(ref.UnmarshalJSON(raw))
				is.NoErr(one.UnmarshalJSON(raw))
				is.True(reflect.DeepEqual(one, ref.m)) // one message decodes alike too
			}
		})
	}
}

func TestDecodeSingleMessage(t *testing.T) {
	is := is.New(t)
	var m chat.Message
	m.AuthorName = "stale"
	is.NoErr(m.UnmarshalJSON([]byte(`null`)))
	is.True(reflect.DeepEqual(m, chat.Message{})) // null is an empty message, as before
	err := m.UnmarshalJSON([]byte(`{"role":"user","parts":[{"type":"image"}]}`))
	is.True(errors.Is(err, chat.ErrUnknownPart))
}

func TestEncodeMatchesReference(t *testing.T) {
	cases := [][]chat.Message{nil, {}, allParts(), history(),
		{{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "\u2028 \u2029 <&> \x00 \xff é 😀 \\ \t"}}}},
		{{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{Arguments: json.RawMessage(" { \"a\" : [ 1 , \"<b>\u2028\" ] } ")},
			chat.ToolCall{Arguments: json.RawMessage(strings.Repeat("[", 80) + strings.Repeat("]", 80))},
			chat.ToolCall{Arguments: json.RawMessage(`null`)},
			chat.ToolCall{Arguments: json.RawMessage(`{"a":1}{"b":2}`)},
			chat.ToolResult{Result: json.RawMessage("\"bad \xff\"")},
			chat.ApprovalAnswer{Always: chat.Standing(7)},
		}}},
		{{Role: chat.RoleUser, Parts: []chat.Part{nil}}},
		{{Role: chat.RoleUser, Parts: []chat.Part{chat.ApprovalAnswer{Always: chat.Standing(7)}}}},
	}
	for _, msgs := range cases {
		t.Run("", func(t *testing.T) {
			is := is.New(t)
			want, wantErr := refMarshalMessages(msgs)
			got, gotErr := chat.MarshalMessages(msgs)
			is.Equal(gotErr == nil, wantErr == nil)
			is.Equal(string(got), string(want)) // byte for byte
			for _, m := range msgs {
				want, wantErr := refMarshalMessage(m)
				got, gotErr := json.Marshal(m)
				is.Equal(gotErr == nil, wantErr == nil)
				is.Equal(string(got), string(want))
			}
		})
	}
}
