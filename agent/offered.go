package agent

import "github.com/typeshift-go/typeshift/toolset"

// Tools returns what the host's runs offer as one source: the agent's toolset uses narrowed by their picks, its
// own tools and Config.Tools, by the composition's rules. Handoff tools and plan mode's exit tool, which belong to
// a run, are not in it. Serve it to other hosts (see agent/mcp) to offer the agent's tools elsewhere, with
// [Host.SettingsKind] naming the settings document whose "tools" configure them.
func (h *Host) Tools() toolset.Source { return h.offer }

// SettingsKind returns the kind under which the agent's stored settings are kept: [Declaration.SettingsKind],
// or the agent's name when the declaration gives none.
func (h *Host) SettingsKind() string { return h.decl.SettingsKind }
