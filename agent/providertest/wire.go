package providertest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Wire names an API's wire format: what the replay suite reads of its recorded requests and answers.
type Wire string

// The wire formats the replay suite reads.
const (
	// Anthropic is the Messages API (POST /v1/messages), whole or streamed.
	Anthropic Wire = "anthropic"
	// Gemini is the Gemini API's generateContent and streamGenerateContent.
	Gemini Wire = "gemini"
	// Responses is OpenAI's Responses API (POST /v1/responses), whole or streamed.
	Responses Wire = "openai-responses"
	// Chat is OpenAI's Chat Completions API (POST /v1/chat/completions), whole or streamed.
	Chat Wire = "openai-chat"
)

// answer is what a recorded answer holds, read straight from its JSON: what the client must have made of it.
type answer struct {
	text      string
	reasoning []reasoning
	calls     []call
	usage     chat.Usage
	finish    chat.FinishReason
}

type reasoning struct{ id, text, signature, encrypted string }

type call struct {
	id, name string
	args     json.RawMessage
}

// result is a tool's result as a follow-up request carried it.
type result struct {
	callID, name string
	text         string
	value        json.RawMessage // a structured result, when the request carried one
	isError      bool
}

func obj(v any) map[string]any { o, _ := v.(map[string]any); return o }
func list(v any) []any         { l, _ := v.([]any); return l }
func str(v any) string         { s, _ := v.(string); return s }

func num(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return i
	case float64:
		return int64(n)
	}
	return 0
}

// decodeJSON reads a body with its numbers as written.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// events returns the JSON payloads of a server-sent event stream's data lines.
func events(body []byte) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		v, err := decodeJSON([]byte(strings.TrimSpace(data)))
		if err == nil && obj(v) != nil {
			out = append(out, obj(v))
		}
	}
	return out
}

// streamed reports whether the recorded request asked for a stream.
func (w Wire) streamed(in Interaction) bool {
	if w == Gemini {
		return strings.Contains(in.URL, ":streamGenerateContent")
	}
	v, _ := decodeJSON(in.RequestBody)
	b, _ := obj(v)["stream"].(bool)
	return b
}

// model returns the model the recorded request named.
func (w Wire) model(in Interaction) string {
	if w == Gemini {
		u, err := url.Parse(in.URL)
		if err != nil {
			return ""
		}
		_, m, _ := strings.Cut(u.Path, "/models/")
		m, _, _ = strings.Cut(m, ":")
		return m
	}
	v, _ := decodeJSON(in.RequestBody)
	return str(obj(v)["model"])
}

// answer reads what the recorded answer holds.
func (w Wire) answer(in Interaction, stream bool) (answer, error) {
	switch w {
	case Anthropic:
		if stream {
			return anthropicAnswer(anthropicAssemble(events(in.Body))), nil
		}
		v, err := decodeJSON(in.Body)
		return anthropicAnswer(obj(v)), err
	case Gemini:
		if stream {
			return geminiAnswer(events(in.Body)), nil
		}
		v, err := decodeJSON(in.Body)
		return geminiAnswer([]map[string]any{obj(v)}), err
	case Responses:
		if stream {
			for _, e := range events(in.Body) {
				if str(e["type"]) == "response.completed" || str(e["type"]) == "response.incomplete" {
					return responsesAnswer(obj(e["response"])), nil
				}
			}
			return answer{}, fmt.Errorf("the recorded stream has no response.completed event")
		}
		v, err := decodeJSON(in.Body)
		return responsesAnswer(obj(v)), err
	case Chat:
		if stream {
			return chatAnswer(chatAssemble(events(in.Body))), nil
		}
		v, err := decodeJSON(in.Body)
		return chatAnswer(obj(v)), err
	}
	return answer{}, fmt.Errorf("unknown wire %q", w)
}

func anthropicAnswer(m map[string]any) answer {
	var a answer
	for _, b := range list(m["content"]) {
		b := obj(b)
		switch str(b["type"]) {
		case "text":
			a.text += str(b["text"])
		case "thinking":
			a.reasoning = append(a.reasoning, reasoning{text: str(b["thinking"]), signature: str(b["signature"])})
		case "redacted_thinking":
			a.reasoning = append(a.reasoning, reasoning{encrypted: str(b["data"])})
		case "tool_use":
			args, _ := json.Marshal(b["input"])
			a.calls = append(a.calls, call{id: str(b["id"]), name: str(b["name"]), args: args})
		}
	}
	u := obj(m["usage"])
	read, write := num(u["cache_read_input_tokens"]), num(u["cache_creation_input_tokens"])
	in := num(u["input_tokens"]) + read + write
	out := num(u["output_tokens"])
	a.usage = chat.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out, CacheReadTokens: read,
		CacheWriteTokens: write, ReasoningTokens: num(obj(u["output_tokens_details"])["thinking_tokens"])}
	switch str(m["stop_reason"]) {
	case "end_turn", "stop_sequence":
		a.finish = chat.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		a.finish = chat.FinishLength
	case "tool_use":
		a.finish = chat.FinishToolCalls
	case "refusal":
		a.finish = chat.FinishContentFilter
	}
	return a
}

// anthropicAssemble builds the message a stream of Messages API events describes.
func anthropicAssemble(evs []map[string]any) map[string]any {
	msg := map[string]any{}
	var blocks []map[string]any
	partial := map[int]string{}
	usage := map[string]any{}
	merge := func(u map[string]any) {
		for k, v := range u {
			if num(v) != 0 || usage[k] == nil {
				usage[k] = v
			}
		}
	}
	for _, e := range evs {
		switch str(e["type"]) {
		case "message_start":
			merge(obj(obj(e["message"])["usage"]))
		case "content_block_start":
			blocks = append(blocks, obj(e["content_block"]))
		case "content_block_delta":
			i := int(num(e["index"]))
			if i >= len(blocks) {
				continue
			}
			b, d := blocks[i], obj(e["delta"])
			switch str(d["type"]) {
			case "text_delta":
				b["text"] = str(b["text"]) + str(d["text"])
			case "thinking_delta":
				b["thinking"] = str(b["thinking"]) + str(d["thinking"])
			case "signature_delta":
				b["signature"] = str(b["signature"]) + str(d["signature"])
			case "input_json_delta":
				partial[i] += str(d["partial_json"])
			}
		case "message_delta":
			if r := str(obj(e["delta"])["stop_reason"]); r != "" {
				msg["stop_reason"] = r
			}
			merge(obj(e["usage"]))
		}
	}
	content := make([]any, len(blocks))
	for i, b := range blocks {
		if p, ok := partial[i]; ok {
			if p == "" {
				p = "{}"
			}
			v, _ := decodeJSON([]byte(p))
			b["input"] = v
		}
		content[i] = b
	}
	msg["content"] = content
	msg["usage"] = usage
	return msg
}

// geminiAnswer reads the first candidate of one answer, or of every chunk of a stream.
func geminiAnswer(chunks []map[string]any) answer {
	var a answer
	var meta map[string]any
	finish := ""
	for _, c := range chunks {
		if u := obj(c["usageMetadata"]); u != nil {
			meta = u
		}
		cands := list(c["candidates"])
		if len(cands) == 0 {
			continue
		}
		cand := obj(cands[0])
		if r := str(cand["finishReason"]); r != "" {
			finish = r
		}
		for _, p := range list(obj(cand["content"])["parts"]) {
			p := obj(p)
			sig := canonicalBase64(str(p["thoughtSignature"]))
			switch {
			case p["thought"] == true:
				a.reasoning = append(a.reasoning, reasoning{text: str(p["text"]), signature: sig})
			case p["functionCall"] != nil:
				if sig != "" {
					a.reasoning = append(a.reasoning, reasoning{signature: sig})
				}
				fc := obj(p["functionCall"])
				args, _ := json.Marshal(fc["args"])
				if fc["args"] == nil {
					args = []byte("{}")
				}
				a.calls = append(a.calls, call{id: str(fc["id"]), name: str(fc["name"]), args: args})
			default:
				if sig != "" {
					a.reasoning = append(a.reasoning, reasoning{signature: sig})
				}
				a.text += str(p["text"])
			}
		}
	}
	in := num(meta["promptTokenCount"]) + num(meta["toolUsePromptTokenCount"])
	thoughts := num(meta["thoughtsTokenCount"])
	out := num(meta["candidatesTokenCount"]) + thoughts
	total := num(meta["totalTokenCount"])
	if total == 0 {
		total = in + out
	}
	a.usage = chat.Usage{InputTokens: in, OutputTokens: out, TotalTokens: total,
		CacheReadTokens: num(meta["cachedContentTokenCount"]), ReasoningTokens: thoughts}
	switch {
	case len(a.calls) > 0 && (finish == "STOP" || finish == ""):
		a.finish = chat.FinishToolCalls
	case finish == "STOP":
		a.finish = chat.FinishStop
	case finish == "MAX_TOKENS":
		a.finish = chat.FinishLength
	case finish != "":
		a.finish = chat.FinishReason(strings.ToLower(finish))
	}
	return a
}

func responsesAnswer(r map[string]any) answer {
	var a answer
	for _, it := range list(r["output"]) {
		it := obj(it)
		switch str(it["type"]) {
		case "message":
			for _, c := range list(it["content"]) {
				c := obj(c)
				switch str(c["type"]) {
				case "output_text":
					a.text += str(c["text"])
				case "refusal":
					a.text += str(c["refusal"])
				}
			}
		case "reasoning":
			var texts []string
			for _, s := range list(it["summary"]) {
				texts = append(texts, str(obj(s)["text"]))
			}
			a.reasoning = append(a.reasoning, reasoning{id: str(it["id"]), text: strings.Join(texts, "\n\n"),
				encrypted: str(it["encrypted_content"])})
		case "function_call":
			a.calls = append(a.calls, call{id: str(it["call_id"]), name: str(it["name"]), args: json.RawMessage(str(it["arguments"]))})
		}
	}
	u := obj(r["usage"])
	in, out := num(u["input_tokens"]), num(u["output_tokens"])
	total := num(u["total_tokens"])
	if total == 0 {
		total = in + out
	}
	a.usage = chat.Usage{InputTokens: in, OutputTokens: out, TotalTokens: total,
		CacheReadTokens:  num(obj(u["input_tokens_details"])["cached_tokens"]),
		ReasoningTokens:  num(obj(u["output_tokens_details"])["reasoning_tokens"]),
		CacheWriteTokens: 0}
	switch {
	case str(r["status"]) == "incomplete" && str(obj(r["incomplete_details"])["reason"]) == "content_filter":
		a.finish = chat.FinishContentFilter
	case str(r["status"]) == "incomplete":
		a.finish = chat.FinishLength
	case len(a.calls) > 0:
		a.finish = chat.FinishToolCalls
	default:
		a.finish = chat.FinishStop
	}
	return a
}

func chatAnswer(r map[string]any) answer {
	var a answer
	choices := list(r["choices"])
	if len(choices) > 0 {
		c := obj(choices[0])
		m := obj(c["message"])
		a.text = str(m["content"]) + str(m["refusal"])
		for _, tc := range list(m["tool_calls"]) {
			tc := obj(tc)
			f := obj(tc["function"])
			a.calls = append(a.calls, call{id: str(tc["id"]), name: str(f["name"]), args: json.RawMessage(str(f["arguments"]))})
		}
		switch str(c["finish_reason"]) {
		case "stop":
			a.finish = chat.FinishStop
		case "length":
			a.finish = chat.FinishLength
		case "tool_calls", "function_call":
			a.finish = chat.FinishToolCalls
		case "content_filter":
			a.finish = chat.FinishContentFilter
		}
	}
	u := obj(r["usage"])
	in, out := num(u["prompt_tokens"]), num(u["completion_tokens"])
	total := num(u["total_tokens"])
	if total == 0 {
		total = in + out
	}
	a.usage = chat.Usage{InputTokens: in, OutputTokens: out, TotalTokens: total,
		CacheReadTokens: num(obj(u["prompt_tokens_details"])["cached_tokens"]),
		ReasoningTokens: num(obj(u["completion_tokens_details"])["reasoning_tokens"])}
	return a
}

// chatAssemble builds the completion a stream of Chat Completions chunks describes.
func chatAssemble(evs []map[string]any) map[string]any {
	content, refusal, finish := "", "", ""
	var calls []map[string]any
	var usage any
	for _, e := range evs {
		if u := e["usage"]; obj(u) != nil {
			usage = u
		}
		for _, c := range list(e["choices"]) {
			c := obj(c)
			if r := str(c["finish_reason"]); r != "" {
				finish = r
			}
			d := obj(c["delta"])
			content += str(d["content"])
			refusal += str(d["refusal"])
			for _, tc := range list(d["tool_calls"]) {
				tc := obj(tc)
				i := int(num(tc["index"]))
				for len(calls) <= i {
					calls = append(calls, map[string]any{"function": map[string]any{}})
				}
				if id := str(tc["id"]); id != "" {
					calls[i]["id"] = id
				}
				f, cf := obj(tc["function"]), obj(calls[i]["function"])
				if n := str(f["name"]); n != "" {
					cf["name"] = n
				}
				cf["arguments"] = str(cf["arguments"]) + str(f["arguments"])
			}
		}
	}
	tcs := make([]any, len(calls))
	for i, c := range calls {
		tcs[i] = c
	}
	msg := map[string]any{"content": content, "refusal": refusal, "tool_calls": tcs}
	return map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": finish}}, "usage": usage}
}

// results reads the tool results a recorded follow-up request carried, in order.
func (w Wire) results(body []byte) []result {
	v, _ := decodeJSON(body)
	doc := obj(v)
	var out []result
	switch w {
	case Anthropic:
		msgs := list(doc["messages"])
		if len(msgs) == 0 {
			return nil
		}
		for _, b := range list(obj(msgs[len(msgs)-1])["content"]) {
			b := obj(b)
			if str(b["type"]) != "tool_result" {
				continue
			}
			r := result{callID: str(b["tool_use_id"]), isError: b["is_error"] == true}
			switch c := b["content"].(type) {
			case string:
				r.text = c
			case []any:
				for _, p := range c {
					r.text += str(obj(p)["text"])
				}
			}
			out = append(out, r)
		}
	case Responses:
		for _, it := range list(doc["input"]) {
			it := obj(it)
			if str(it["type"]) != "function_call_output" {
				continue
			}
			r := result{callID: str(it["call_id"])}
			switch o := it["output"].(type) {
			case string:
				r.text = o
			case []any:
				for _, p := range o {
					r.text += str(obj(p)["text"])
				}
			}
			out = append(out, r)
		}
		// only the results after the last function call of the history answer the last answer
		if n := lastCallOutputs(list(doc["input"])); n < len(out) {
			out = out[len(out)-n:]
		}
	case Chat:
		msgs := list(doc["messages"])
		start := len(msgs)
		for start > 0 && str(obj(msgs[start-1])["role"]) == "tool" {
			start--
		}
		for _, m := range msgs[start:] {
			m := obj(m)
			r := result{callID: str(m["tool_call_id"])}
			switch c := m["content"].(type) {
			case string:
				r.text = c
			case []any:
				for _, p := range c {
					r.text += str(obj(p)["text"])
				}
			}
			out = append(out, r)
		}
	case Gemini:
		contents := list(doc["contents"])
		if len(contents) == 0 {
			return nil
		}
		for _, p := range list(obj(contents[len(contents)-1])["parts"]) {
			fr := obj(obj(p)["functionResponse"])
			if fr == nil {
				continue
			}
			r := result{callID: str(fr["id"]), name: str(fr["name"])}
			resp := obj(fr["response"])
			if e, ok := resp["error"]; ok && len(resp) == 1 {
				r.isError, r.text = true, fmt.Sprint(e)
			} else {
				v := unwrapResult(resp)
				if s, ok := v.(string); ok {
					r.text = s
				} else {
					r.value, _ = json.Marshal(v)
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// lastCallOutputs counts the function call outputs at the end of a Responses input.
func lastCallOutputs(items []any) int {
	n := 0
	for i := len(items) - 1; i >= 0; i-- {
		if str(obj(items[i])["type"]) != "function_call_output" {
			break
		}
		n++
	}
	return n
}

// resultKeys are the keys libraries wrap a function's result in, in a Gemini function response: the API
// documents "output" (and "error"); others write "result" or "return_value". Each is read as the result.
var resultKeys = []string{"output", "result", "return_value"}

func unwrapResult(resp map[string]any) any {
	if len(resp) == 1 {
		for _, k := range resultKeys {
			if v, ok := resp[k]; ok {
				return v
			}
		}
	}
	return resp
}

// canonicalBase64 rewrites base64 in the standard alphabet with padding, so that the URL-safe form one SDK
// sends and the standard form another sends compare equal; anything else is left as it is.
func canonicalBase64(s string) string {
	if s == "" {
		return s
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return base64.StdEncoding.EncodeToString(b)
		}
	}
	return s
}
