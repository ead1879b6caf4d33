// Package background runs sub-agents in the background: a calling model starts one with a tool call that returns
// at once with a handle, the caller's run goes on, and the sub-agent runs on a conversation of its own, as the
// caller's tenant, in the caller's mode and with a copy of its standing approvals. When the sub-agent ends (or
// waits for an approval the user must give), its report joins the caller's conversation through the steering
// queue, exactly once.
//
// A [Manager] offers the tools (start, state, cancel, and the answer to a surfaced approval request) and runs the
// jobs a [Queue] hands it. [NewLocalQueue] runs jobs in goroutines of the process: it is the queue for the memory
// store, and works with any store, but its jobs do not survive a restart. A durable queue stores its jobs in the
// database (package riverqueue). See docs/sub-agents.md.
package background
