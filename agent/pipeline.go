package agent

import "github.com/typeshift-go/typeshift/agent/chat"

// pipeline builds one run's chain of chat.Client decorators, outermost first:
//
//	(the conversation: the storage layer adds it here, outermost, when a run has a conversation id)
//	run middleware            Config.Middleware, around each pass
//	context providers         instructions, messages and tools on a copy of the options
//	approval and modes        binds answers, decides requests, restricts tools in plan mode
//	author names              the agent's name on every message
//	the tool loop             model calls and tool calls, bounded by the run's budget
//	Config.Inner              checkpoints and compaction belong here
//	unique call ids           repeated call ids made unique
//	the provider's client     instrumented by Config.Telemetry and Config.Instrument (see Host.client)
func (h *Host) pipeline(st *runState, provider chat.Client) chat.Client {
	st.ids = uniqueCallIDs{next: provider}
	st.loop = toolLoop{next: chat.Chain(&st.ids, h.cfg.Inner...), st: st}
	st.authors = authorNames{next: &st.loop, name: st.name}
	st.approvals = approvals{next: &st.authors, st: st}
	var c chat.Client = &st.approvals
	if len(h.cfg.ContextProviders) > 0 {
		c = &contextClient{next: c, st: st, providers: h.cfg.ContextProviders}
	}
	return runMiddleware(c, h.cfg.Middleware)
}
