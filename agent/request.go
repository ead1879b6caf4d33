package agent

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// newRequest makes the approval request for a call of the tool whose identity is toolID.
func (h *Host) newRequest(call chat.ToolCall, toolID string) chat.ApprovalRequest {
	return chat.ApprovalRequest{ID: h.requestID(call, toolID), Call: call, ToolID: toolID}
}

// requestID derives a request's ID from the call it shows — the call's ID, the tool's identity and the canonical
// arguments — authenticated with the host's approval key. An answer binds to the request by this ID, so a history
// in which the request's arguments or tool were changed after it was shown no longer matches it
// (ApprovalTampered), and a history kept by the caller cannot carry a request the host never issued: without the
// key, nobody can compute the ID of a request of their own making.
func (h *Host) requestID(call chat.ToolCall, toolID string) string {
	m := hmac.New(sha256.New, h.approvalKey())
	m.Write([]byte(call.ID))
	m.Write([]byte{0})
	m.Write([]byte(toolID))
	m.Write([]byte{0})
	m.Write([]byte(canonicalJSON(call.Arguments)))
	var sum [sha256.Size]byte
	return "approval_" + hex.EncodeToString(m.Sum(sum[:0])[:12])
}

// approvalKey returns Config.ApprovalKey, or the process's own random key.
func (h *Host) approvalKey() []byte {
	if len(h.cfg.ApprovalKey) > 0 {
		return h.cfg.ApprovalKey
	}
	return processApprovalKey()
}

// processApprovalKey is the approval key of hosts without Config.ApprovalKey: random, so the requests in a
// caller-kept history verify in the process that issued them and nowhere else.
var processApprovalKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand documents it)
	return k
})

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

// standingApproval approves later calls of a tool, or of a tool with these exact (canonical) arguments.
type standingApproval struct {
	toolID string
	args   string // "" approves every call of the tool
}
