package agenthttp

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/typeshift-go/typeshift/storage"
)

// CaseRequest is what Options.EvalCase is asked for: the case of the tenant's conversation, named Name.
type CaseRequest struct {
	// SettingsID is the request's tenant, the one the case runs for.
	SettingsID string
	// ConversationID is the conversation the case is made of.
	ConversationID string
	// Name is the case's name, from the request's name parameter; "" leaves it to the file's name.
	Name string
	// AnswerTypes names the answer type of each served agent that declares one (agent.Returns), by the agent's
	// name: a case whose answer came from one of them checks the answer's fields rather than its words.
	AnswerTypes map[string]string
}

// ErrNoTurn is what an Options.EvalCase function returns (or wraps) for a conversation without a turn to make a
// case of: it answers 409 no-turn.
var ErrNoTurn = errors.New("agenthttp: the conversation has no turn to make a case of")

var (
	errNoEvalCases = &httpError{status: http.StatusNotFound, kind: ProblemNotFound, detail: "this server makes no eval cases"}
	errCaseName    = &fieldError{Pointer: "", Detail: "name must be 1 to 100 letters, digits, '_', '-' or '.', not starting with '.'"}
)

// maxCaseName bounds a case's name, which names its file.
const maxCaseName = 100

// getEvalCase answers an eval case made of the tenant's conversation (Options.EvalCase), as a file to save:
// application/json with a Content-Disposition naming it after the case, or after the conversation.
func (h *Handler) getEvalCase(w http.ResponseWriter, r *http.Request) error {
	if h.opts.EvalCase == nil {
		return errNoEvalCases
	}
	id, p := r.PathValue("id"), principal(r)
	name, named := r.URL.Query()["name"]
	if named && (len(name) != 1 || !validCaseName(name[0])) {
		return errCaseName
	}
	req := CaseRequest{SettingsID: p.SettingsID, ConversationID: id}
	for name, host := range h.hosts {
		if ans, ok := host.AnswerType(); ok {
			if req.AnswerTypes == nil {
				req.AnswerTypes = map[string]string{}
			}
			req.AnswerTypes[name] = ans.Name
		}
	}
	if named {
		req.Name = name[0]
	}
	// Any host reads the shared store: the entries from the last summary on, all a case reads. No entry is not
	// found, as GET /conversations/{id} answers, for another tenant's conversation too.
	entries, err := h.hosts[h.names[0]].LoadEntries(r.Context(), p.SettingsID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	data, err := h.opts.EvalCase(r.Context(), entries, req)
	if err != nil {
		return err
	}
	file := req.Name
	if file == "" {
		file = fileName(id)
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": file + ".json"}))
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	return nil
}

// validCaseName reports whether name can name a case and its file: letters, digits, '_', '-' and '.', not
// starting with '.' (no hidden file, no path).
func validCaseName(name string) bool {
	if name == "" || len(name) > maxCaseName || name[0] == '.' {
		return false
	}
	for _, c := range name {
		if !fileNameChar(c) && c != '.' {
			return false
		}
	}
	return true
}

func fileNameChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// fileName makes a file name of a conversation id: its letters, digits, '_' and '-', each other character as
// '_', at most 64 of them; "conversation" when none is left.
func fileName(id string) string {
	var b strings.Builder
	for _, c := range id {
		if b.Len() == 64 {
			break
		}
		if fileNameChar(c) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if strings.Trim(b.String(), "_") == "" {
		return "conversation"
	}
	return b.String()
}
