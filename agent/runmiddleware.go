package agent

import "github.com/typeshift-go/typeshift/agent/chat"

// runMiddleware wraps the rest of a run's pipeline in the host's run middleware, the first listed outermost. Each
// middleware is a chat.Client decorator, so it sees a run's pass whole, through Respond, or update by update,
// through Stream; in a streamed run the updates it yields are the ones the caller receives.
func runMiddleware(c chat.Client, mw []chat.Middleware) chat.Client {
	return chat.Chain(c, mw...)
}
