package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// The bounds of the approval requests a served source keeps waiting for an answer.
const (
	approvalTTL        = 10 * time.Minute
	maxPendingApproval = 1024
)

// approvals holds the approval requests a server sent inside results (multi round-trip requests), so that an
// answer counts only when it answers one of them: the client cannot approve a call by sending an answer to a
// question nobody asked.
type approvals struct {
	mu sync.Mutex
	m  map[string]pendingApproval
}

type pendingApproval struct {
	p       Principal
	tool    string
	args    [sha256.Size]byte
	expires time.Time
}

var errTooManyApprovals = errors.New("too many approval requests are waiting for an answer")

// add records a request and returns its id, which is random and so cannot be guessed.
func (a *approvals) add(p Principal, tool string, args json.RawMessage) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if a.m == nil {
		a.m = make(map[string]pendingApproval)
	}
	if len(a.m) >= maxPendingApproval {
		for id, pa := range a.m {
			if now.After(pa.expires) {
				delete(a.m, id)
			}
		}
		if len(a.m) >= maxPendingApproval {
			return "", errTooManyApprovals
		}
	}
	id := "approve-" + rand.Text()
	a.m[id] = pendingApproval{p: p, tool: tool, args: sha256.Sum256(args), expires: now.Add(approvalTTL)}
	return id, nil
}

// take removes the request id and reports whether it was waiting, unexpired, for this principal, tool and
// arguments.
func (a *approvals) take(id string, p Principal, tool string, args json.RawMessage) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	pa, ok := a.m[id]
	if !ok {
		return false
	}
	delete(a.m, id)
	return pa.p == p && pa.tool == tool && pa.args == sha256.Sum256(args) && time.Now().Before(pa.expires)
}
