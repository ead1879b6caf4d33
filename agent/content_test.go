package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// pngOf returns n bytes that begin as a PNG image does.
func pngOf(n int) []byte {
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	return b
}

// TestContentResult checks what a model is given of a tool whose result is a toolset.Content: its text, with a
// line for each image or clip instead of base64, and the images it can be shown beside the text. An image of
// another type, whose bytes are not what its type says or that would pass the result's cap is not sent: its
// line says why. A result that only looks like a Content stays JSON data.
func TestContentResult(t *testing.T) {
	png, bigPNG := pngOf(5120), pngOf(60<<10)
	jpeg := append([]byte("\xff\xd8\xff\xe0"), make([]byte, 60)...)
	content := func(parts ...toolset.ContentPart) json.RawMessage {
		return toolset.Content{Parts: parts}.AppendJSON(nil)
	}
	tests := []struct {
		name      string
		maxResult int
		res       json.RawMessage
		want      string
		files     []chat.File
	}{
		{"image", 0, content(toolset.TextPart("Sales by month"), toolset.ImagePart("image/png", png)),
			`"Sales by month\n[image image/png, 5120 bytes]"`, []chat.File{{MediaType: "image/png", Data: png}}},
		{"two images, the media type's case and parameters aside", 0,
			content(toolset.ImagePart("Image/JPEG; q=1", jpeg), toolset.ImagePart("image/png", png)),
			`"[image Image/JPEG; q=1, 64 bytes]\n[image image/png, 5120 bytes]"`,
			[]chat.File{{MediaType: "image/jpeg", Data: jpeg}, {MediaType: "image/png", Data: png}}},
		{"svg", 0, content(toolset.TextPart("Logo"), toolset.ImagePart("image/svg+xml", []byte("<svg/>"))),
			`"Logo\n[image image/svg+xml, 6 bytes, not shown: a model is given PNG, JPEG, GIF and WebP images only]"`, nil},
		{"bytes that are not what the type says", 0, content(toolset.ImagePart("image/png", jpeg)),
			`"[image image/png, 64 bytes, not shown: its bytes are not a PNG image]"`, nil},
		{"past the cap", 0, content(toolset.ImagePart("image/png", png), toolset.ImagePart("image/png", bigPNG)),
			`"[image image/png, 5120 bytes]\n[image image/png, 61440 bytes, not shown: it would take the result past its limit of 65536 bytes]"`,
			[]chat.File{{MediaType: "image/png", Data: png}}},
		{"no cap", -1, content(toolset.ImagePart("image/png", bigPNG)),
			`"[image image/png, 61440 bytes]"`, []chat.File{{MediaType: "image/png", Data: bigPNG}}},
		{"audio stays a line", 0, content(toolset.AudioPart("audio/wav", []byte("RIFF"))), `"[audio audio/wav, 4 bytes]"`, nil},
		{"data with a content key", 0, json.RawMessage(`{"content":[{"type":"text","text":"a"}],"total":1}`),
			`{"content":[{"type":"text","text":"a"}],"total":1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			render := tool("render", func(context.Context, json.RawMessage) (json.RawMessage, error) { return tt.res, nil })
			m := script(call(tc("1", "render", `{}`)), say("ok"))
			_, err := host(m, agent.Config{MaxResultBytes: tt.maxResult}, render).Run(context.Background(), agent.Text("x"))
			is.NoErr(err)
			got := lastResults(m)["1"]
			is.Equal(string(got.Result), tt.want)
			is.Equal(got.Files, tt.files)
			is.True(!strings.Contains(string(got.Result), "AAAA")) // never base64
		})
	}
}
