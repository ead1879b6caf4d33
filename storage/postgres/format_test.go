package postgres_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// formatV1Response is a response entry as version 1 of the entry format wrote it, before files, reasoning and
// the detailed usage counts.
const formatV1Response = `[{"role":"assistant","author_name":"support","parts":[{"type":"text","text":"Let me look."},` +
	`{"type":"tool_call","id":"call_1","name":"get_ticket","arguments":{"number":4711}},` +
	`{"type":"usage","input_tokens":10,"output_tokens":5,"total_tokens":15}]}]`

// TestEntryFormatVersions checks that entries keep the new message parts (a tool result's images too) under the
// current format version and that entries written under version 1 still load and decode.
func TestEntryFormatVersions(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, pool, _ := newStore(t)
	ctx := t.Context()

	msgs := []chat.Message{
		chat.UserFile("What is this?", chat.File{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}}),
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Reasoning{Provider: "anthropic", Text: "A picture.", Signature: "EqQBCkYIBxgC"},
			chat.Reasoning{Provider: "anthropic", Encrypted: "EmwKAhgBEgy3va3pzix"},
			chat.Text{Text: "A printer."},
			chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "Second.", Index: 1, Encrypted: "gAAAA"},
			chat.ToolCall{ID: "call_1", Name: "get_ticket", Arguments: json.RawMessage(`{"number":4711}`), Provider: "openai", ItemID: "fc_1"},
			chat.UsagePart{Usage: chat.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120, CacheReadTokens: 80, CacheWriteTokens: 10, ReasoningTokens: 12}},
		}},
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{CallID: "call_1", Result: json.RawMessage(`"chart\n[image image/png, 6 bytes]"`),
			Files: []chat.File{{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}}}}}},
	}
	data, err := chat.MarshalMessages(msgs)
	is.NoErr(err)
	c, err := s.Claim(ctx, "tenant", "conv", "owner", time.Minute)
	is.NoErr(err)
	_, err = s.Append(ctx, c, storage.Entry{Type: storage.EntryResponse, Data: data})
	is.NoErr(err)

	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('typeshift.settings_id', 'tenant', true)`); err != nil {
			return err
		}
		var version int
		if err := tx.QueryRow(ctx, `SELECT schema_version FROM conversation_entries WHERE conversation_id = 'conv' AND seq = 1`).Scan(&version); err != nil {
			return err
		}
		is.Equal(version, storage.EntrySchemaVersion) // new entries carry the current version
		_, err := tx.Exec(ctx, `INSERT INTO conversation_entries
			(settings_id, conversation_id, seq, type, created_at, schema_version, data)
			VALUES ('tenant', 'conv', 2, 'response', now(), 1, $1::jsonb)`, formatV1Response)
		return err
	})
	is.NoErr(err)

	entries, err := s.Load(ctx, "tenant", "conv")
	is.NoErr(err) // a version 1 entry is not corrupt
	is.Equal(len(entries), 2)
	got, err := chat.UnmarshalMessages(entries[0].Data)
	is.NoErr(err)
	is.Equal(got[0].Parts[1], chat.Part(chat.File{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}}))
	is.Equal(got[1].Parts[0], chat.Part(chat.Reasoning{Provider: "anthropic", Text: "A picture.", Signature: "EqQBCkYIBxgC"}))
	is.Equal(got[1].Parts[1].(chat.Reasoning).Encrypted, "EmwKAhgBEgy3va3pzix")
	// The ids a provider needs back (a summary part's index, a call's item id) are kept, additively.
	is.Equal(got[1].Parts[3], chat.Part(chat.Reasoning{Provider: "openai", ID: "rs_1", Text: "Second.", Index: 1, Encrypted: "gAAAA"}))
	is.Equal(got[1].Parts[4].(chat.ToolCall).ItemID, "fc_1")
	is.Equal(got[1].Parts[4].(chat.ToolCall).Provider, "openai")
	is.Equal(got[1].Parts[5].(chat.UsagePart).Usage.CacheReadTokens, int64(80))
	is.Equal(got[2].Parts[0].(chat.ToolResult).Files, []chat.File{{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}}}) // a tool's image, through jsonb

	old, err := chat.UnmarshalMessages(entries[1].Data)
	is.NoErr(err) // version 1 data decodes
	is.Equal(old[0].AuthorName, "support")
	call := old[0].Parts[1].(chat.ToolCall)
	is.Equal(call.Name, "get_ticket")
	is.Equal(call.ItemID, "") // stored before item ids: none
	var args map[string]int
	is.NoErr(json.Unmarshal(call.Arguments, &args))
	is.Equal(args["number"], 4711)
	is.Equal(old[0].Parts[2].(chat.UsagePart).Usage, chat.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
}
