package toolset

import (
	"encoding/json"
	"strconv"

	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// Content is a tool result made of parts that are not all JSON data: text, images, audio, resources and links to
// resources, in order. A tool method returns it (or *Content) like any other result, and the generator writes its
// schema and encoder as for any struct. Served over MCP (package agent/mcp), each part becomes the MCP content of
// its kind; in a run the model reads [Content.Text], and is shown its images beside it where its provider takes
// them (docs/providers.md).
//
//	func (t *Charts) Render(ctx context.Context, in RenderInput) (toolset.Content, error) {
//		png, err := t.draw(ctx, in)
//		if err != nil {
//			return toolset.Content{}, err
//		}
//		return toolset.Content{Parts: []toolset.ContentPart{
//			toolset.TextPart("Sales by month, 2025"),
//			toolset.ImagePart("image/png", png),
//		}}, nil
//	}
type Content struct {
	// Parts are the result's parts, in order.
	Parts []ContentPart `json:"content"`
}

// ContentType is the kind of a [ContentPart].
type ContentType string

// The kinds of content part, named as MCP names them.
const (
	// ContentText is text: Text.
	ContentText ContentType = "text"
	// ContentImage is an image: MediaType and Data.
	ContentImage ContentType = "image"
	// ContentAudio is audio: MediaType and Data.
	ContentAudio ContentType = "audio"
	// ContentResource is a resource given with its contents: URI, MediaType, and Text or Data.
	ContentResource ContentType = "resource"
	// ContentResourceLink names a resource the client may fetch: URI, and optionally Name and MediaType.
	ContentResourceLink ContentType = "resource_link"
)

// ContentPart is one part of a [Content] result. Make parts with [TextPart], [ImagePart], [AudioPart],
// [ResourcePart], [ResourceTextPart] and [LinkPart].
type ContentPart struct {
	// Type is the part's kind.
	Type ContentType `json:"type"`
	// Text is a text part's text, or a text resource's.
	Text string `json:"text,omitempty"`
	// MediaType is the IANA media type of an image, an audio clip or a resource, such as "image/png".
	MediaType string `json:"mimeType,omitempty"`
	// Data holds the bytes of an image, an audio clip or a binary resource; JSON carries them in base64.
	Data []byte `json:"data,omitempty"`
	// URI names a resource, or the resource a link points to.
	URI string `json:"uri,omitempty"`
	// Name is a link's name, which clients show; empty means the URI.
	Name string `json:"name,omitempty"`
}

// TextPart returns a text part.
func TextPart(text string) ContentPart { return ContentPart{Type: ContentText, Text: text} }

// ImagePart returns an image of the given media type, such as "image/png".
func ImagePart(mediaType string, data []byte) ContentPart {
	return ContentPart{Type: ContentImage, MediaType: mediaType, Data: data}
}

// AudioPart returns an audio clip of the given media type, such as "audio/wav".
func AudioPart(mediaType string, data []byte) ContentPart {
	return ContentPart{Type: ContentAudio, MediaType: mediaType, Data: data}
}

// ResourcePart returns the resource named uri with its bytes.
func ResourcePart(uri, mediaType string, data []byte) ContentPart {
	return ContentPart{Type: ContentResource, URI: uri, MediaType: mediaType, Data: data}
}

// ResourceTextPart returns the resource named uri with its text.
func ResourceTextPart(uri, mediaType, text string) ContentPart {
	return ContentPart{Type: ContentResource, URI: uri, MediaType: mediaType, Text: text}
}

// LinkPart returns a link to the resource named uri, which the client may fetch.
func LinkPart(uri, name, mediaType string) ContentPart {
	return ContentPart{Type: ContentResourceLink, URI: uri, Name: name, MediaType: mediaType}
}

// AppendJSON appends c's JSON to b, as its generated encoder writes it: for tools made by hand, whose Invoke
// returns JSON.
func (c Content) AppendJSON(b []byte) []byte {
	b = append(b, `{"content":`...)
	if c.Parts == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i, p := range c.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = tooljson.AppendString(b, string(p.Type))
		field := func(name, v string) {
			if v != "" {
				b = append(b, `,"`+name+`":`...)
				b = tooljson.AppendString(b, v)
			}
		}
		field("text", p.Text)
		field("mimeType", p.MediaType)
		if len(p.Data) > 0 {
			b = append(b, `,"data":`...)
			b = tooljson.AppendBytes(b, p.Data)
		}
		field("uri", p.URI)
		field("name", p.Name)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// ParseContent reports whether a tool's result is a [Content], and returns it. A result is one when it is a JSON
// object whose only property is "content", a list (or null) of parts that each have only a ContentPart's
// properties, a known type and what that type requires: an image's or audio's media type and bytes, a resource's
// URI and its text or bytes, a link's URI. Any other result is JSON data, and ParseContent returns false.
func ParseContent(res json.RawMessage) (Content, bool) {
	d := tooljson.NewDecoder(res)
	var c Content
	if !d.Object() {
		return Content{}, false
	}
	seen := false
	for {
		key, ok := d.Field()
		if !ok {
			break
		}
		if string(key) != "content" || seen {
			return Content{}, false
		}
		seen = true
		if d.Null() {
			continue
		}
		if !d.Array() {
			return Content{}, false
		}
		for d.Elem() {
			p, ok := parsePart(&d)
			if !ok {
				return Content{}, false
			}
			c.Parts = append(c.Parts, p)
		}
	}
	d.End()
	if !seen || d.Err() != nil {
		return Content{}, false
	}
	return c, true
}

// parsePart reads one part at d, and reports whether it is a valid one.
func parsePart(d *tooljson.Decoder) (ContentPart, bool) {
	var p ContentPart
	if !d.Object() {
		return p, false
	}
	var seen [6]bool
	for {
		key, ok := d.Field()
		if !ok {
			break
		}
		i := -1
		switch string(key) {
		case "type":
			i, p.Type = 0, ContentType(d.String())
		case "text":
			i, p.Text = 1, d.String()
		case "mimeType":
			i, p.MediaType = 2, d.String()
		case "data":
			i, p.Data = 3, d.Bytes()
		case "uri":
			i, p.URI = 4, d.String()
		case "name":
			i, p.Name = 5, d.String()
		}
		if i < 0 || seen[i] || d.Err() != nil {
			return p, false
		}
		seen[i] = true
	}
	if d.Err() != nil {
		return p, false
	}
	switch p.Type {
	case ContentText:
		return p, len(p.Data) == 0 && p.URI == ""
	case ContentImage, ContentAudio:
		return p, p.MediaType != "" && len(p.Data) > 0 && p.URI == "" && p.Text == ""
	case ContentResource:
		return p, p.URI != "" && (p.Text == "" || len(p.Data) == 0)
	case ContentResourceLink:
		return p, p.URI != "" && p.Text == "" && len(p.Data) == 0
	}
	return p, false
}

// Text is what a model reads of c: its text parts and text resources, and a line in brackets for each image,
// audio clip, binary resource and link, such as "[image image/png, 5120 bytes]", so that it knows they were
// there; one line per part. A run gives the model this text, since a model reads a tool's result as text and
// base64 would spend its context on bytes it cannot see; the images go beside it, as images.
func (c Content) Text() string {
	var b []byte
	for i, p := range c.Parts {
		if i > 0 {
			b = append(b, '\n')
		}
		switch {
		case p.Type == ContentText, p.Type == ContentResource && len(p.Data) == 0:
			b = append(b, p.Text...)
		case p.Type == ContentResourceLink:
			b = append(b, "[resource "...)
			b = append(b, p.URI...)
			b = append(b, ']')
		default:
			b = append(b, '[')
			b = append(b, p.Type...)
			b = append(b, ' ')
			if p.Type == ContentResource {
				b = append(b, p.URI...)
				b = append(b, ", "...)
			}
			b = append(b, p.MediaType...)
			b = append(b, ", "...)
			b = strconv.AppendInt(b, int64(len(p.Data)), 10)
			b = append(b, " bytes]"...)
		}
	}
	return string(b)
}
