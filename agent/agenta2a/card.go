package agenta2a

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
)

// inputModes and outputModes are the media types the agent takes and gives: text, the files chat.File carries
// (images and documents), and JSON data parts (approval requests and answers).
var (
	inputModes  = []string{"text/plain", "application/json", "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"}
	outputModes = []string{"text/plain", "application/json"}
)

// buildCard describes the agent from its declaration: its name, a skill per tool it offers (the tenant's settings
// may narrow them further), streaming, and how clients authenticate.
func (h *Handler) buildCard(ctx context.Context) (a2a.AgentCard, error) {
	tools, err := h.host.OfferedTools(ctx, "")
	if err != nil {
		return a2a.AgentCard{}, fmt.Errorf("agenta2a: reading the agent's tools for its card: %w", err)
	}
	name := h.host.Name()
	card := a2a.AgentCard{
		Name:               name,
		Description:        h.opts.Description,
		Version:            h.opts.Version,
		ProtocolVersion:    ProtocolVersion,
		URL:                h.opts.URL,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		Provider:           h.opts.Provider,
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  inputModes,
		DefaultOutputModes: outputModes,
		SecuritySchemes:    h.opts.SecuritySchemes,
		Skills:             []a2a.AgentSkill{},
	}
	if card.Description == "" {
		card.Description = "The " + name + " agent."
	}
	if card.Version == "" {
		card.Version = "1"
	}
	if len(h.opts.SecuritySchemes) > 0 {
		req := a2a.SecurityRequirements{}
		for n := range h.opts.SecuritySchemes {
			req[n] = a2a.SecuritySchemeScopes{}
		}
		card.Security = []a2a.SecurityRequirements{req}
	}
	for _, t := range tools {
		id := t.ID
		if id == "" {
			id = t.Name
		}
		tags := []string{"tool"}
		if t.ReadOnly {
			tags = append(tags, "read-only")
		}
		if t.RequiresApproval {
			tags = append(tags, "requires-approval")
		}
		desc := t.Description
		if desc == "" {
			desc = t.Name
		}
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: id, Name: t.Name, Description: desc, Tags: tags})
	}
	slices.SortFunc(card.Skills, func(a, b a2a.AgentSkill) int { return strings.Compare(a.ID, b.ID) })
	return card, nil
}

// Card returns the agent's card; with Options.URL empty, its URL is empty too.
func (h *Handler) Card() a2a.AgentCard { return h.card }

// serveCard answers the card, its URL the endpoint the card was fetched beside when Options.URL is empty.
func (h *Handler) serveCard(w http.ResponseWriter, r *http.Request) {
	card := h.card
	if card.URL == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		path := strings.TrimSuffix(r.URL.EscapedPath(), CardPath)
		if uri := r.RequestURI; strings.HasPrefix(uri, "/") {
			// The path before a mount's StripPrefix.
			if i := strings.IndexByte(uri, '?'); i >= 0 {
				uri = uri[:i]
			}
			path = strings.TrimSuffix(uri, CardPath)
		}
		card.URL = scheme + "://" + r.Host + path + "/"
	}
	b, err := json.Marshal(card)
	if err != nil {
		http.Error(w, "the card could not be encoded", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*") // the card is public: any page may discover the agent
	_, _ = w.Write(b)
}
