package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// resolve layers a run's settings (code defaults, the stored settings, the run's), creates its tools and options,
// and returns its provider's client.
func (h *Host) resolve(ctx context.Context, st *runState, claimed *claimed) (chat.Client, error) {
	a := &st.ask
	ri := &a.input
	// Settings layers: code defaults, then the stored settings, then the run's.
	r := a.layer(codeDefaults(h.agent))
	if h.cfg.Settings != nil && ri.settingsID != "" {
		var doc json.RawMessage
		var err error
		if st.ahead != nil {
			doc, err = h.settingsAhead(ctx, a, a.show(st.session.view()), st.ahead)
		} else {
			doc, err = claimed.settings(ctx, h, ri.settingsID)
		}
		if err != nil {
			return nil, fmt.Errorf("stored settings of %q: %w", ri.settingsID, err)
		}
		if err := r.apply("stored", doc, h.decl.Configurable); err != nil {
			return nil, err
		}
	}
	if err := r.apply("run", ri.settings, h.decl.Configurable); err != nil {
		return nil, err
	}
	tools, hidden, err := h.tools(ctx, a.show(st.session.view()), st.ahead.tools(), r.toolLayers)
	if err != nil {
		return nil, err
	}
	if tools, err = h.handoffTools(ri.conversationID, tools); err != nil {
		return nil, err
	}
	a.decide(tools, hidden) // in the run's own copy of the options: the agent's recorded defaults stay as they are

	return h.runClient(ctx, r.provider, r.opts.Model, r.fallback)
}

// runClient returns the client a run calls: its model's, tried again as Config.Retry says, then each model of
// the fallback list in turn. Every client of the list is made before the run starts, so that a provider that
// is not registered fails the run at once rather than when the first model fails.
func (h *Host) runClient(ctx context.Context, provider, model string, fallback []chat.Route) (chat.Client, error) {
	retry := chat.Retry(h.cfg.Retry)
	primary, err := h.client(ctx, provider, model)
	if err != nil {
		return nil, err
	}
	if len(fallback) == 0 {
		return retry(primary), nil
	}
	if h.fixed != nil {
		return nil, fmt.Errorf("agent %s: a fallback list needs Config.Providers, not Config.Client", h.decl.Name)
	}
	cands := []chat.Candidate{{Route: chat.Route{Provider: provider, Model: model}, Client: retry(primary)}}
	for _, r := range fallback {
		if r.Provider == "" {
			r.Provider = cands[len(cands)-1].Route.Provider
		}
		c, err := h.client(ctx, r.Provider, r.Model)
		if err != nil {
			return nil, fmt.Errorf("fallback %s: %w", r, err)
		}
		cands = append(cands, chat.Candidate{Route: r, Client: retry(c)})
	}
	return chat.Fallback(cands, nil), nil
}

// client returns the provider's client for a run, instrumented: Config.Client, or the one Config.Providers makes.
func (h *Host) client(ctx context.Context, provider, model string) (chat.Client, error) {
	if h.fixed != nil {
		return h.fixed, nil
	}
	base, err := h.cfg.Providers.Client(ctx, provider, model)
	if err != nil {
		return nil, err
	}
	if h.cfg.Instrument == nil && h.cfg.Telemetry == nil {
		return base, nil
	}
	key := clientKey{provider, model}
	if v, ok := h.clients.Load(key); ok && sameClient(v.(*instrumented).base, base) {
		return v.(*instrumented).wrapped, nil
	}
	wrapped := h.instrument(base, provider)
	h.clients.Store(key, &instrumented{base: base, wrapped: wrapped})
	return wrapped, nil
}

// instrument wraps a provider's client in Config.Instrument, then Config.Telemetry.
func (h *Host) instrument(c chat.Client, provider string) chat.Client {
	if h.cfg.Instrument != nil {
		c = h.cfg.Instrument(c)
	}
	if h.cfg.Telemetry != nil {
		c = h.cfg.Telemetry.Client(c, provider)
	}
	return c
}

// sameClient reports whether a and b are the same client. Clients of types that cannot be compared (a function
// type, for example) are never the same, so they are instrumented anew for each run.
func sameClient(a, b chat.Client) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// tools creates the tools a run offers, by the composition's rules (see [toolset.Combine]): each use's tools
// narrowed by its picks, then Config.Tools, each with its layered settings overrides. A name offered twice fails
// the run with a *toolset.ConflictError that lists every conflict and every source. It also returns the names
// filters hid, so that the model is told such a tool is not available rather than unknown. offered, when not
// nil, is what the composition offered, read before the settings (settingsAhead).
func (h *Host) tools(ctx context.Context, run *toolset.Run, offered *offeredTools, overrides map[string][]json.RawMessage) ([]*toolset.Tool, []string, error) {
	var out []*toolset.Tool
	var hidden []string
	var err error
	if offered != nil {
		out, hidden, err = offered.tools, offered.hidden, offered.err
	} else {
		out, hidden, err = h.offer.ToolsHidden(ctx, run)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(overrides) == 0 {
		return out, hidden, nil
	}
	used := 0
	for i, t := range out {
		layers, ok := overrides[toolID(t)]
		if !ok {
			layers, ok = overrides[t.Name]
		}
		if !ok {
			continue
		}
		used++
		c, err := t.WithOverrides(layers...)
		if err != nil {
			return nil, nil, &SettingsError{Layer: "tool", Key: t.Name, Err: err}
		}
		out[i] = c
	}
	if used < len(overrides) {
		var unknown []string
		for k := range overrides {
			if findTool(out, k) == nil && findToolID(out, k) == nil && !h.picked(k) && !slices.Contains(hidden, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, nil, &SettingsError{Layer: "tool", Key: strings.Join(unknown, ", "), Err: fmt.Errorf("no offered tool has this name or ID")}
		}
	}
	return out, hidden, nil
}

// continueWith prepares the run of the agent to, continuing the run of from in the same conversation: the same
// settings id, run id, mode and standing approvals, with to's own instructions, tools and options. It returns
// the stages of to's pipeline below the conversation. The run settings of the caller (the Settings option) are
// not carried: they were written for the agent the caller named.
func (to *Host) continueWith(ctx context.Context, from *runState, conv *conversationRun) (*runState, chat.Client, error) {
	st := to.continued(from)
	client, err := to.resolve(ctx, st, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("handing the conversation to agent %s: %w", to.decl.Name, err)
	}
	return st, to.stages(st, client, conv), nil
}

// continued returns the state of the run of to's agent that continues the run of from.
func (to *Host) continued(from *runState) *runState {
	st := &runState{}
	st.ask.continued(to, &from.ask, from.session.mode())
	st.session.continueFrom(&from.session, to.decl.Name)
	return st
}
