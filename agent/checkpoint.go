package agent

import (
	"context"
	"encoding/json"
	"iter"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/metering"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/storeutil"
	"github.com/typeshift-go/typeshift/toolset"
)

// checkpoint sits below the tool loop of a run with a conversation, so it sees every model call. Before each call
// it stores the messages the run added since the last one (tool results, and the calls the approval stage ran),
// then takes in the steering input that waits in the store; after each call it queues the response, which is
// stored with those messages, in the same call to the store, before the next model call (or before an approved
// call runs, or at the end of the run). A crash loses at most the call in flight and the tools it called.
//
// The checkpoint is also where the summaries of the run's compaction are stored: the host gives a [Compaction] in
// Config.Inner the checkpoint itself (Host.inner). Another middleware in Config.Inner reaches it by [StoreSummary],
// which finds it in the context of the model call, the only argument StoreSummary has.
type checkpoint struct {
	next chat.Client
	conv *conversationRun
	// exposed is set when Config.Inner holds a middleware other than compaction, which may call StoreSummary: the
	// checkpoint then puts itself in each model call's context.
	exposed bool
	sent    []chat.Message // the messages of the model call in flight, all of them stored
	// summarised is the last summary stored during the call in flight, so that a compaction whose OnSummary is
	// StoreSummary stores it once.
	summarised struct {
		keptFrom int
		text     string
	}
}

func (c *checkpoint) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	msgs, _, err := c.conv.beforeCall(ctx, msgs)
	if err != nil {
		return nil, err
	}
	ctx = c.send(ctx, msgs)
	resp, err := c.next.Respond(ctx, msgs, opts)
	if err != nil || resp == nil {
		return resp, err
	}
	return resp, c.conv.storeResponse(ctx, resp.Messages)
}

func (c *checkpoint) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		msgs, steer, err := c.conv.beforeCall(ctx, msgs)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		for _, m := range steer { // stored already; the stream shows it where the conversation holds it
			if !yield(chat.Update{Role: m.Role, AuthorName: m.AuthorName, Parts: m.Parts, Steering: true}, nil) {
				return
			}
		}
		ctx := c.send(ctx, msgs)
		ended := false // by an error or by the consumer: the response is not whole, and is not stored
		resp, _ := chat.Collect(func(collect func(chat.Update, error) bool) {
			for u, err := range c.next.Stream(ctx, msgs, opts) {
				if err != nil {
					ended = true
					yield(u, err)
					return
				}
				collect(u, nil)
				if !yield(u, nil) {
					ended = true
					return
				}
			}
		})
		if ended {
			return
		}
		if err := c.conv.storeResponse(ctx, resp.Messages); err != nil {
			yield(chat.Update{}, err)
		}
	}
}

// expose makes the checkpoint reachable by StoreSummary from the model calls below it.
func (c *checkpoint) expose() { c.exposed = true }

// send records msgs as the model call in flight, and returns the call's context: with the checkpoint in it, for
// StoreSummary, when Config.Inner may call it.
func (c *checkpoint) send(ctx context.Context, msgs []chat.Message) context.Context {
	c.sent = msgs
	c.summarised.keptFrom, c.summarised.text = -1, ""
	if c.exposed {
		ctx = context.WithValue(ctx, summaryKey{}, c)
	}
	return ctx
}

// storeResponse queues one model response, with the agent's name on it, to be stored with the run's next step.
func (c *conversationRun) storeResponse(ctx context.Context, msgs []chat.Message) error {
	msgs = slices.Clone(msgs)
	for i := range msgs {
		if msgs[i].AuthorName == "" && msgs[i].Role != chat.RoleUser {
			msgs[i].AuthorName = c.st.ask.name()
		}
	}
	e, err := marshalEntry(storage.EntryResponse, msgs)
	if err != nil {
		return c.fail(err)
	}
	// Stored with what the run does next: before the next model call, or before an approved call runs.
	c.queue(e)
	c.learn(msgs)
	return nil
}

// keep queues messages that a stage above the tool loop adds to the run (the answer stage's: what sends an answer
// back, the answer tool's result), to be stored with the run's next step, or with its end.
func (c *checkpoint) keep(msgs ...chat.Message) error {
	e, err := marshalEntry(storage.EntryToolResults, msgs)
	if err != nil {
		return c.conv.fail(err)
	}
	c.conv.queue(e)
	c.conv.learn(msgs)
	return nil
}

// fail ends the run when a step cannot be stored: going on would leave the stored conversation behind what the
// model and the tools did.
func (c *conversationRun) fail(err error) error {
	if _, ok := err.(*ConversationError); !ok {
		err = &ConversationError{ConversationID: c.id, Op: "storing a step", Err: err}
	}
	c.ctl.cancelWith(err)
	return err
}

// beforeCall stores the run's new messages, tool results first, then takes in the steering input waiting, and
// returns the messages for the model call: msgs with the steering input taken in so far, each after the message
// it followed when it arrived. It returns the steering input it took in too.
func (c *conversationRun) beforeCall(ctx context.Context, msgs []chat.Message) (_, steer []chat.Message, _ error) {
	var entries []storage.Entry
	tail := c.unstored(msgs)
	if len(tail) > 0 {
		e, err := marshalEntry(storage.EntryToolResults, tail)
		if err != nil {
			return nil, nil, c.fail(err)
		}
		entries = append(entries, e)
	}
	if len(entries) > 0 || c.hasPending() {
		if err := c.append(ctx, "storing the tool results", entries...); err != nil {
			return nil, nil, c.fail(err)
		}
		c.learn(tail)
	}
	// Steering input is taken only when the run was told some waits, so a call without it costs no round trip.
	if c.steeringWaits() {
		var err error
		if steer, err = c.takeSteering(ctx); err != nil {
			return nil, nil, c.fail(err)
		}
	}
	return c.watches.place(msgs, steer), steer, nil
}

// useStore wires Config.Store into the host: its settings become the middle settings layer, unless
// Config.Settings says otherwise, and calls that needed approval are marked as started before they run.
func (h *Host) useStore() {
	h.runs = storeutil.Runs(h.cfg.Store)
	if am, ok := h.cfg.Meter.(metering.Ahead); ok && am.Advances(h.cfg.Store) {
		h.advancer = am // reserves a run's first model call in the store's BeginRun
	}
	if h.cfg.Settings == nil {
		h.cfg.Settings = StoredSettings(h.cfg.Store)
		h.storeSettings = true
	}
	next := h.invoker
	h.invoker = func(ctx context.Context, tool *toolset.Tool, call *toolset.Call) (json.RawMessage, error) {
		if tool.RequiresApproval {
			if c, _ := ctx.Value(startsKey{h}).(*conversationRun); c != nil {
				if err := c.markStarted(ctx, tool, call); err != nil {
					return nil, err
				}
			}
		}
		return next(ctx, tool, call)
	}
}

// startsKey is the context key under which the tool runner of a run on h hands an approved call's conversation,
// through Config.ToolMiddleware, to the mark in h's invoker below it: a ToolInvoker takes a context, the tool and
// the call alone, so the call's context is the one way through a user's middleware. The runner sets it for each
// call that requires approval, to its run's conversation or to nil, so a sub-agent's run never marks a call in
// the conversation of the run that called it.
type startsKey struct{ h *Host }

// markStarted stores that an approved call is about to run, so that no later run runs it again.
func (c *conversationRun) markStarted(ctx context.Context, tool *toolset.Tool, call *toolset.Call) error {
	id := toolID(tool)
	s := startedCall{RequestID: c.h.requestID(chat.ToolCall{ID: call.ID, Name: call.Name, Arguments: call.Arguments}, id), CallID: call.ID, ToolID: id}
	if err := c.append(ctx, "marking an approved call as started", jsonEntry(storage.EntryApprovalAnswers, startedData{Started: []startedCall{s}})); err != nil {
		return c.fail(err)
	}
	return nil
}

// storeSummary records a summary written during the model call in flight: the entry holds the summary and the
// messages the summary does not cover, from keptFrom on, with the run's mode and standing approvals, so the
// conversation's later runs load from it on and read nothing before it. A summary stored already during the call
// is not stored again. When the entry cannot be stored, the run ends with the error.
func (c *checkpoint) storeSummary(ctx context.Context, summary chat.Message, keptFrom int) {
	if keptFrom < 0 || keptFrom > len(c.sent) {
		return
	}
	text := summary.Text()
	if c.summarised.keptFrom == keptFrom && c.summarised.text == text {
		return
	}
	c.summarised.keptFrom, c.summarised.text = keptFrom, text
	d := summaryData{Messages: append([]chat.Message{summary}, c.sent[keptFrom:]...), savedState: c.conv.saved()}
	if err := c.conv.append(ctx, "storing a summary", jsonEntry(storage.EntrySummary, d)); err != nil {
		c.conv.fail(err)
	}
}

// summaryKey finds the checkpoint of the model call in flight, for StoreSummary. Only Config.Inner and the
// provider's client see it: a sub-agent's run, started by a tool above, never does.
type summaryKey struct{}

// StoreSummary records a summary in the run's conversation, from a middleware in [Config.Inner]: summary stands for
// the messages of the model call before keptFrom, the index of the first message it does not cover. The entry
// holds the summary and the messages from keptFrom on, with the run's mode and standing approvals, so the
// conversation's later runs load from it on and read nothing before it. Outside a run with a conversation it does
// nothing. When the entry cannot be stored, the run ends with the error.
//
// A [Compaction] in Config.Inner does not need it: a host with Config.Store stores each of its summaries itself.
// Passed as CompactionOptions.OnSummary, it stores nothing more.
func StoreSummary(ctx context.Context, summary chat.Message, keptFrom int) {
	if c, _ := ctx.Value(summaryKey{}).(*checkpoint); c != nil {
		c.storeSummary(ctx, summary, keptFrom)
	}
}
