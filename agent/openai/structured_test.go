package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// decimalSchema is a decimal amount as Python's and other generators write it: a number, or a string whose
// pattern has a lookahead, which strict mode refuses ("regex lookaround is not supported").
const decimalSchema = `{"type":"object","properties":{"amount":{"anyOf":[{"type":"number"},{"type":"string","pattern":"^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$"}]},"code":{"type":"string","pattern":"^[A-Z]{3}$"}},"required":["amount","code"]}`

// TestStrictResponseFormatLookaround checks the strict profile on both OpenAI APIs: a pattern with a lookaround
// moves into the description, a plain pattern stays.
func TestStrictResponseFormatLookaround(t *testing.T) {
	rf := &chat.ResponseFormat{Name: "Payment", Strict: true, Schema: json.RawMessage(decimalSchema)}
	check := func(is *is.I, schema map[string]any) {
		props := schema["properties"].(map[string]any)
		str := props["amount"].(map[string]any)["anyOf"].([]any)[1].(map[string]any)
		is.Equal(str["pattern"], nil)                                           // not sent as a pattern...
		is.True(strings.Contains(str["description"].(string), "^(?!^[-+.]*$)")) // ...but said in words
		is.Equal(props["code"].(map[string]any)["pattern"], "^[A-Z]{3}$")       // a plain one stays
		is.Equal(schema["additionalProperties"], false)
	}
	t.Run("chat", func(t *testing.T) {
		is := is.New(t)
		srv := openaitest.NewServer(openaitest.Reply{Text: `{"amount":12.34,"code":"EUR"}`})
		defer srv.Close()
		resp, err := newClient(srv).Respond(context.Background(), []chat.Message{chat.UserText("pay")}, &chat.Options{ResponseFormat: rf})
		is.NoErr(err)
		is.Equal(resp.Messages[0].Text(), `{"amount":12.34,"code":"EUR"}`)
		js := srv.Requests()[0].Decode()["response_format"].(map[string]any)["json_schema"].(map[string]any)
		is.Equal(js["strict"], true)
		check(is, js["schema"].(map[string]any))
	})
	t.Run("responses", func(t *testing.T) {
		is := is.New(t)
		var body []byte
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5-mini","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"{\"amount\":12.34,\"code\":\"EUR\"}","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":5,"total_tokens":10}}`)
		}))
		defer srv.Close()
		c := openai.NewResponses(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey), option.WithMaxRetries(0)).WithModel("gpt-5-mini")
		resp, err := c.Respond(context.Background(), []chat.Message{chat.UserText("pay")}, &chat.Options{ResponseFormat: rf})
		is.NoErr(err)
		is.Equal(resp.Messages[0].Text(), `{"amount":12.34,"code":"EUR"}`)
		var req struct {
			Text struct {
				Format map[string]any `json:"format"`
			} `json:"text"`
		}
		is.NoErr(json.Unmarshal(body, &req))
		is.Equal(req.Text.Format["type"], "json_schema")
		is.Equal(req.Text.Format["name"], "Payment")
		is.Equal(req.Text.Format["strict"], true)
		check(is, req.Text.Format["schema"].(map[string]any))
	})
}
