package agent

import (
	"context"
	"iter"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// emitFunc hands one update to the consumer of a streamed run; false means the consumer stopped reading.
// A nil emitFunc means the run is not streamed.
type emitFunc func(chat.Update) bool

// streamOf turns a stage's run function into a Stream: updates go to the consumer as the function emits them, and
// its error, if any, ends the sequence.
func streamOf(run func(emit emitFunc) (*chat.Response, error)) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		stopped := false
		_, err := run(func(u chat.Update) bool {
			if !yield(u, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped && err != errStopped {
			yield(chat.Update{}, err)
		}
	}
}

// callNext calls next for the whole response (emit == nil) or streamed, forwarding each update to emit while
// assembling the response. With holdCalls the tool calls are kept out of the forwarded updates: the tool loop
// emits them itself once it knows which need approval.
func callNext(ctx context.Context, next chat.Client, msgs []chat.Message, opts *chat.Options, emit emitFunc, holdCalls bool) (*chat.Response, error) {
	if emit == nil {
		return next.Respond(ctx, msgs, opts)
	}
	stopped := false
	resp, err := chat.Collect(func(collect func(chat.Update, error) bool) {
		for u, err := range next.Stream(ctx, msgs, opts) {
			if err != nil {
				collect(u, err)
				return
			}
			collect(u, nil)
			fwd := u
			if holdCalls {
				fwd = withoutCalls(u)
				if len(fwd.Parts) == 0 && len(u.Parts) > 0 && fwd.FinishReason == "" {
					continue
				}
			}
			if !emit(fwd) {
				stopped = true
				return
			}
		}
	})
	if stopped {
		return resp, errStopped
	}
	return resp, err
}

// withoutCalls returns u without its tool-call parts.
func withoutCalls(u chat.Update) chat.Update {
	n := 0
	for _, p := range u.Parts {
		if _, ok := p.(chat.ToolCall); ok {
			n++
		}
	}
	if n == 0 {
		return u
	}
	parts := make([]chat.Part, 0, len(u.Parts)-n)
	for _, p := range u.Parts {
		if _, ok := p.(chat.ToolCall); !ok {
			parts = append(parts, p)
		}
	}
	u.Parts = parts
	return u
}
