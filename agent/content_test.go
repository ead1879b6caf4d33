package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestContentResult checks what a model reads of a tool whose result is a toolset.Content: its text, and a line
// for each image or clip instead of base64. A result that only looks like one stays JSON data.
func TestContentResult(t *testing.T) {
	png := make([]byte, 5120)
	tests := []struct {
		name string
		res  json.RawMessage
		want string
	}{
		{"content", toolset.Content{Parts: []toolset.ContentPart{
			toolset.TextPart("Sales by month"), toolset.ImagePart("image/png", png),
		}}.AppendJSON(nil), `"Sales by month\n[image image/png, 5120 bytes]"`},
		{"data with a content key", json.RawMessage(`{"content":[{"type":"text","text":"a"}],"total":1}`),
			`{"content":[{"type":"text","text":"a"}],"total":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			render := tool("render", func(context.Context, json.RawMessage) (json.RawMessage, error) { return tt.res, nil })
			m := script(call(tc("1", "render", `{}`)), say("ok"))
			_, err := host(m, agent.Config{}, render).Run(context.Background(), agent.Text("x"))
			is.NoErr(err)
			is.Equal(string(lastResults(m)["1"].Result), tt.want)
		})
	}
}
