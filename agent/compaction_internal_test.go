package agent

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

func TestSafeBoundaries(t *testing.T) {
	user := chat.UserText("u")
	calls := func(ids ...string) chat.Message {
		m := chat.Message{Role: chat.RoleAssistant}
		for _, id := range ids {
			m.Parts = append(m.Parts, chat.ToolCall{ID: id, Name: "f"})
		}
		return m
	}
	results := func(ids ...string) chat.Message {
		m := chat.Message{Role: chat.RoleTool}
		for _, id := range ids {
			m.Parts = append(m.Parts, chat.ToolResult{CallID: id})
		}
		return m
	}
	tests := []struct {
		name string
		msgs []chat.Message
		want string // one character per boundary 0..len: s safe, x not
	}{
		{"text only", []chat.Message{user, chat.SystemText("s"), user}, "ssss"},
		{"a call and its result", []chat.Message{user, calls("1"), results("1"), user}, "ssxss"},
		{"parallel calls answered apart", []chat.Message{calls("1", "2"), results("1"), results("2")}, "sxxs"},
		{"a call never answered", []chat.Message{user, calls("1"), user}, "ssss"},
		{"a result without a call", []chat.Message{results("9"), user}, "sss"},
		{"an id repeated later", []chat.Message{calls("c"), results("c"), calls("c"), results("c")}, "sxsxs"},
		{"interleaved", []chat.Message{calls("1"), calls("2"), results("1"), results("2")}, "sxxxs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := ""
			for _, ok := range safeBoundaries(tt.msgs) {
				if ok {
					got += "s"
				} else {
					got += "x"
				}
			}
			is.Equal(got, tt.want)
		})
	}
}
