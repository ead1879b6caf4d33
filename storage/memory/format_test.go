package memory

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/internal/watch"
)

// TestEntryFormatVersions checks that entries written under version 1 of the entry format, before files,
// reasoning and the detailed usage counts, still load and decode beside entries of the current version.
func TestEntryFormatVersions(t *testing.T) {
	is := is.New(t)
	s := New()
	ctx := t.Context()
	data, err := chat.MarshalMessages([]chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Reasoning{Provider: "anthropic", Text: "Hm.", Signature: "sig"},
		chat.File{MediaType: "application/pdf", Data: []byte("%PDF-1.7")},
		chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "Second.", Index: 1, Encrypted: "gAAAA"},
		chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`), Provider: "openai", ItemID: "fc_1"},
	}}})
	is.NoErr(err)
	c, err := s.Claim(ctx, "tenant", "conv", "owner", time.Minute)
	is.NoErr(err)
	_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryResponse, Data: data})
	is.NoErr(err)

	s.mu.Lock()
	conv := s.conversations[watch.Key{SettingsID: "tenant", ConversationID: "conv"}]
	is.Equal(conv.entries[0].schemaVersion, storage.EntrySchemaVersion) // new entries carry the current version
	conv.entries = append(conv.entries, stored{schemaVersion: 1, Entry: storage.Entry{Seq: 2, Type: storage.EntryResponse,
		Data: json.RawMessage(`[{"role":"assistant","parts":[{"type":"text","text":"Let me look."},` +
			`{"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}},` +
			`{"type":"usage","input_tokens":10,"output_tokens":5,"total_tokens":15}]}]`)}})
	s.mu.Unlock()

	entries, err := s.Load(ctx, "tenant", "conv")
	is.NoErr(err) // a version 1 entry is not corrupt
	is.Equal(len(entries), 2)
	got, err := chat.UnmarshalMessages(entries[0].Data)
	is.NoErr(err)
	is.Equal(got[0].Parts[0], chat.Part(chat.Reasoning{Provider: "anthropic", Text: "Hm.", Signature: "sig"}))
	is.Equal(got[0].Parts[1].(chat.File).Data, []byte("%PDF-1.7"))
	// The ids a provider needs back (a summary part's index, a call's item id) are kept, additively.
	is.Equal(got[0].Parts[2], chat.Part(chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "Second.", Index: 1, Encrypted: "gAAAA"}))
	is.Equal(got[0].Parts[3].(chat.ToolCall).ItemID, "fc_1")
	is.Equal(got[0].Parts[3].(chat.ToolCall).Provider, "openai")
	old, err := chat.UnmarshalMessages(entries[1].Data)
	is.NoErr(err)
	is.Equal(old[0].Parts[1].(chat.ToolCall).Name, "get_ticket")
	is.Equal(old[0].Parts[1].(chat.ToolCall).ItemID, "") // stored before item ids: none
	is.Equal(old[0].Parts[2].(chat.UsagePart).Usage, chat.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
}
