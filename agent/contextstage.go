package agent

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// contextClient asks the providers and adds what they give to a copy of the options and of the messages.
type contextClient struct {
	next      chat.Client
	session   *session // read: the run the providers are shown a copy of
	providers []ContextProvider
}

func (c *contextClient) gather(ctx context.Context, msgs []chat.Message, opts *chat.Options) ([]chat.Message, *chat.Options, error) {
	o := opts.Clone()
	var extra []chat.Message
	for _, p := range c.providers {
		run := c.session.view()
		got, err := p.Context(ctx, &run, msgs)
		if err != nil {
			return nil, nil, fmt.Errorf("context provider: %w", err)
		}
		if got.Instructions != "" {
			if o.Instructions != "" {
				o.Instructions += "\n\n"
			}
			o.Instructions += got.Instructions
		}
		extra = append(extra, got.Messages...)
		for _, t := range got.Tools {
			if findTool(o.Tools, t.Name) != nil {
				return nil, nil, fmt.Errorf("context provider offers tool %q, which the run already offers", t.Name)
			}
			o.Tools = append(o.Tools, t)
		}
	}
	if len(extra) > 0 {
		msgs = append(extra, slices.Clip(msgs)...)
	}
	return msgs, o, nil
}

func (c *contextClient) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	msgs, o, err := c.gather(ctx, msgs, opts)
	if err != nil {
		return nil, err
	}
	return c.next.Respond(ctx, msgs, o)
}

func (c *contextClient) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		msgs, o, err := c.gather(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		for u, err := range c.next.Stream(ctx, msgs, o) {
			if !yield(u, err) || err != nil {
				return
			}
		}
	}
}
