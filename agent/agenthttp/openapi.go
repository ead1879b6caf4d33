package agenthttp

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openAPIDocument is the OpenAPI 3.1 document of the native API.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns the OpenAPI 3.1 document of the native API, as GET /openapi.json serves it for agents that
// answer with text. A handler serves it with its agents' answer schemas added (see [Handler.OpenAPI]).
func OpenAPI() []byte { return append([]byte(nil), openAPIDocument...) }

// OpenAPI returns the OpenAPI 3.1 document the handler serves at GET /openapi.json: the native API's, with the
// answer schema of each served agent that declares an answer type as a component named after the agent
// (DeskAnswer for the agent Desk), and a run's answer (the Answer component) one of them.
func (h *Handler) OpenAPI() []byte { return append([]byte(nil), h.openAPIDoc...) }

func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(h.openAPIDoc)
	return nil
}

// buildOpenAPI returns the document the handler serves: the native API's, with its agents' answer schemas.
func (h *Handler) buildOpenAPI() ([]byte, error) {
	type answered struct{ component, agent string }
	var answers []answered
	schemas := map[string]any{}
	for _, name := range h.names {
		ans, ok := h.hosts[name].AnswerType()
		if !ok {
			continue
		}
		comp := componentName(name) + "Answer"
		if _, dup := schemas[comp]; dup {
			return nil, fmt.Errorf("agenthttp: two agents' answer schemas would be the OpenAPI component %s: rename one agent", comp)
		}
		var schema any
		if err := json.Unmarshal(ans.Schema, &schema); err != nil {
			return nil, fmt.Errorf("agenthttp: the answer schema of the agent %q: %w", name, err)
		}
		if m, ok := schema.(map[string]any); ok {
			delete(m, "$schema") // the document's jsonSchemaDialect says it
			delete(m, "$id")
			if _, ok := m["description"]; !ok && ans.Description != "" {
				m["description"] = ans.Description
			}
		}
		schemas[comp] = rebase(schema, "#/components/schemas/"+comp)
		answers = append(answers, answered{comp, name})
	}
	if len(answers) == 0 {
		return openAPIDocument, nil
	}
	var full struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	var doc map[string]any // the whole document, which gets the components back
	if err := json.Unmarshal(openAPIDocument, &full); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		return nil, err
	}
	all := full.Components.Schemas
	refs := make([]any, 0, len(answers))
	var names []string
	for _, a := range answers {
		if _, taken := all[a.component]; taken {
			return nil, fmt.Errorf("agenthttp: the answer schema of the agent %q would replace the OpenAPI component %s: rename the agent", a.agent, a.component)
		}
		all[a.component] = schemas[a.component]
		refs = append(refs, map[string]any{"$ref": "#/components/schemas/" + a.component})
		names = append(names, a.agent)
	}
	answer := map[string]any{"description": "A run's typed answer: a value of the answer type of the agent that ran (" +
		strings.Join(names, ", ") + ")."}
	if len(refs) == 1 {
		answer["$ref"] = refs[0].(map[string]any)["$ref"]
	} else {
		answer["anyOf"] = refs
	}
	all["Answer"] = answer
	doc["components"].(map[string]any)["schemas"] = all
	return json.MarshalIndent(doc, "", "  ")
}

// componentName makes an agent's name a name OpenAPI allows for a component: letters, digits, '.', '-' and '_',
// anything else an underscore.
func componentName(agent string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, agent)
}

// rebase rewrites the references of a schema that point into itself ("#/$defs/Item") to point into it where it
// now lives in the document (base + "/$defs/Item").
func rebase(v any, base string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" && strings.HasPrefix(s, "#") {
				v[k] = base + strings.TrimPrefix(s, "#")
				continue
			}
			v[k] = rebase(x, base)
		}
	case []any:
		for i, x := range v {
			v[i] = rebase(x, base)
		}
	}
	return v
}
