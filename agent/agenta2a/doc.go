// Package agenta2a serves an agent to other agents over the Agent2Agent protocol (A2A, JSON-RPC binding, protocol
// 0.3): an http.Handler over an [agent.Host] that publishes the agent's card and answers message/send,
// message/stream, tasks/get, tasks/cancel and tasks/resubscribe, over the same runs, approvals and tenant walls as
// package agenthttp.
//
//	a2aHandler, err := agenta2a.New(support, agenta2a.Options{
//		Store:        store,
//		Authenticate: authenticate, // the same func(*http.Request) (agenthttp.Principal, error) as agenthttp's
//	})
//	mux.Handle("/a2a/", http.StripPrefix("/a2a", a2aHandler))
//
// The card is at /a2a/.well-known/agent-card.json and the JSON-RPC endpoint at /a2a/. The tenant of every request
// is the settings id the application's Authenticate returns, never a value of the request.
//
// # Tasks are conversations
//
// A task's context is a conversation of the tenant, and the task one exchange in it: the runs from a user's message
// to the answer, through any approval requests on the way. The task's state is read from the stored conversation
// on every request, so any instance on the same store answers for any task, after a restart too; no table of tasks
// lives in a process.
//
// # Approvals
//
// A tool call that needs approval ends the run in the input-required state, its status message holding the
// request as a data part. The client answers with a data part naming the request; the answer goes through the
// host's approval path, which binds it to the request the server stored, as over the native API. See docs/a2a.md.
//
// # Calling other agents
//
// [Dial] reads a remote A2A agent's card and returns a [Remote], whose [Remote.Tools] offer it to a local agent:
// the tool sends the model's message to the remote agent, follows the task (streamed when the card says so),
// cancels it when the call ends first, and returns its answer. A remote task that needs input is put to the local
// user as an approval request of the conversation ([Remote.Register] names the hosts that may ask).
package agenta2a
