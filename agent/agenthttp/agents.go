package agenthttp

import (
	"encoding/json"
	"net/http"

	"github.com/typeshift-go/typeshift/agent"
)

// agentJSON describes one agent.
type agentJSON struct {
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	Tools          []toolJSON      `json:"tools"`
	SettingsKind   string          `json:"settings_kind"`
	SettingsSchema json.RawMessage `json:"settings_schema"`
	// Answer is the agent's answer type, for an agent whose runs answer with a typed value; absent otherwise.
	Answer *answerTypeJSON `json:"answer,omitempty"`
}

// toolJSON describes one tool an agent offers.
type toolJSON struct {
	Name             string          `json:"name"`
	ID               string          `json:"id,omitempty"`
	Description      string          `json:"description,omitempty"`
	InputSchema      json.RawMessage `json:"input_schema"`
	ReadOnly         bool            `json:"read_only"`
	RequiresApproval bool            `json:"requires_approval"`
}

func (h *Handler) describe(r *http.Request, host *agent.Host) (agentJSON, error) {
	ctx, p := r.Context(), principal(r)
	tools, err := host.OfferedTools(ctx, p.SettingsID)
	if err != nil {
		return agentJSON{}, err
	}
	schema, err := host.SettingsSchema(ctx, p.SettingsID)
	if err != nil {
		return agentJSON{}, err
	}
	d := host.Declaration()
	out := agentJSON{Name: d.Name, Description: h.opts.Descriptions[d.Name], SettingsKind: d.SettingsKind,
		SettingsSchema: schema, Tools: make([]toolJSON, 0, len(tools)), Answer: answerTypeOf(host)}
	for _, t := range tools {
		schema := t.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out.Tools = append(out.Tools, toolJSON{Name: t.Name, ID: t.ID, Description: t.Description, InputSchema: schema,
			ReadOnly: t.ReadOnly, RequiresApproval: t.RequiresApproval})
	}
	return out, nil
}

func (h *Handler) listAgents(w http.ResponseWriter, r *http.Request) error {
	list := make([]agentJSON, 0, len(h.names))
	for _, name := range h.names {
		a, err := h.describe(r, h.hosts[name])
		if err != nil {
			return err
		}
		list = append(list, a)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"agents": list})
}

func (h *Handler) getAgent(w http.ResponseWriter, r *http.Request) error {
	host, err := h.host(r.PathValue("agent"))
	if err != nil {
		return err
	}
	a, err := h.describe(r, host)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
	return nil
}
