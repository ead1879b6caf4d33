package agent

import (
	"context"
	"encoding/json"
	"iter"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// checkpoint sits below the tool loop of a run with a conversation, so it sees every model call. Before each call
// it stores the messages the run added since the last one (tool results, and the calls the approval stage ran),
// then takes in the steering input that waits in the store; after each call it queues the response, which is
// stored with those messages, in the same call to the store, before the next model call (or before an approved
// call runs, or at the end of the run). A crash loses at most the call in flight and the tools it called.
type checkpoint struct {
	next chat.Client
	conv *conversationRun
}

func (c *checkpoint) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	msgs, _, err := c.conv.beforeCall(ctx, msgs)
	if err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, callKey{}, &modelCall{conv: c.conv, msgs: msgs})
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
		ctx := context.WithValue(ctx, callKey{}, &modelCall{conv: c.conv, msgs: msgs})
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

// storeResponse queues one model response, with the agent's name on it, to be stored with the run's next step.
func (c *conversationRun) storeResponse(ctx context.Context, msgs []chat.Message) error {
	msgs = slices.Clone(msgs)
	for i := range msgs {
		if msgs[i].AuthorName == "" && msgs[i].Role != chat.RoleUser {
			msgs[i].AuthorName = c.st.ask.name
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

// anchor is steering input taken in, placed after the message with the key after.
type anchor struct {
	after string
	msgs  []chat.Message
}

// msgKey identifies a message of a run well enough to find it again in a later call: its role, its first call or
// result ID, and its text.
func msgKey(m chat.Message) string {
	k := string(m.Role)
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.ToolCall:
			return k + "\x00c" + p.ID
		case chat.ToolResult:
			return k + "\x00r" + p.CallID
		}
	}
	return k + "\x00t" + m.Text()
}

func withAuthor(m chat.Message, name string) chat.Message {
	if m.AuthorName == "" {
		m.AuthorName = name
	}
	return m
}

// useStore wires Config.Store into the host: its settings become the middle settings layer, unless
// Config.Settings says otherwise, and calls that needed approval are marked as started before they run.
func (h *Host) useStore() {
	if h.cfg.Settings == nil {
		h.cfg.Settings = StoredSettings(h.cfg.Store)
		h.storeSettings = true
	}
	next := h.invoker
	h.invoker = func(ctx context.Context, tool *toolset.Tool, call *toolset.Call) (json.RawMessage, error) {
		if tool.RequiresApproval {
			if c, ok := ctx.Value(convKey{h}).(*conversationRun); ok {
				if err := c.markStarted(ctx, tool, call); err != nil {
					return nil, err
				}
			}
		}
		return next(ctx, tool, call)
	}
}

// markStarted stores that an approved call is about to run, so that no later run runs it again.
func (c *conversationRun) markStarted(ctx context.Context, tool *toolset.Tool, call *toolset.Call) error {
	id := toolID(tool)
	s := startedCall{RequestID: c.h.requestID(chat.ToolCall{ID: call.ID, Name: call.Name, Arguments: call.Arguments}, id), CallID: call.ID, ToolID: id}
	if err := c.append(ctx, "marking an approved call as started", jsonEntry(storage.EntryApprovalAnswers, startedData{Started: []startedCall{s}})); err != nil {
		return c.fail(err)
	}
	return nil
}

// callKey finds the model call in flight below the checkpoint, for StoreSummary. Only Config.Inner and the
// provider's client see it: a sub-agent's run, started by a tool above, never does.
type callKey struct{}

// modelCall is what the checkpoint sent down: the run's conversation and the messages, all of them stored.
type modelCall struct {
	conv *conversationRun
	msgs []chat.Message
}

// StoreSummary records a compaction summary in the run's conversation: pass it as CompactionOptions.OnSummary.
// The entry holds the summary and the messages compaction kept after it, with the run's mode and standing
// approvals, so the conversation's later runs load from it on and read nothing before it. Outside a run with a
// conversation it does nothing. When the entry cannot be stored, the run ends with the error.
func StoreSummary(ctx context.Context, summary chat.Message, keptFrom int) {
	mc, ok := ctx.Value(callKey{}).(*modelCall)
	if !ok || keptFrom < 0 || keptFrom > len(mc.msgs) {
		return
	}
	c := mc.conv
	d := summaryData{Messages: append([]chat.Message{summary}, mc.msgs[keptFrom:]...), savedState: c.saved()}
	if err := c.append(ctx, "storing a summary", jsonEntry(storage.EntrySummary, d)); err != nil {
		c.fail(err)
	}
}
