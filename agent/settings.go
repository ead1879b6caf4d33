package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// A SettingsSource returns a tenant's stored settings document for an agent: the JSON shape described in
// docs/tool-settings.md, or nil when the tenant has none. A storage package adapts its settings store to it.
type SettingsSource interface {
	Settings(ctx context.Context, settingsID, kind string) (json.RawMessage, error)
}

// SettingsFunc adapts a function to a SettingsSource.
type SettingsFunc func(ctx context.Context, settingsID, kind string) (json.RawMessage, error)

// Settings calls f.
func (f SettingsFunc) Settings(ctx context.Context, settingsID, kind string) (json.RawMessage, error) {
	return f(ctx, settingsID, kind)
}

// The names of the run options in settings documents. Run options are always open to settings.
const (
	settingMaxIterations        = "max_iterations"
	settingMaxRetries           = "max_retries"
	settingMaxConsecutiveErrors = "max_consecutive_errors"
	settingConcurrentTools      = "concurrent_tools"
	// settingTools holds per-tool overrides: an object keyed by tool ID or by the tool's name as offered.
	settingTools = "tools"
)

// SettingsError reports a settings document that cannot be applied.
type SettingsError struct {
	// Layer is "stored" or "run".
	Layer string
	// Key is the offending key, or "" for the document as a whole.
	Key string
	// Err says what is wrong with it.
	Err error
}

func (e *SettingsError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s settings: %v", e.Layer, e.Err)
	}
	return fmt.Sprintf("%s settings: %q: %v", e.Layer, e.Key, e.Err)
}

func (e *SettingsError) Unwrap() error { return e.Err }

// resolved holds a run's options after every settings layer.
type resolved struct {
	provider string
	// fallback lists the models to move on to after the run's own (see Agent.WithFallback).
	fallback []chat.Route
	opts     chat.Options
	limits   limits
	// toolLayers holds, per key of "tools", the overrides of each layer in order.
	toolLayers map[string][]json.RawMessage
}

// limits are the run options.
type limits struct {
	maxIterations        int
	maxRetries           int
	maxConsecutiveErrors int
	concurrentTools      bool
}

// The package defaults of the run options.
const (
	defaultMaxIterations        = 40
	defaultMaxRetries           = 3
	defaultMaxConsecutiveErrors = 3
)

// codeDefaults returns the options the agent's code sets: the first layer.
func codeDefaults(a *Agent) resolved {
	r := resolved{provider: a.chat.provider, fallback: a.chat.fallback}
	r.opts.Model = a.chat.model
	r.opts.Temperature = a.chat.temperature
	r.opts.TopP = a.chat.topP
	r.opts.MaxTokens = a.chat.maxTokens
	r.opts.Seed = a.chat.seed
	r.opts.Stop = a.chat.stop
	r.opts.Instructions = a.instructions
	r.limits = limits{defaultMaxIterations, defaultMaxRetries, defaultMaxConsecutiveErrors, a.runOpts.concurrentTools}
	if p := a.runOpts.maxIterations; p != nil {
		r.limits.maxIterations = *p
	}
	if p := a.runOpts.maxRetries; p != nil {
		r.limits.maxRetries = *p
	}
	if p := a.runOpts.maxConsecutiveErrors; p != nil {
		r.limits.maxConsecutiveErrors = *p
	}
	return r
}

// apply applies one settings document. Chat options not in configurable are refused.
func (r *resolved) apply(layer string, doc json.RawMessage, configurable []string) error {
	if isEmptyDoc(doc) {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(doc, &fields); err != nil {
		return &SettingsError{Layer: layer, Err: fmt.Errorf("not a JSON object: %w", err)}
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the same error every time
	for _, k := range keys {
		if err := r.applyField(k, fields[k], configurable); err != nil {
			return &SettingsError{Layer: layer, Key: k, Err: err}
		}
	}
	return nil
}

func (r *resolved) applyField(key string, v json.RawMessage, configurable []string) error {
	switch key {
	case optionProvider, optionModel, optionFallback, optionTemperature, optionTopP, optionMaxTokens, optionSeed, optionStop:
		gate := key
		if key == optionFallback {
			gate = optionModel // a tenant that may choose its model may choose what follows it
		}
		if !slices.Contains(configurable, gate) {
			return fmt.Errorf("the agent does not let settings change this option")
		}
	}
	o := &r.opts
	switch key {
	case optionProvider:
		return json.Unmarshal(v, &r.provider)
	case optionModel:
		return json.Unmarshal(v, &o.Model)
	case optionFallback:
		return unmarshalRoutes(v, &r.fallback)
	case optionTemperature:
		return unmarshalPtr(v, &o.Temperature)
	case optionTopP:
		return unmarshalPtr(v, &o.TopP)
	case optionMaxTokens:
		return unmarshalPtr(v, &o.MaxTokens)
	case optionSeed:
		return unmarshalPtr(v, &o.Seed)
	case optionStop:
		return json.Unmarshal(v, &o.Stop)
	case settingMaxIterations:
		return unmarshalCount(v, &r.limits.maxIterations, 1)
	case settingMaxRetries:
		return unmarshalCount(v, &r.limits.maxRetries, 0)
	case settingMaxConsecutiveErrors:
		return unmarshalCount(v, &r.limits.maxConsecutiveErrors, 0)
	case settingConcurrentTools:
		return json.Unmarshal(v, &r.limits.concurrentTools)
	case settingTools:
		var tools map[string]json.RawMessage
		if err := json.Unmarshal(v, &tools); err != nil {
			return fmt.Errorf("must be an object keyed by tool: %w", err)
		}
		if r.toolLayers == nil {
			r.toolLayers = make(map[string][]json.RawMessage, len(tools))
		}
		for name, o := range tools {
			r.toolLayers[name] = append(r.toolLayers[name], o)
		}
		return nil
	}
	return fmt.Errorf("unknown setting; known: %s", strings.Join(knownSettings, ", "))
}

var knownSettings = []string{optionProvider, optionModel, optionFallback, optionTemperature, optionTopP, optionMaxTokens, optionSeed,
	optionStop, settingMaxIterations, settingMaxRetries, settingMaxConsecutiveErrors, settingConcurrentTools, settingTools}

// unmarshalPtr sets *p from v; null clears it (back to the provider's default).
func unmarshalPtr[T any](v json.RawMessage, p **T) error {
	if string(v) == "null" {
		*p = nil
		return nil
	}
	var x T
	if err := json.Unmarshal(v, &x); err != nil {
		return err
	}
	*p = &x
	return nil
}

// maxFallback bounds a fallback list, so that a stored document cannot make one call try models without end.
const maxFallback = 8

// unmarshalRoutes sets *p from a list of {"provider", "model"} objects; null or [] clears it.
func unmarshalRoutes(v json.RawMessage, p *[]chat.Route) error {
	var routes []chat.Route
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&routes); err != nil {
		return fmt.Errorf(`must be a list of {"provider": ..., "model": ...}: %w`, err)
	}
	if len(routes) > maxFallback {
		return fmt.Errorf("lists %d models; at most %d are allowed", len(routes), maxFallback)
	}
	for i, r := range routes {
		if r.Model == "" {
			return fmt.Errorf("entry %d names no model", i)
		}
	}
	*p = routes
	return nil
}

func unmarshalCount(v json.RawMessage, p *int, minimum int) error {
	var n int
	if err := json.Unmarshal(v, &n); err != nil {
		return fmt.Errorf("must be an integer: %w", err)
	}
	if n < minimum {
		return fmt.Errorf("must be at least %d, got %d", minimum, n)
	}
	*p = n
	return nil
}

func isEmptyDoc(b json.RawMessage) bool {
	s := strings.TrimSpace(string(b))
	return s == "" || s == "null" || s == "{}"
}

// StoredSettings adapts a storage.SettingsStore to a SettingsSource: a document that does not exist is no
// settings, not an error. A nil store has no settings.
func StoredSettings(store storage.SettingsStore) SettingsSource {
	return SettingsFunc(func(ctx context.Context, settingsID, kind string) (json.RawMessage, error) {
		if store == nil {
			return nil, nil
		}
		doc, err := store.GetSettings(ctx, settingsID, kind)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return doc.Data, nil
	})
}
