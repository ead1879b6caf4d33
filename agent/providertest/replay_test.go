package providertest_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/toolset"
)

// The tools and prompts of the recordings, as the projects that recorded them declared them.

func weatherTool() *toolset.Tool {
	return &toolset.Tool{Name: "weather", Description: "Get weather information for a location",
		Schema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}
}

func arithmeticTools() []*toolset.Tool {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`)
	return []*toolset.Tool{
		{Name: "add", Description: "Add two numbers", Schema: schema},
		{Name: "multiply", Description: "Multiply two numbers", Schema: schema},
	}
}

// personSchema is the structured answer of the recordings that ask for one.
var personSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The person's name"},"age":{"type":"integer","description":"The person's age"},"city":{"type":"string","description":"The city where the person lives"}},"required":["name","age","city"]}`)

const (
	personPrompt = "Generate information about a person named Alice who is 30 years old and lives in Paris."
	helpful      = "You are a helpful assistant"
)

// image returns the image a recording's first request carried.
func image(t *testing.T, dir, name string, w providertest.Wire) chat.File {
	t.Helper()
	f, err := providertest.RecordedImage(os.DirFS("testdata/recorded/"+dir), name, w)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func user(text string) []chat.Message { return []chat.Message{chat.UserText(text)} }

func intPtr(n int) *int { return &n }

func boolPtr(b bool) *bool { return &b }

// fantasyOptions are the options of charmbracelet/fantasy's common cases: its instructions, 4000 tokens, and
// with tools an explicit automatic choice that allows parallel calls.
func fantasyOptions(instructions string, tools ...*toolset.Tool) *chat.Options {
	o := &chat.Options{Instructions: instructions, MaxTokens: intPtr(4000)}
	return withTools(o, tools...)
}

func withTools(o *chat.Options, tools ...*toolset.Tool) *chat.Options {
	if len(tools) > 0 {
		o.Tools, o.ToolChoice, o.ParallelToolCalls = tools, "auto", boolPtr(true)
	}
	return o
}

// TestProvenance checks that each recording is the file its project made, with its source and licence.
func TestProvenance(t *testing.T) {
	for _, dir := range []string{"anthropic", "gemini", "openai"} {
		t.Run(dir, func(t *testing.T) { providertest.CheckProvenance(t, os.DirFS("testdata/recorded/"+dir)) })
	}
}
