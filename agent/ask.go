package agent

import (
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// runAsk is what a run was asked: the host and agent, the run's options, its resolved settings and chat options,
// and the tools filters hid. It is filled in while the run is prepared (begin, Host.resolve) and never changed
// after; the stages read it.
//
//typeshift:owned
type runAsk struct {
	h     *Host
	input runInput
	// resolved holds the run's settings, its chat options (resolved.opts, with the run's tools) among them.
	resolved resolved
	// hidden are the names of tools a toolset.Filter in the run's sources hid (the agent's picks among them): a
	// call to one is answered as not available, never as unknown.
	hidden []string
	// shown is the copy of the run the tools' sources were shown while the run was decided, kept here so that it
	// is allocated with the run's state: a source may write to it, and nothing reads it after.
	shown toolset.Run
}

// name is the name of the run's agent: the host's, for author names.
func (a *runAsk) name() string { return a.h.decl.Name }

// begin starts the ask of a run of h's agent and returns where its options go.
func (a *runAsk) begin(h *Host) *runInput {
	a.h = h
	return &a.input
}

// continued starts the ask of a run handed to h's agent: the conversation and tenant of the run it continues, in
// its mode, and the answer mode the run asked for (UseAnswerMode), which applies to whichever agent answers.
func (a *runAsk) continued(h *Host, from *runAsk, mode string) {
	a.h = h
	a.input = runInput{settingsID: from.input.settingsID, conversationID: from.input.conversationID, mode: mode, modeSet: true,
		answerMode: from.input.answerMode}
}

// layer starts the run's settings from base, the code's defaults, and returns them for the layers above.
func (a *runAsk) layer(base resolved) *resolved {
	a.resolved = base
	return &a.resolved
}

// show returns a copy of run for the tools' sources to be shown.
func (a *runAsk) show(run toolset.Run) *toolset.Run {
	a.shown = run
	return &a.shown
}

// decide records the run's tools, in its chat options, and the names of the tools filters hid.
func (a *runAsk) decide(tools []*toolset.Tool, hidden []string) {
	a.resolved.opts.Tools, a.hidden = tools, hidden
}

// options returns the run's chat options: those its settings resolved, with its tools.
func (a *runAsk) options() *chat.Options { return &a.resolved.opts }
