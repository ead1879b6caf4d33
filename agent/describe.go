package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// Declaration returns the agent's declaration as the host uses it: the generated one, with the name, the
// configurable options and the settings kind filled in from the chains where the generated code left them out.
// Catalogues of agents (an HTTP API's list, a settings editor) read it.
func (h *Host) Declaration() Declaration {
	d := h.decl
	d.Uses = slices.Clone(d.Uses)
	d.Configurable = slices.Clone(d.Configurable)
	return d
}

// AnswerType returns the answer type the agent declares with [Returns], as its generated code describes it, and
// false for an agent that answers with text. Catalogues of agents (an HTTP API's description of its agents, its
// OpenAPI document) read it.
func (h *Host) AnswerType() (AnswerType, bool) {
	if h.answer == nil {
		return AnswerType{}, false
	}
	return h.answer.ans, true
}

// OfferedTools returns the tools a run of the tenant would be offered in the default mode, before the settings'
// per-tool overrides: the agent's uses narrowed by their picks, its own tools, then Config.Tools. Handoff tools
// and plan mode's exit_plan_mode are not among them. A name offered twice fails with a [*toolset.ConflictError],
// as a run would.
func (h *Host) OfferedTools(ctx context.Context, settingsID string) ([]*toolset.Tool, error) {
	run := &toolset.Run{SettingsID: settingsID, Agent: h.decl.Name}
	tools, _, err := h.offer.ToolsHidden(ctx, run)
	return tools, err
}

// SettingsSchema returns the JSON Schema (draft 2020-12) of the agent's settings document, as stored settings and
// [RunSettings] take it: the chat options the declaration makes configurable, the run options, and under "tools"
// the overrides of each offered tool that has configurable settings, keyed by its ID or its name. A document that
// validates against it may still fail a run where a check needs more than the schema says (a provider that is not
// registered, for one).
func (h *Host) SettingsSchema(ctx context.Context, settingsID string) (json.RawMessage, error) {
	tools, err := h.OfferedTools(ctx, settingsID)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	nullable := func(t string) map[string]any { return map[string]any{"type": []string{t, "null"}} }
	chatOptions := map[string]map[string]any{
		optionProvider: {"type": "string"},
		optionModel:    {"type": "string"},
		optionFallback: {"type": []string{"array", "null"}, "maxItems": maxFallback, "items": map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"provider": map[string]any{"type": "string"}, "model": map[string]any{"type": "string", "minLength": 1}},
			"required":             []string{"model"},
			"additionalProperties": false,
		}},
		optionTemperature: nullable("number"),
		optionTopP:        nullable("number"),
		optionMaxTokens:   nullable("integer"),
		optionSeed:        nullable("integer"),
		optionStop:        {"type": "array", "items": map[string]any{"type": "string"}},
	}
	for _, name := range h.decl.Configurable {
		if s, ok := chatOptions[name]; ok {
			props[name] = s
		}
		if name == optionModel {
			props[optionFallback] = chatOptions[optionFallback]
		}
	}
	props[settingMaxIterations] = map[string]any{"type": "integer", "minimum": 1}
	props[settingMaxRetries] = map[string]any{"type": "integer", "minimum": 0}
	props[settingMaxConsecutiveErrors] = map[string]any{"type": "integer", "minimum": 0}
	props[settingConcurrentTools] = map[string]any{"type": "boolean"}
	toolProps := map[string]any{}
	for _, t := range tools {
		if len(t.SettingsSchema) == 0 {
			continue
		}
		toolProps[t.Name] = t.SettingsSchema
		if t.ID != "" {
			toolProps[t.ID] = t.SettingsSchema
		}
	}
	props[settingTools] = map[string]any{"type": "object", "properties": toolProps, "additionalProperties": false}
	return json.Marshal(map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                h.decl.Name + " settings",
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	})
}

// LoadEntries returns the tenant's conversation's entries from its last summary on, as Config.Store holds them:
// unlike LoadConversation's history they keep what a next run no longer reads, such as the approval requests that
// were answered. It fails as LoadConversation does for a conversation without entries, which is also what another
// tenant's conversation is to this tenant.
func (h *Host) LoadEntries(ctx context.Context, settingsID, conversationID string) ([]storage.Entry, error) {
	if h.cfg.Store == nil {
		return nil, ErrNoStore
	}
	entries, err := h.cfg.Store.Load(ctx, settingsID, conversationID)
	if err == nil && len(entries) == 0 {
		err = storage.ErrNotFound
	}
	if err != nil {
		return nil, &ConversationError{ConversationID: conversationID, Op: "loading the conversation", Err: err}
	}
	return entries, nil
}

// ConversationState is a stored conversation as its next run continues it.
type ConversationState struct {
	// Messages is the history the next run sends the model: no call without its result, no approval answer.
	Messages []chat.Message
	// Pending lists the approval requests left open, which the next run's input may answer.
	Pending []chat.ApprovalRequest
	// Mode is the mode the last run ended in.
	Mode string
	// Agent names the agent the conversation was handed off to, or is empty.
	Agent string
}

// LoadConversation reads the tenant's conversation from Config.Store as its next run would continue it. It fails
// with an error wrapping storage.ErrNotFound for a conversation without entries, which is also what another
// tenant's conversation is to this tenant.
func (h *Host) LoadConversation(ctx context.Context, settingsID, conversationID string) (*ConversationState, error) {
	if h.cfg.Store == nil {
		return nil, ErrNoStore
	}
	entries, err := h.cfg.Store.Load(ctx, settingsID, conversationID)
	if err != nil {
		return nil, &ConversationError{ConversationID: conversationID, Op: "loading the conversation", Err: err}
	}
	if len(entries) == 0 {
		return nil, &ConversationError{ConversationID: conversationID, Op: "loading the conversation", Err: storage.ErrNotFound}
	}
	l, err := buildHistory(conversationID, entries)
	if err != nil {
		var ce *storage.CorruptEntryError
		if errors.As(err, &ce) {
			return nil, &ConversationError{ConversationID: conversationID, Op: "loading the conversation", Err: err}
		}
		return nil, err
	}
	return &ConversationState{Messages: l.msgs, Pending: openRequests(l.msgs), Mode: l.mode, Agent: l.agent}, nil
}
