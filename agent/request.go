package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// newRequest makes the approval request for a call of the tool whose identity is toolID.
func newRequest(call chat.ToolCall, toolID string) chat.ApprovalRequest {
	return chat.ApprovalRequest{ID: requestID(call, toolID), Call: call, ToolID: toolID}
}

// requestID derives a request's ID from the call it shows: the call's ID, the tool's identity and the canonical
// arguments. An answer binds to the request by this ID, so a history in which the request's arguments or tool were
// changed after it was shown no longer matches it (see ApprovalTampered).
func requestID(call chat.ToolCall, toolID string) string {
	h := sha256.New()
	h.Write([]byte(call.ID))
	h.Write([]byte{0})
	h.Write([]byte(toolID))
	h.Write([]byte{0})
	h.Write([]byte(canonicalJSON(call.Arguments)))
	var sum [sha256.Size]byte
	return "approval_" + hex.EncodeToString(h.Sum(sum[:0])[:12])
}

// canonicalJSON returns args with sorted keys and no insignificant space, so that two spellings of the same
// arguments compare equal. Arguments that are not JSON are returned as they are.
func canonicalJSON(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return string(args)
	}
	b, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return string(args)
	}
	return string(b)
}
