package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// checkSchemas runs the providers' schema checks (see [chat.SchemaCheck]) over the tools whose schemas are known
// when the host is built: those of the toolsets the agent uses, its own, and the standalone tools of
// Config.Tools. A tool a provider cannot take fails NewHost, naming the tool, the field and the provider, rather
// than a tenant's run. Sources that make their tools at run time (MCP servers) are checked by the provider when
// a run offers them.
func (h *Host) checkSchemas(ctx context.Context) error {
	var check func(tool string, schema json.RawMessage) error
	switch {
	case h.cfg.Client != nil:
		if c, ok := h.cfg.Client.(chat.SchemaChecker); ok {
			check = c.CheckSchema
		}
	case h.cfg.Providers != nil:
		check = h.cfg.Providers.CheckSchema
	}
	if check == nil {
		return nil
	}
	srcs := make([]toolset.Source, 0, len(h.uses)+1+len(h.cfg.Tools))
	for _, u := range h.uses {
		srcs = append(srcs, u.src)
	}
	if h.own != nil {
		srcs = append(srcs, h.own)
	}
	for _, s := range h.cfg.Tools {
		if t, ok := s.(*toolset.Tool); ok {
			srcs = append(srcs, t)
		}
	}
	for _, src := range srcs {
		tools, err := src.Tools(ctx, &toolset.Run{Agent: h.decl.Name})
		if err != nil {
			continue // the run reports it, with the source's name
		}
		for _, t := range tools {
			if err := check(t.Name, t.Schema); err != nil {
				return fmt.Errorf("agent %s: %w", h.decl.Name, err)
			}
		}
	}
	return nil
}
