package agenthttp

import (
	"errors"
	"net/http"
	"time"

	"github.com/typeshift-go/typeshift/agent/background"
)

// errNoBackgroundRun answers a handle the tenant has no background run under: missing, or another tenant's.
var errNoBackgroundRun = &httpError{status: http.StatusNotFound, kind: ProblemNotFound, detail: "no such background run"}

// backgroundJSON is a background run as the API shows it.
type backgroundJSON struct {
	ID                 string     `json:"id"`
	Agent              string     `json:"agent"`
	Status             string     `json:"status"`
	Result             string     `json:"result,omitempty"`
	Error              string     `json:"error,omitempty"`
	CallerConversation string     `json:"caller_conversation_id"`
	Created            time.Time  `json:"created"`
	Updated            time.Time  `json:"updated"`
	Deadline           *time.Time `json:"deadline,omitempty"`
}

func backgroundOf(st background.State) backgroundJSON {
	out := backgroundJSON{ID: st.Job.ID, Agent: st.Job.Agent, Status: string(st.Status), Result: st.Result, Error: st.Error,
		CallerConversation: st.Job.Caller.ConversationID, Created: st.Job.Created.UTC(), Updated: st.Updated.UTC()}
	if !st.Job.Deadline.IsZero() {
		d := st.Job.Deadline.UTC()
		out.Deadline = &d
	}
	return out
}

// backgroundState returns the tenant's background run, or the not-found problem.
func (h *Handler) backgroundState(r *http.Request) (background.State, error) {
	m := h.opts.Background
	if m == nil {
		return background.State{}, errRoute
	}
	st, err := m.State(r.Context(), principal(r).SettingsID, r.PathValue("id"))
	if errors.Is(err, background.ErrNotFound) {
		return background.State{}, errNoBackgroundRun
	}
	return st, err
}

// getBackground answers the state of one of the tenant's background runs.
func (h *Handler) getBackground(w http.ResponseWriter, r *http.Request) error {
	st, err := h.backgroundState(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, backgroundOf(st))
}

// cancelBackground cancels one of the tenant's background runs. A run that has ended stays as it is; one that runs
// stops, and its caller's conversation is told.
func (h *Handler) cancelBackground(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.backgroundState(r); err != nil {
		return err
	}
	p := principal(r)
	if err := h.opts.Background.Cancel(r.Context(), p.SettingsID, r.PathValue("id")); err != nil {
		if errors.Is(err, background.ErrNotFound) {
			return errNoBackgroundRun
		}
		return err
	}
	st, err := h.backgroundState(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, backgroundOf(st))
}
