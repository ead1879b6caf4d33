package agent

import (
	"context"
	"iter"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// cacheHints marks the stable prefix of every model call for providers with explicit prompt caching (see
// [chat.Options.CacheMessages]): the instructions, the tools and all the messages sent, since each round of a
// run and each later run of its conversation sends them again and adds to the end. Providers that cache on their
// own, or not at all, ignore the mark. A caller below the run middleware that set a mark of its own keeps it.
type cacheHints struct{ next chat.Client }

func (c cacheHints) options(msgs []chat.Message, opts *chat.Options) *chat.Options {
	if opts != nil && opts.CacheMessages != 0 {
		return opts
	}
	var o chat.Options
	if opts != nil {
		o = *opts // the copy shares the slices, which nothing below changes in place
	}
	o.CacheMessages = len(msgs)
	return &o
}

func (c cacheHints) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return c.next.Respond(ctx, msgs, c.options(msgs, opts))
}

func (c cacheHints) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return c.next.Stream(ctx, msgs, c.options(msgs, opts))
}
