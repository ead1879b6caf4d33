package agenthttp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
)

// conversationInfoJSON is one conversation of a list.
type conversationInfoJSON struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	LastSeq   int64     `json:"last_seq"`
}

// conversationJSON is one conversation: its entries as stored, and what its next run continues from.
type conversationJSON struct {
	ID      string        `json:"id"`
	Mode    string        `json:"mode"`
	Agent   string        `json:"agent,omitempty"`
	Pending []requestJSON `json:"pending"`
	Entries []entryJSON   `json:"entries"`
}

// entryJSON is one stored entry.
type entryJSON struct {
	Seq    int64           `json:"seq"`
	Type   string          `json:"type"`
	RunID  string          `json:"run_id,omitempty"`
	Agent  string          `json:"agent,omitempty"`
	Author string          `json:"author,omitempty"`
	Time   time.Time       `json:"time"`
	Data   json.RawMessage `json:"data"`
}

// listConversations lists the tenant's conversations, most recently updated first, a page at a time.
func (h *Handler) listConversations(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	opts := storage.ListOptions{After: q.Get("after")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > storage.MaxListLimit {
			return &fieldError{Pointer: "", Detail: "limit must be an integer from 1 to " + strconv.Itoa(storage.MaxListLimit)}
		}
		opts.Limit = n
	}
	list, err := h.opts.Store.List(r.Context(), principal(r).SettingsID, opts)
	if err != nil {
		return err
	}
	out := struct {
		Conversations []conversationInfoJSON `json:"conversations"`
		Next          string                 `json:"next,omitempty"`
	}{Conversations: make([]conversationInfoJSON, 0, len(list))}
	for _, c := range list {
		out.Conversations = append(out.Conversations, conversationInfoJSON{ID: c.ConversationID, CreatedAt: c.CreatedAt,
			UpdatedAt: c.UpdatedAt, LastSeq: c.LastSeq})
	}
	if len(list) == storeutil.PageLimit(opts) {
		out.Next = list[len(list)-1].Cursor
	}
	return writeJSON(w, http.StatusOK, out)
}

// getConversation returns the tenant's conversation: every entry, the open approval requests and the mode.
func (h *Handler) getConversation(w http.ResponseWriter, r *http.Request) error {
	id, p := r.PathValue("id"), principal(r)
	host := h.hosts[h.names[0]] // any host reads the shared store
	st, err := h.conversationState(r.Context(), host, p.SettingsID, id)
	if err != nil {
		return err
	}
	entries, err := h.opts.Store.LoadAll(r.Context(), p.SettingsID, id)
	if err != nil {
		return err
	}
	out := conversationJSON{ID: id, Mode: st.Mode, Agent: st.Agent, Pending: requestsJSON(st.Pending),
		Entries: make([]entryJSON, 0, len(entries))}
	for _, e := range entries {
		out.Entries = append(out.Entries, entryJSON{Seq: e.Seq, Type: string(e.Type), RunID: e.RunID, Agent: e.Agent,
			Author: e.Author, Time: e.Time, Data: e.Data})
	}
	return writeJSON(w, http.StatusOK, out)
}

// deleteConversation erases the tenant's conversation.
func (h *Handler) deleteConversation(w http.ResponseWriter, r *http.Request) error {
	if err := h.opts.Store.Delete(r.Context(), principal(r).SettingsID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
