package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// An answer with extended thinking, from a local server standing in for the Messages API: the thinking comes
// back as a signed chat.Reasoning part, which goes back to Claude with the rest of the conversation.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",`+
			`"content":[{"type":"thinking","thinking":"4711 is the printer ticket.","signature":"EqQBCkYIBxgC"},`+
			`{"type":"text","text":"Ticket 4711 is open."}],"stop_reason":"end_turn","stop_sequence":null,`+
			`"usage":{"input_tokens":20,"cache_read_input_tokens":1800,"cache_creation_input_tokens":0,"output_tokens":30}}`)
	}))
	defer srv.Close()

	c := anthropic.New(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL), option.WithAPIKey("sk-ant-example")).
		WithModel("claude-sonnet-4-5").WithThinking(2048)
	resp, err := c.Respond(context.Background(), []chat.Message{chat.UserText("Is ticket 4711 open?")}, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range resp.Messages[0].Parts {
		switch p := p.(type) {
		case chat.Reasoning:
			fmt.Printf("reasoning: %q, signed: %v\n", p.Text, p.Signature != "")
		case chat.Text:
			fmt.Println("text:", p.Text)
		}
	}
	fmt.Printf("input %d, of which cached %d\n", resp.Usage.InputTokens, resp.Usage.CacheReadTokens)
	// Output:
	// reasoning: "4711 is the printer ticket.", signed: true
	// text: Ticket 4711 is open.
	// input 1820, of which cached 1800
}
