package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/toolset"
)

// Analyst reads the charts its tools draw.
type Analyst struct{ agent.Agent }

func (a *Analyst) Declare() { a.WithInstructions("You read charts.") }

// A tool's image reaches the model beside its result's text: the text keeps a line where the image stood, and the
// result's Files hold the image, which each provider sends as an image (docs/providers.md). An SVG is no image a
// model is shown: the line says so.
func Example_toolImage() {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") // the start of a PNG, for the example
	chart := &toolset.Tool{Name: "chart", ID: "example.chart", Description: "Draws the month's sales.",
		Schema: json.RawMessage(`{"type":"object","properties":{}}`), State: &toolset.State{},
		Invoke: func(context.Context, *toolset.Call) (json.RawMessage, error) {
			return toolset.Content{Parts: []toolset.ContentPart{
				toolset.TextPart("Sales by month"),
				toolset.ImagePart("image/png", png),
				toolset.ImagePart("image/svg+xml", []byte("<svg/>")),
			}}.AppendJSON(nil), nil
		}}
	model := chattest.NewScript(chattest.Calls(chattest.Call("call_1", "chart", `{}`)), chattest.Text("Sales rose in March."))
	host, err := agent.NewHost(&Analyst{}, agent.Config{Client: model, Tools: []toolset.Source{toolset.List([]*toolset.Tool{chart})}})
	if err != nil {
		panic(err)
	}
	if _, err := host.Run(context.Background(), agent.Text("How did sales go?")); err != nil {
		panic(err)
	}
	sent := model.Requests()[1].Messages // the model call after the tool ran
	res := sent[len(sent)-1].Parts[0].(chat.ToolResult)
	var text string
	_ = json.Unmarshal(res.Result, &text)
	fmt.Println(text)
	for _, f := range res.Files {
		fmt.Printf("image %s, %d bytes\n", f.MediaType, len(f.Data))
	}
	// Output:
	// Sales by month
	// [image image/png, 16 bytes]
	// [image image/svg+xml, 6 bytes, not shown: a model is given PNG, JPEG, GIF and WebP images only]
	// image image/png, 16 bytes
}
