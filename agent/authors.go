package agent

import (
	"context"
	"iter"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// authorNames puts the agent's name on every message and update of the run that has none, so that a conversation
// several agents wrote says who wrote what.
type authorNames struct {
	next chat.Client
	ask  *runAsk // read: the agent's name
}

func (a *authorNames) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	resp, err := a.next.Respond(ctx, msgs, opts)
	if resp != nil {
		for i := range resp.Messages {
			if resp.Messages[i].AuthorName == "" && resp.Messages[i].Role != chat.RoleUser {
				resp.Messages[i].AuthorName = a.ask.name()
			}
		}
	}
	return resp, err
}

func (a *authorNames) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		for u, err := range a.next.Stream(ctx, msgs, opts) {
			if u.AuthorName == "" && u.Role != chat.RoleUser {
				u.AuthorName = a.ask.name()
			}
			if !yield(u, err) || err != nil {
				return
			}
		}
	}
}
