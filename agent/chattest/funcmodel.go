package chattest

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// FuncModel is a [chat.Client] whose answers a test writes as a function. Stream calls the function and yields
// its response in pieces. A response without usage gets an estimate.
type FuncModel func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error)

// Respond calls f.
func (f FuncModel) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := f(ctx, msgs, opts)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("chattest: the model function returned no response")
	}
	if resp.Usage == (chat.Usage{}) {
		resp.Usage = estimateUsage(msgs, opts, resp.Messages)
	}
	return resp, nil
}

// Stream calls f and yields its response: each message's text as word deltas, its other parts whole, then the
// usage; the last update carries the finish reason.
func (f FuncModel) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		resp, err := f.Respond(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		streamResponse(ctx, resp, byWords, yield)
	}
}

// byWords splits text after each space: the deltas of a text, by default.
func byWords(text string) []string { return strings.SplitAfter(text, " ") }

// streamResponse yields resp as a stream would deliver it, each text in the deltas split makes of it.
func streamResponse(ctx context.Context, resp *chat.Response, split func(string) []string, yield func(chat.Update, error) bool) {
	send := func(u chat.Update) bool {
		if err := ctx.Err(); err != nil {
			yield(chat.Update{}, err)
			return false
		}
		u.ResponseID, u.Model = resp.ID, resp.Model
		return yield(u, nil)
	}
	for _, m := range resp.Messages {
		role := m.Role
		if role == "" {
			role = chat.RoleAssistant
		}
		var whole []chat.Part
		for _, p := range m.Parts {
			if r, ok := p.(chat.Reasoning); ok {
				// Reasoning streams as a provider's does: its text in deltas, the signature on the last one.
				for _, d := range reasoningDeltas(r) {
					if !send(chat.Update{Role: role, AuthorName: m.AuthorName, Parts: []chat.Part{d}}) {
						return
					}
				}
				continue
			}
			t, ok := p.(chat.Text)
			if !ok {
				whole = append(whole, p)
				continue
			}
			for _, w := range split(t.Text) {
				if w == "" {
					continue
				}
				if !send(chat.Update{Role: role, AuthorName: m.AuthorName, Parts: []chat.Part{chat.Text{Text: w}}}) {
					return
				}
			}
		}
		if len(whole) > 0 && !send(chat.Update{Role: role, AuthorName: m.AuthorName, Parts: whole}) {
			return
		}
	}
	send(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.UsagePart{Usage: resp.Usage}}, FinishReason: resp.FinishReason})
}

// reasoningDeltas splits r into the deltas a stream delivers, which [chat.Collect] joins back into r.
func reasoningDeltas(r chat.Reasoning) []chat.Reasoning {
	var out []chat.Reasoning
	for _, w := range strings.SplitAfter(r.Text, " ") {
		if w != "" {
			out = append(out, chat.Reasoning{Provider: r.Provider, Text: w})
		}
	}
	last := chat.Reasoning{Provider: r.Provider, ID: r.ID, Encrypted: r.Encrypted, Signature: r.Signature}
	if len(out) > 0 && last.Encrypted == "" && last.Signature == "" && last.ID == "" {
		return out
	}
	return append(out, last)
}
