package agent

import "github.com/typeshift-go/typeshift/agent/chat"

// pipeline builds one run's chain of chat.Client decorators, outermost first:
//
//	the conversation          claims, loads and ends a run's stored conversation (conversation.go)
//	run middleware            Config.Middleware, around each pass
//	context providers         instructions, messages and tools on a copy of the options
//	approval and modes        binds answers, decides requests, restricts tools in plan mode
//	author names              the agent's name on every message
//	the tool loop             model calls and tool calls, bounded by the run's budget
//	checkpoints               each step stored before the next model call (checkpoint.go)
//	unique call ids           repeated call ids made unique, against the run's whole history
//	Config.Inner              compaction belongs here, below the unique call ids, which must see what it removes
//	cache hints               the stable prefix marked for prompt caching (cachehints.go)
//	the meter                 Config.Meter: asked before each model call, told its usage after (budget.go)
//	retry and fallback        each model tried again as Config.Retry says, then the fallback list's (Host.runClient)
//	the provider's client     instrumented by Config.Telemetry and Config.Instrument (see Host.client)
//
// conv is nil for a run without a conversation, which has neither the conversation nor the checkpoints.
func (h *Host) pipeline(st *runState, provider chat.Client, conv *conversationRun) chat.Client {
	c := h.stages(st, provider, conv)
	if conv != nil {
		c = &conversationClient{next: c, conv: conv}
	}
	return c
}

// stages builds the pipeline below the conversation: what an agent a run is handed to runs, under the
// conversation of the run it continues (see handoff.go).
func (h *Host) stages(st *runState, provider chat.Client, conv *conversationRun) chat.Client {
	st.ids = uniqueCallIDs{next: chat.Chain(cacheHints{h.metered(st, provider, conv)}, h.cfg.Inner...)}
	var inner chat.Client = &st.ids
	if conv != nil {
		inner = &checkpoint{next: inner, conv: conv}
	}
	st.loop = toolLoop{next: inner, st: st}
	st.authors = authorNames{next: &st.loop, name: st.name}
	st.approvals = approvals{next: &st.authors, st: st}
	var c chat.Client = &st.approvals
	if len(h.cfg.ContextProviders) > 0 {
		c = &contextClient{next: c, st: st, providers: h.cfg.ContextProviders}
	}
	return st.meterEnd(runMiddleware(c, h.cfg.Middleware))
}
