package agent

import "github.com/typeshift-go/typeshift/agent/chat"

// pipeline builds one run's chain of chat.Client decorators, outermost first, each given the parts of the run it
// reads or writes. It is the one list of the stages:
//
//	stage                 parts                             job
//	the conversation      conv                              claims, loads and ends a run's stored conversation,
//	                                                        and goes on with each agent a handoff names: the
//	                                                        handoff loop (conversationRun.respond, handoff.go)
//	the meter's end       costs                             Config.Meter told when the run's agent is done, for a run
//	                                                        without a conversation (budget.go); a conversation's
//	                                                        run tells it with its last store
//	run middleware        —                                 Config.Middleware, around each pass
//	context providers     session.run (read)                instructions, messages and tools on a copy of the options
//	approval and modes    session, rounds (read), shown,    binds answers, decides requests, restricts tools in
//	                      tools                             plan mode, runs the calls it decides
//	the typed answer      ask (read), rounds (read), conv   asks for the answer in the run's mode, checks it, and
//	                                                        sends a refused one back (answer.go); only for an agent
//	                                                        that declares one with Returns
//	author names          ask (read)                        the agent's name on every message
//	the tool loop         rounds, usage, shown (read),      model calls and tool calls, bounded by the run's rounds;
//	                      session (read), tools, routing    a handoff call is recorded in the conversation's routing
//	checkpoints           conv                              each step stored before the next model call, and each
//	                                                        summary of the run's compaction (checkpoint.go)
//	unique call ids       —                                 repeated call ids made unique, against the run's whole history
//	Config.Inner          the checkpoint (a Compaction's)   compaction belongs here, below the unique call ids; it is
//	                                                        given the checkpoint for its summaries (Host.inner)
//	cache hints           —                                 the stable prefix marked for prompt caching (cachehints.go)
//	the meter             costs                             Config.Meter: asked before each model call, told its usage
//	                                                        after (budget.go)
//	retry and fallback    —                                 each model tried again as Config.Retry says, then the
//	                                                        fallback list's (Host.runClient)
//	the provider's client —                                 instrumented by Config.Telemetry and Config.Instrument
//
// The tool-invocation chain (tools above), which the approval stage and the tool loop share (invoke.go), is:
// telemetry's execute_tool span, Config.ToolMiddleware outermost first, the store's mark of an approved call as
// started (useStore), then the tool under Config.ToolTimeout (Host.baseInvoke). The chain is given conv, the
// conversation the mark is stored in; a sub-agent tool's delegate gets only what a run inherits (subagent.go).
//
// conv is nil for a run without a conversation, which has neither the conversation, the checkpoints nor a routing.
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
	st.rounds = newRounds(&st.ask.resolved.limits)
	if h.cfg.Meter != nil {
		var token string
		if conv != nil {
			token = conv.currentClaim().Token // claimed before the run was built
		}
		st.costs = newMeterState(h.cfg.Meter, h.meteredRun(st.session.view(), st.ask.resolved.provider), token, st.ahead, h.runs)
	}
	s := &st.stages
	var cp *checkpoint
	if conv != nil {
		cp = &checkpoint{conv: conv}
	}
	s.ids = uniqueCallIDs{next: h.inner(cacheHints{metered(st.costs, provider)}, cp)}
	var inner chat.Client = &s.ids
	var routing *routing
	if cp != nil {
		cp.next = inner
		inner = cp
		routing = &conv.routing
	}
	s.tools = toolRunner{h: h, session: &st.session, usage: &st.usage, costs: st.costs, conv: conv}
	s.loop = toolLoop{next: inner, ask: &st.ask, rounds: &st.rounds, usage: &st.usage, session: &st.session,
		shown: &st.shown, tools: &s.tools, routing: routing}
	s.authors = authorNames{next: &s.loop, ask: &st.ask}
	var below chat.Client = &s.authors
	if h.answer != nil {
		s.answer = newAnswerStage(h.answer, below, &st.ask, &st.rounds, cp)
		below = s.answer
		if s.answer.mode == AnswerTool {
			s.loop.answer = AnswerToolName
		}
	}
	s.approvals = approvals{next: below, ask: &st.ask, session: &st.session, rounds: &st.rounds,
		shown: &st.shown, tools: &s.tools}
	var c chat.Client = &s.approvals
	if len(h.cfg.ContextProviders) > 0 {
		c = &contextClient{next: c, session: &st.session, providers: h.cfg.ContextProviders}
	}
	return meterEnd(st.costs, conv != nil, runMiddleware(c, h.cfg.Middleware))
}

// inner is Config.Inner over c, the first middleware outermost, as chat.Chain makes it. In a run with a
// checkpoint, a [Compaction] among them is given it for its summaries; any other middleware may store summaries
// by StoreSummary, so the checkpoint is told to expose itself.
func (h *Host) inner(c chat.Client, cp *checkpoint) chat.Client {
	for i := len(h.cfg.Inner) - 1; i >= 0; i-- {
		c = h.cfg.Inner[i](c)
		if cp == nil {
			continue
		}
		if comp, ok := c.(*compactor); ok {
			comp.recordIn(cp)
		} else {
			cp.expose()
		}
	}
	return c
}
