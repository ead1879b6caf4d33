package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// Text a model sends, or a tool returns, may hold what no store keeps (see
// storage.CheckJSON): NUL, invalid UTF-8, half a surrogate pair, numbers
// beyond Postgres's numeric. None of it may end a run. Arguments are
// refused with a message the model reads, before the call runs; everything
// else is mended on its way to the store, the same way each time.

// storableEntries mends entries in place so that every store takes them:
// U+FFFD for text no store holds, numbers no store holds as strings (see
// storage.SanitizeJSON). Data that needs nothing keeps its bytes.
func storableEntries(entries []storage.Entry) {
	for i := range entries {
		e := &entries[i]
		e.Data = storage.SanitizeJSON(e.Data)
		e.RunID = storage.SanitizeText(e.RunID)
		e.Agent = storage.SanitizeText(e.Agent)
		e.Author = storage.SanitizeText(e.Author)
	}
}

// storableResult mends a tool's result and error text as storableEntries
// would, so that the model reads in this run what a later run reads from
// the store.
func storableResult(r chat.ToolResult) chat.ToolResult {
	r.Result = storage.SanitizeJSON(r.Result)
	r.Error = storage.SanitizeText(r.Error)
	return r
}

// argumentsStoreText returns, in words the model can act on, why arguments
// that are JSON cannot be taken: nesting past the one depth limit, text or
// numbers no store holds. The call
// does not run; the model may send it again. It returns "" for arguments
// without such a problem, and for those that are not JSON at all, which the
// tool's own checks answer.
func argumentsStoreText(args json.RawMessage) string {
	if jsonDepth(args) > tooljson.MaxDepth {
		// The one depth limit, for every tool, whether or not it decodes its arguments (see shallowMessages).
		return argumentsSyntaxText(args)
	}
	var je *storage.JSONError
	if !errors.As(storage.CheckJSON(args), &je) {
		return ""
	}
	switch je.Kind {
	case storage.JSONText:
		return fmt.Sprintf("the arguments cannot be used: %s at offset %d; send them again as text without NUL "+
			"characters, unpaired surrogate escapes (\\ud800 to \\udfff alone) or invalid UTF-8", je.Reason, je.Offset)
	case storage.JSONNumber:
		return fmt.Sprintf("the arguments cannot be used: %s at offset %d; send numbers with at most 131072 "+
			"digits before the point and 16383 after", je.Reason, je.Offset)
	}
	return ""
}

// argumentsSyntaxText returns, in words the model can act on, why arguments
// are not JSON the tool decoders read, with the decoders' own message (such
// as the depth limit's), or "".
func argumentsSyntaxText(args json.RawMessage) string {
	if err := tooljson.Check(args); err != nil {
		return "the arguments are not accepted: " + err.Error() + "; send a JSON object"
	}
	return ""
}

// A value nested deeper than tooljson.MaxDepth is the one depth limit for the JSON a run stores in messages: a
// model's arguments, a provider's raw data, a tool's result. Beyond it, a value is stored as a JSON string of its
// text, so every stored conversation loads (encoding/json stops at 10,000 levels, the envelopes of an entry
// included) and nothing is lost. The tools' decoders hold arguments to the same limit, and answer deeper ones
// with the limit's message before the call runs.

// shallowMessages returns msgs with every value nested deeper than tooljson.MaxDepth stored as a string of its
// text; msgs itself when none is, and a copy otherwise.
func shallowMessages(msgs []chat.Message) []chat.Message {
	var out []chat.Message
	for i, m := range msgs {
		cloned := false // out[i].Parts is a copy of m.Parts
		for j, p := range m.Parts {
			q, changed := shallowPart(p)
			if !changed {
				continue
			}
			if out == nil {
				out = slices.Clone(msgs)
			}
			if !cloned {
				out[i].Parts, cloned = slices.Clone(m.Parts), true
			}
			out[i].Parts[j] = q
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

func shallowPart(p chat.Part) (chat.Part, bool) {
	switch p := p.(type) {
	case chat.ToolCall:
		if a, ok := shallowValue(p.Arguments); ok {
			p.Arguments = a
			return p, true
		}
	case chat.ApprovalRequest:
		if a, ok := shallowValue(p.Call.Arguments); ok {
			p.Call.Arguments = a
			return p, true
		}
	case chat.ToolResult:
		if r, ok := shallowValue(p.Result); ok {
			p.Result = r
			return p, true
		}
	case chat.Raw:
		if d, ok := shallowValue(p.Data); ok {
			p.Data = d
			return p, true
		}
	}
	return nil, false
}

// shallowValue returns v as a JSON string of its text when it nests deeper than tooljson.MaxDepth.
func shallowValue(v json.RawMessage) (json.RawMessage, bool) {
	if jsonDepth(v) <= tooljson.MaxDepth {
		return nil, false
	}
	s, err := json.Marshal(string(v))
	if err != nil {
		return nil, false
	}
	return s, true
}

// jsonDepth returns how deeply the objects and arrays of b nest, reading brackets outside strings.
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
