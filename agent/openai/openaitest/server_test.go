package openaitest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

func post(t *testing.T, srv *openaitest.Server, body string) (*http.Response, string) {
	t.Helper()
	res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestCompletionWireFormat(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "Hi \"there\"", ToolCalls: []openaitest.ToolCall{{ID: "call_1", Name: "f", Arguments: `{"a":1}`}}, Usage: &openaitest.Usage{PromptTokens: 3, CompletionTokens: 2}})
	defer srv.Close()
	res, body := post(t, srv, `{"model":"gpt-x","messages":[]}`)
	is.Equal(res.StatusCode, 200)
	is.Equal(res.Header.Get("Content-Type"), "application/json")
	is.Equal(body, `{"id":"chatcmpl-test-1","object":"chat.completion","created":1764460800,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Hi \"there\"","refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}],"annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_test"}`)
	is.True(json.Valid([]byte(body)))
}

func TestStreamWireFormat(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "Hello", ToolCalls: []openaitest.ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}, {ID: "c2", Name: "g", Arguments: `{}`}}})
	defer srv.Close()
	res, body := post(t, srv, `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`)
	is.Equal(res.Header.Get("Content-Type"), "text/event-stream")
	var events []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		is.True(ok) // every line is a data line, events separated by blank lines
		events = append(events, data)
	}
	is.True(strings.HasSuffix(body, "data: [DONE]\n\n"))
	is.Equal(events[0], `{"id":"chatcmpl-test-1","object":"chat.completion.chunk","created":1764460800,"model":"m","service_tier":"default","system_fingerprint":"fp_test","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`)
	for _, e := range events[:len(events)-1] {
		is.True(json.Valid([]byte(e)))
	}
	// role, one text delta, two call openings, argument pieces (3 for c1, 2 for c2), finish, usage, [DONE]
	is.Equal(len(events), 1+1+2+5+1+1+1)
	is.True(strings.Contains(events[len(events)-3], `"finish_reason":"tool_calls"`))
	is.True(strings.Contains(events[len(events)-2], `"choices":[],"usage":{"prompt_tokens":`))
}

func TestScriptAndRequests(t *testing.T) {
	is := is.New(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "one"})
	defer srv.Close()
	srv.Push(openaitest.Error(400, "invalid_request_error", "", "bad"))
	_, b1 := post(t, srv, `{"model":"m"}`)
	res, b2 := post(t, srv, `{"model":"m"}`)
	res3, _ := post(t, srv, `{"model":"m"}`) // the last reply repeats
	is.True(strings.Contains(b1, `"content":"one"`))
	is.Equal(res.StatusCode, 400)
	is.Equal(b2, `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}`)
	is.Equal(res3.StatusCode, 400)
	reqs := srv.Requests()
	is.Equal(len(reqs), 3)
	is.Equal(reqs[0].Decode()["model"], "m")
	is.Equal(reqs[0].Path, "/v1/chat/completions")

	res, body := post(t, srv, `not json`)
	is.Equal(res.StatusCode, 400)
	is.True(strings.Contains(body, "could not parse"))
}
