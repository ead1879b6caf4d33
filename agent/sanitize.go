package agent

import (
	"encoding/json"
	"errors"
	"fmt"

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
// that are JSON cannot be taken: text or numbers no store holds. The call
// does not run; the model may send it again. It returns "" for arguments
// without such a problem, and for those that are not JSON at all, which the
// tool's own checks answer.
func argumentsStoreText(args json.RawMessage) string {
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
