// Package conformance holds the generated toolset whose results are images, audio and resources, which the
// official MCP conformance suite's server scenarios call by these tools' names. Nothing outside agent/mcp's
// tests uses it.
package conformance

//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate

import (
	"context"
	"encoding/base64"

	"github.com/typeshift-go/typeshift/toolset"
)

// Media is a toolset whose tools answer with content parts rather than JSON data.
type Media struct {
	toolset.Toolset
}

// Declare registers the tools.
func (m *Media) Declare() {
	m.AddTool(m.TestImageContent).ReadOnly()
	m.AddTool(m.TestAudioContent).ReadOnly()
	m.AddTool(m.TestEmbeddedResource).ReadOnly()
	m.AddTool(m.TestMultipleContentTypes).ReadOnly()
}

// RedPixel is a PNG of one red pixel.
var RedPixel = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// Silence is a WAV file of one sample of silence.
var Silence = mustBase64("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==")

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestImageContent answers with an image.
func (m *Media) TestImageContent(ctx context.Context) (toolset.Content, error) {
	return toolset.Content{Parts: []toolset.ContentPart{toolset.ImagePart("image/png", RedPixel)}}, nil
}

// TestAudioContent answers with an audio clip.
func (m *Media) TestAudioContent(ctx context.Context) (toolset.Content, error) {
	return toolset.Content{Parts: []toolset.ContentPart{toolset.AudioPart("audio/wav", Silence)}}, nil
}

// TestEmbeddedResource answers with a resource and its text.
func (m *Media) TestEmbeddedResource(ctx context.Context) (toolset.Content, error) {
	return toolset.Content{Parts: []toolset.ContentPart{
		toolset.ResourceTextPart("test://embedded-resource", "text/plain", "This is an embedded resource content."),
	}}, nil
}

// TestMultipleContentTypes answers with text, an image and a resource, in that order.
func (m *Media) TestMultipleContentTypes(ctx context.Context) (*toolset.Content, error) {
	return &toolset.Content{Parts: []toolset.ContentPart{
		toolset.TextPart("Multiple content types test:"),
		toolset.ImagePart("image/png", RedPixel),
		toolset.ResourceTextPart("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
		toolset.LinkPart("test://linked-resource", "linked", "text/plain"),
	}}, nil
}
