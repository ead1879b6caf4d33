package toolset_test

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestContentJSON checks that AppendJSON writes what encoding/json writes for a Content (the shape the generated
// encoder writes too), and that ParseContent reads it back unchanged.
func TestContentJSON(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}
	tests := []struct {
		name string
		c    toolset.Content
	}{
		{"no parts", toolset.Content{}},
		{"empty parts", toolset.Content{Parts: []toolset.ContentPart{}}},
		{"text", toolset.Content{Parts: []toolset.ContentPart{toolset.TextPart("a \"quoted\" line\n")}}},
		{"empty text", toolset.Content{Parts: []toolset.ContentPart{toolset.TextPart("")}}},
		{"image", toolset.Content{Parts: []toolset.ContentPart{toolset.ImagePart("image/png", png)}}},
		{"audio", toolset.Content{Parts: []toolset.ContentPart{toolset.AudioPart("audio/wav", []byte("RIFF"))}}},
		{"binary resource", toolset.Content{Parts: []toolset.ContentPart{toolset.ResourcePart("file:///a.bin", "application/octet-stream", png)}}},
		{"text resource", toolset.Content{Parts: []toolset.ContentPart{toolset.ResourceTextPart("file:///a.txt", "text/plain", "hello")}}},
		{"link", toolset.Content{Parts: []toolset.ContentPart{toolset.LinkPart("https://example.com/r", "report", "application/pdf")}}},
		{"mixed", toolset.Content{Parts: []toolset.ContentPart{
			toolset.TextPart("Sales"), toolset.ImagePart("image/png", png),
			toolset.ResourceTextPart("file:///s.csv", "text/csv", "a,b"), toolset.LinkPart("file:///s.xlsx", "", ""),
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := tt.c.AppendJSON(nil)
			want, err := json.Marshal(tt.c)
			is.NoErr(err)
			is.Equal(string(got), string(want))
			back, ok := toolset.ParseContent(got)
			is.True(ok)
			is.Equal(len(back.Parts), len(tt.c.Parts))
			for i := range back.Parts {
				is.Equal(back.Parts[i].Type, tt.c.Parts[i].Type)
				is.Equal(back.Parts[i].Text, tt.c.Parts[i].Text)
				is.Equal(back.Parts[i].MediaType, tt.c.Parts[i].MediaType)
				is.Equal(string(back.Parts[i].Data), string(tt.c.Parts[i].Data))
				is.Equal(back.Parts[i].URI, tt.c.Parts[i].URI)
				is.Equal(back.Parts[i].Name, tt.c.Parts[i].Name)
			}
		})
	}
}

// TestParseContentRefuses checks that results which are JSON data, however close to a Content they come, stay
// JSON data.
func TestParseContentRefuses(t *testing.T) {
	tests := []struct{ name, res string }{
		{"a string", `"content"`},
		{"an array", `[{"type":"text","text":"a"}]`},
		{"no content key", `{}`},
		{"another key beside it", `{"content":[],"total":1}`},
		{"content twice", `{"content":[],"content":[]}`},
		{"content not a list", `{"content":"a"}`},
		{"a part not an object", `{"content":["a"]}`},
		{"an unknown type", `{"content":[{"type":"video","mimeType":"video/mp4","data":"AA=="}]}`},
		{"no type", `{"content":[{"text":"a"}]}`},
		{"an unknown property", `{"content":[{"type":"text","text":"a","id":7}]}`},
		{"a property twice", `{"content":[{"type":"text","text":"a","text":"b"}]}`},
		{"an image without data", `{"content":[{"type":"image","mimeType":"image/png"}]}`},
		{"an image without a media type", `{"content":[{"type":"image","data":"AA=="}]}`},
		{"data that is not base64", `{"content":[{"type":"image","mimeType":"image/png","data":"%%%"}]}`},
		{"a resource without a URI", `{"content":[{"type":"resource","text":"a"}]}`},
		{"a resource with text and bytes", `{"content":[{"type":"resource","uri":"u","text":"a","data":"AA=="}]}`},
		{"a link without a URI", `{"content":[{"type":"resource_link","name":"n"}]}`},
		{"text with bytes", `{"content":[{"type":"text","text":"a","data":"AA=="}]}`},
		{"a type that is not a string", `{"content":[{"type":1}]}`},
		{"trailing data", `{"content":[]} {}`},
		{"malformed", `{"content":[`},
		{"empty", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := toolset.ParseContent(json.RawMessage(tt.res))
			is.New(t).True(!ok)
		})
	}
}

// FuzzParseContent checks that ParseContent never panics, and that what it accepts it writes back to JSON that
// it accepts again as the same parts.
func FuzzParseContent(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":"a"},{"type":"image","mimeType":"image/png","data":"iVBO"}]}`)
	f.Add(`{"content":[{"type":"resource","uri":"file:///a","mimeType":"text/plain","text":"x"}]}`)
	f.Add(`{"content":[{"type":"resource_link","uri":"https://x","name":"n"}]}`)
	f.Add(`{"content":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := toolset.ParseContent(json.RawMessage(s))
		if !ok {
			return
		}
		again, ok := toolset.ParseContent(c.AppendJSON(nil))
		if !ok || len(again.Parts) != len(c.Parts) {
			t.Fatalf("%q parsed, but its JSON %s does not parse back", s, c.AppendJSON(nil))
		}
		for i := range c.Parts {
			a, b := c.Parts[i], again.Parts[i]
			if a.Type != b.Type || a.Text != b.Text || a.MediaType != b.MediaType || string(a.Data) != string(b.Data) ||
				a.URI != b.URI || a.Name != b.Name {
				t.Fatalf("part %d changed: %+v, then %+v", i, a, b)
			}
		}
	})
}

func TestContentText(t *testing.T) {
	is := is.New(t)
	c := toolset.Content{Parts: []toolset.ContentPart{
		toolset.TextPart("Sales"),
		toolset.ImagePart("image/png", make([]byte, 5120)),
		toolset.AudioPart("audio/wav", make([]byte, 44)),
		toolset.ResourceTextPart("file:///s.csv", "text/csv", "a,b"),
		toolset.ResourcePart("file:///s.bin", "application/octet-stream", make([]byte, 3)),
		toolset.LinkPart("https://example.com/report.pdf", "report", "application/pdf"),
	}}
	is.Equal(c.Text(), "Sales\n[image image/png, 5120 bytes]\n[audio audio/wav, 44 bytes]\na,b\n"+
		"[resource file:///s.bin, application/octet-stream, 3 bytes]\n[resource https://example.com/report.pdf]")
}
