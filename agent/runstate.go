package agent

// runState is one run of one agent, in parts, allocated at once. Each part is declared in the file that writes it
// (the rule of internal/archtest); the stages are given, by pointer, the parts they may touch (Host.stages, in
// pipeline.go), and reach the others not at all. It stands below the conversation's parts, which hold the run's
// state, and above the stages it holds.
//
//	part      file          written by                                   read by
//	ask       ask.go        the host, while the run is prepared          every stage
//	session   session.go    the host (start, load), the approval stage   the tool loop, the checkpoint, the Result
//	rounds    toolloop.go   the tool loop                                the approval stage
//	usage     usage.go      the tool loop, sub-agents (concurrently)     the Result, the conversation's end
//	shown     approvals.go  the approval stage                           the tool loop
//	costs     budget.go     the meter stage, sub-agents                  the Result, the conversation's end
//	stages    runstate.go   pipeline and stages (pipeline.go), once      —
type runState struct {
	ask     runAsk
	session session
	rounds  rounds
	usage   usageMeter
	shown   shownTools
	costs   *meterState // nil without Config.Meter
	ahead   *ahead      // the first model call reserved with the settings read, or nil (Host.advances)
	stages  stages
}

// stages are the values of a run's stages, kept in its state so that they are allocated with it.
type stages struct {
	tools     toolRunner
	approvals approvals
	authors   authorNames
	loop      toolLoop
	ids       uniqueCallIDs
	answer    *answerStage // nil for an agent that answers with text
}
