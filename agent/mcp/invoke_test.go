package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/toolset"
)

func TestObjectArguments(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: ``, want: `{}`},
		{in: ` null `, want: `{}`},
		{in: `{}`, want: `{}`},
		{in: `{"a":[1,{"b":null}],"c":"\u00e9"}`, want: `{"a":[1,{"b":null}],"c":"\u00e9"}`},
		{in: `[]`, err: "arguments must be an object, got array"},
		{in: `3`, err: "arguments must be an object, got number"},
		{in: `{"a":1,}`, err: "invalid JSON at offset 7: expected a string for an object key, got '}'"},
		{in: `{"a":tru}`, err: "invalid JSON at offset 8: unexpected character '}'"},
		{in: `{} x`, err: "invalid JSON at offset 3: unexpected data after the top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, err := objectArguments(json.RawMessage(tt.in))
			if tt.err != "" {
				var aerr *toolset.ArgumentError
				is.True(errors.As(err, &aerr))
				is.Equal(err.Error(), tt.err)
				return
			}
			is.NoErr(err)
			is.Equal(string(got), tt.want)
		})
	}
}

// FuzzObjectArguments checks that the arguments accepted are exactly the JSON objects, and that an error is
// always an ArgumentError.
func FuzzObjectArguments(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"a":1}`, `[1]`, `{"a":`, `{"a":"\ud800"}`, `{"a":1}{}`, ` {"b":[true,false,null]} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := objectArguments(data)
		if err != nil {
			var aerr *toolset.ArgumentError
			if !errors.As(err, &aerr) {
				t.Fatalf("%q: error %T is not an ArgumentError", data, err)
			}
			if json.Valid(data) && isObject(data) {
				t.Fatalf("%q: valid object rejected: %v", data, err)
			}
			return
		}
		if !json.Valid(got) || !isObject(got) {
			t.Fatalf("%q: accepted, giving %q, which is not a JSON object", data, got)
		}
	})
}

func isObject(data []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(data, &m) == nil && m != nil
}

func TestContentText(t *testing.T) {
	tests := []struct {
		name  string
		parts []sdk.Content
		want  string
	}{
		{name: "none", want: ""},
		{name: "texts joined", parts: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}, want: "a\nb"},
		{name: "image described", parts: []sdk.Content{&sdk.TextContent{Text: "chart:"}, &sdk.ImageContent{MIMEType: "image/png", Data: []byte("1234")}}, want: "chart:\n[image image/png, 4 bytes]"},
		{name: "audio of unknown type", parts: []sdk.Content{&sdk.AudioContent{Data: []byte("12")}}, want: "[audio of unknown type, 2 bytes]"},
		{name: "resource link", parts: []sdk.Content{&sdk.ResourceLink{URI: "file:///a.txt", Name: "a"}}, want: "[resource file:///a.txt]"},
		{name: "embedded text", parts: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "hello"}}}, want: "hello"},
		{name: "embedded blob", parts: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/pdf", Blob: []byte("xyz")}}}, want: "[resource file:///b, application/pdf, 3 bytes]"},
		{name: "empty embedded skipped", parts: []sdk.Content{&sdk.EmbeddedResource{}, &sdk.TextContent{Text: "x"}}, want: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(contentText(tt.parts), tt.want)
		})
	}
}

func TestResult(t *testing.T) {
	s := &Server{name: "fs"}
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		want string
		err  string
	}{
		{name: "text as a JSON string", res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `say "hi"`}}}, want: `"say \"hi\""`},
		{name: "structured preferred", res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ignored"}}, StructuredContent: map[string]any{"n": 1}}, want: `{"n":1}`},
		{name: "structured array", res: &sdk.CallToolResult{StructuredContent: []any{"a"}}, want: `["a"]`},
		{name: "empty", res: &sdk.CallToolResult{}, want: `""`},
		{name: "media as content", res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "chart:"},
			&sdk.ImageContent{MIMEType: "image/png", Data: []byte("1234")}, &sdk.AudioContent{Data: []byte("12")},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/pdf", Blob: []byte("xyz")}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "hello"}},
			&sdk.ResourceLink{URI: "file:///a.txt", Name: "a"}}},
			want: `{"content":[{"type":"text","text":"chart:"},{"type":"image","mimeType":"image/png","data":"MTIzNA=="},` +
				`{"type":"audio","mimeType":"application/octet-stream","data":"MTI="},` +
				`{"type":"resource","mimeType":"application/pdf","data":"eHl6","uri":"file:///b"},` +
				`{"type":"resource","text":"hello","uri":"file:///a"},{"type":"resource_link","uri":"file:///a.txt","name":"a"}]}`},
		{name: "an image without bytes described", res: &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png"}}},
			want: `"[image image/png, 0 bytes]"`},
		{name: "error text", res: &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk full"}}}, err: "disk full"},
		{name: "error without text", res: &sdk.CallToolResult{IsError: true}, err: `tool "t" failed without saying why`},
		{name: "no result", res: nil, err: `tool "t" of MCP server "fs" returned no result`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := s.result("t", tt.res)
			if tt.err != "" {
				is.Equal(err.Error(), tt.err)
				return
			}
			is.NoErr(err)
			is.Equal(string(got), tt.want)
		})
	}
}
