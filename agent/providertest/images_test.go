package providertest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// A PNG of one pixel, and the start of a GIF: a tool's chart and its animation.
var (
	chartPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	chartGIF    = []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
)

// chartTool returns a toolset.Content: a caption, the PNG, an SVG (which no model is shown) and the GIF.
func chartTool() toolset.Source {
	return toolset.List([]*toolset.Tool{{Name: "chart", ID: "test.chart", Description: "Draws the month's sales.",
		Schema: json.RawMessage(`{"type":"object","properties":{}}`), ReadOnly: true, State: &toolset.State{},
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return toolset.Content{Parts: []toolset.ContentPart{
				toolset.TextPart("Sales by month"),
				toolset.ImagePart("image/png", chartPNG),
				toolset.ImagePart("image/svg+xml", []byte("<svg/>")),
				toolset.ImagePart("image/gif", chartGIF),
			}}.AppendJSON(nil), nil
		}}})
}

// sentImage is an image as a request carried it: its media type and its bytes in base64.
type sentImage struct{ mediaType, data string }

// toolImages returns the images a request body carries for the result of the chart tool, and the text the model
// reads beside them, each where the provider's wire format puts a tool's images.
func toolImages(t *testing.T, wire, body string) (images []sentImage, text string) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("request body: %v", err)
	}
	list := func(v any) []any { l, _ := v.([]any); return l }
	obj := func(v any) map[string]any { o, _ := v.(map[string]any); return o }
	str := func(v any) string { s, _ := v.(string); return s }
	dataURL := func(u string) sentImage {
		mt, data, _ := strings.Cut(strings.TrimPrefix(u, "data:"), ";base64,")
		return sentImage{mt, data}
	}
	var texts []string
	switch wire {
	case "openai": // the tool messages, then a user message with the images
		msgs := list(doc["messages"])
		for i, m := range msgs {
			if str(obj(m)["role"]) != "tool" || i+1 >= len(msgs) {
				continue
			}
			texts = append(texts, str(obj(m)["content"]))
			next := obj(msgs[i+1])
			if str(next["role"]) != "user" {
				continue
			}
			for _, p := range list(next["content"]) {
				switch p := obj(p); str(p["type"]) {
				case "text":
					texts = append(texts, str(p["text"]))
				case "image_url":
					images = append(images, dataURL(str(obj(p["image_url"])["url"])))
				}
			}
		}
	case "openai-responses": // the function call's output: text and images
		for _, it := range list(doc["input"]) {
			if str(obj(it)["type"]) != "function_call_output" {
				continue
			}
			for _, p := range list(obj(it)["output"]) {
				switch p := obj(p); str(p["type"]) {
				case "input_text":
					texts = append(texts, str(p["text"]))
				case "input_image":
					images = append(images, dataURL(str(p["image_url"])))
				}
			}
		}
	case "anthropic": // the tool_result block's content: text and image blocks
		for _, m := range list(doc["messages"]) {
			for _, b := range list(obj(m)["content"]) {
				if str(obj(b)["type"]) != "tool_result" {
					continue
				}
				for _, c := range list(obj(b)["content"]) {
					switch c := obj(c); str(c["type"]) {
					case "text":
						texts = append(texts, str(c["text"]))
					case "image":
						src := obj(c["source"])
						if str(src["type"]) == "base64" {
							images = append(images, sentImage{str(src["media_type"]), str(src["data"])})
						}
					}
				}
			}
		}
	case "gemini-3", "gemini-2.5": // the function response's parts, inline data; what it cannot show under not_shown
		for _, c := range list(doc["contents"]) {
			for _, p := range list(obj(c)["parts"]) {
				fr := obj(obj(p)["functionResponse"])
				if fr == nil {
					continue
				}
				texts = append(texts, str(obj(fr["response"])["output"]))
				for _, n := range list(obj(fr["response"])["not_shown"]) {
					texts = append(texts, str(n))
				}
				for _, part := range list(fr["parts"]) {
					in := obj(obj(part)["inlineData"])
					images = append(images, sentImage{str(in["mimeType"]), str(in["data"])})
				}
			}
		}
	default:
		t.Fatalf("no reader for wire %s", wire)
	}
	return images, strings.Join(texts, "\n")
}

// TestToolImagesOnEveryProvider checks that an image a tool returns reaches the model as an image, through each
// provider's real client and SDK, where the provider's wire format puts a tool's images, in base64 with its
// media type; that an image no model is shown (SVG) is a line of text, never its bytes; that an image one
// provider cannot take in a tool's result (GIF on Gemini, any image on a Gemini 2 model) is a line saying so;
// and that the images are stored with the conversation and sent again by its next run.
func TestToolImagesOnEveryProvider(t *testing.T) {
	png := sentImage{"image/png", base64.StdEncoding.EncodeToString(chartPNG)}
	gif := sentImage{"image/gif", base64.StdEncoding.EncodeToString(chartGIF)}
	gemini2 := wire{name: "gemini-2.5", serve: func(t *testing.T, script []turn) (chat.Client, func() []string) {
		c, requests := serveGemini(t, script)
		return c.(*gemini.Client).WithModel("gemini-2.5-flash"), requests
	}}
	for _, w := range append(wires(), gemini2) {
		name := w.name
		if name == "gemini" {
			name = "gemini-3" // the suite's wire, on a model that takes images in a function response
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			client, requests := w.serve(t, []turn{
				{calls: []call{{id: "call_img", name: "chart", args: `{}`}}},
				{text: "Sales rose in March."},
				{text: "The chart has one bar."},
			})
			if name == "gemini-3" {
				client = client.(*gemini.Client).WithModel("gemini-3-flash-preview")
			}
			store := memory.New()
			conv := []agent.RunOption{agent.SettingsID("tenant-1"), agent.Conversation("c-chart")}
			h, err := agent.NewHost(&Desk{}, agent.Config{Client: client, Tools: []toolset.Source{chartTool()}, Store: store})
			is.NoErr(err)
			res, err := h.Run(t.Context(), append(conv, agent.Text("Show me the sales chart."))...)
			is.NoErr(err)
			is.Equal(res.Text(), "Sales rose in March.")
			_, err = h.Run(t.Context(), append(conv, agent.Text("How many bars?"))...)
			is.NoErr(err)

			reqs := requests()
			is.Equal(len(reqs), 3)
			want := []sentImage{png, gif}
			switch name {
			case "gemini-3":
				want = []sentImage{png} // Gemini takes PNG, JPEG and WebP in a function response
			case "gemini-2.5":
				want = nil // and Gemini 2 none
			}
			for _, body := range reqs[1:] { // the round after the call, and the next run from the store
				images, text := toolImages(t, name, body)
				is.Equal(images, want)
				is.True(strings.Contains(text, "Sales by month")) // the result's text, with a line where each image stood
				is.True(strings.Contains(text, fmt.Sprintf("[image image/png, %d bytes]", len(chartPNG))))
				is.True(strings.Contains(text, "[image image/svg+xml, 6 bytes, not shown: a model is given PNG, JPEG, GIF and WebP images only]"))
				is.True(!strings.Contains(body, base64.StdEncoding.EncodeToString([]byte("<svg/>"))))
				switch name {
				case "gemini-3":
					is.True(strings.Contains(text, "[image image/gif, 14 bytes, not shown: Gemini takes PNG, JPEG and WebP images in a function response]"))
				case "gemini-2.5":
					is.True(strings.Contains(text, "[image image/png, 70 bytes, not shown: gemini-2.5-flash takes no images in a function response; Gemini 3 models do]"))
				}
			}
		})
	}
}
