package agent

import (
	"context"
	"errors"
	"iter"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// Conversation runs in the conversation with this id, kept by Config.Store: the run claims it, continues from
// its stored history, mode and standing approvals, stores each step, and binds the input's approval answers to
// the requests the conversation left open. Pass the new input only, never [Messages]. See docs/conversations.md.
func Conversation(id string) RunOption { return func(r *runInput) { r.conversationID = id } }

// openConversation claims the run's conversation, loads it, and returns it with the run's messages: its history,
// then input. It returns nil and input when the run has no conversation.
func (h *Host) openConversation(ctx context.Context, st *runState, input []chat.Message, claimed *claimed) (*conversationRun, []chat.Message, error) {
	ri := &st.ask.input
	id := ri.conversationID
	if id == "" {
		return nil, input, nil
	}
	switch {
	case h.cfg.Store == nil:
		return nil, nil, ErrNoStore
	case ri.settingsID == "":
		return nil, nil, ErrNoSettingsID
	case len(ri.history) > 0:
		return nil, nil, ErrHistoryWithConversation
	}
	if err := checkConversationInput(input); err != nil {
		return nil, nil, err
	}
	ttl := h.leaseTTL()
	c, entries, loadErr, err := h.claimConversation(ctx, st, ttl, claimed)
	if err != nil {
		return nil, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.close()
		}
	}()
	err = loadErr
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, nil, &ConversationError{ConversationID: id, Op: "loading the conversation", Err: err}
	}
	l, err := buildHistory(id, entries)
	if err != nil {
		return nil, nil, &ConversationError{ConversationID: id, Op: "loading the conversation", Err: err}
	}
	if err := l.checkAnswers(input); err != nil {
		return nil, nil, err
	}
	st.session.load(l.mode, ri.modeSet, l.standing)
	c.routing.resume(l.agent)

	msgs := append(l.msgs, input...)
	c.journal.open(input, msgs)
	h.live.add(c)
	ok = true
	return c, msgs, nil
}

// begin queues the start of the run and its input, to be stored before anything else the run does. The returned
// context ends when the lease is lost.
func (c *conversationRun) begin(ctx context.Context) (context.Context, error) {
	var cancel context.CancelCauseFunc
	ctx, cancel = context.WithCancelCause(ctx)
	c.ctl.begin(ctx, cancel)
	lost := c.lease.lostClaim() // after begin: a loss from now on cancels the run itself
	if lost != nil {
		cancel(lost)
		return ctx, lost
	}
	start := jsonEntry(storage.EntryRunStart, runStartData{savedState{Mode: c.st.session.mode()}})
	input, err := marshalEntry(storage.EntryInput, c.journal.input)
	if err != nil {
		return ctx, &ConversationError{ConversationID: c.id, Op: "storing the input", Err: err}
	}
	input.Author = "user"
	entries := []storage.Entry{start}
	if len(c.journal.input) > 0 {
		entries = append(entries, input)
	}
	c.queueStart(entries...)
	return ctx, nil
}

// end stores what the run left unstored (the last tool results), its pending approval requests and its end, then
// releases the conversation. It returns the run's error, or what failed in storing.
func (c *conversationRun) end(ctx context.Context, msgs []chat.Message, resp *chat.Response, runErr error) error {
	begun := c.ctl.begun()
	if runErr != nil && begun {
		if cause := context.Cause(ctx); cause != nil && errors.Is(runErr, context.Canceled) && !errors.Is(cause, context.Canceled) {
			runErr = cause // the lease was lost, or a step could not be stored
		}
	}
	if f := c.watches.elsewhere.feed.Load(); f != nil {
		// The watchers learn of the end at once; the release keeps the last event's id for the next run.
		c.lease.lastEventIs(f.close(runErr))
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	var storeErr error
	ended := false         // the run's budget was ended with its last entries
	if c.journal.started { // begin queued the start: store the end
		all := msgs
		var out []chat.Message
		if resp != nil {
			all = append(slices.Clip(msgs), resp.Messages...)
			out = resp.Messages
		}
		var entries []storage.Entry
		if tail := c.unstored(all); len(tail) > 0 {
			e, err := marshalEntry(storage.EntryToolResults, tail)
			if err == nil {
				entries = append(entries, e)
			}
		}
		if reqs := openRequests(out); len(c.st.session.pending) > 0 && len(reqs) > 0 {
			parts := make([]chat.Part, len(reqs))
			for i, r := range reqs {
				parts[i] = r
			}
			e, err := marshalEntry(storage.EntryApprovalRequests, []chat.Message{{Role: chat.RoleAssistant, AuthorName: c.st.ask.name(), Parts: parts}})
			if err == nil {
				entries = append(entries, e)
			}
		}
		endData := runEndData{savedState: c.saved(), Pending: len(c.st.session.pending)}
		whole := c.st // the run's usage and cost: its first agent's, which those it was handed to joined
		if c.routing.first != nil {
			whole = c.routing.first
		}
		if u := whole.usage.total(); u != (chat.Usage{}) {
			endData.Usage = &usageData{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
				CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens}
		}
		endData.Cost = whole.costs.endCost()
		if runErr != nil {
			endData.Error = runErr.Error()
		}
		entries = append(entries, jsonEntry(storage.EntryRunEnd, endData))
		ends := c.st.costs.storedEnd(c.store)
		storeErr = c.store1(wctx, "storing the end of the run", true, ends, entries)
		ended = len(ends) > 0 && storeErr == nil
	}
	c.st.costs.finish(wctx, ended)
	if lost := c.lease.lostClaim(); lost != nil {
		// The claim is gone: store1 stored nothing more, and the run's error says why.
		if storeErr == lost {
			storeErr = nil
		}
		if !errors.Is(runErr, storage.ErrClaimLost) {
			runErr = errors.Join(runErr, lost)
		}
	}
	if begun {
		c.ctl.cancelWith(nil)
	}
	if err := c.close(); err != nil && storeErr == nil {
		storeErr = err
	}
	if runErr != nil {
		if storeErr != nil {
			return errors.Join(runErr, storeErr)
		}
		return runErr
	}
	return storeErr
}

// openRequests returns the approval requests of msgs whose calls have no result there.
func openRequests(msgs []chat.Message) []chat.ApprovalRequest {
	var out []chat.ApprovalRequest
	for _, r := range requestsIn(msgs) {
		if !hasResult(msgs, r.Call.ID) && !slices.ContainsFunc(out, func(o chat.ApprovalRequest) bool { return o.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out
}

func hasResult(msgs []chat.Message, callID string) bool {
	for r := range partsOf[chat.ToolResult](msgs) {
		if r.CallID == callID {
			return true
		}
	}
	return false
}

// conversationClient is the outermost stage of a run with a conversation: it stores the run's start and input,
// keeps the claim while the run lasts, publishes a streaming run's updates, and stores the run's end.
type conversationClient struct {
	next chat.Client
	conv *conversationRun
}

func (c *conversationClient) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	ctx, err := c.conv.begin(ctx)
	if err != nil {
		return nil, c.conv.end(ctx, msgs, nil, err)
	}
	resp, err := c.conv.respond(ctx, c.next, msgs, opts, nil)
	c.conv.feedWhole(resp)
	return resp, c.conv.end(ctx, msgs, resp, err)
}

// feedWhole gives the watchers of a run that did not stream its new messages, whole, when someone watches the
// conversation now; a run nobody watches costs nothing here.
func (c *conversationRun) feedWhole(resp *chat.Response) {
	if resp == nil || !(c.watches.elsewhere.watched.Load() || c.h.feeds().watched(liveKey{c.settingsID, c.id})) {
		return
	}
	f := newRunFeed(c, c.lease.claimHead)
	for _, m := range resp.Messages {
		f.add(chat.Update{Model: resp.Model, Role: m.Role, AuthorName: m.AuthorName, Parts: m.Parts})
	}
}

func (c *conversationClient) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		ctx, err := c.conv.begin(ctx)
		if err != nil {
			yield(chat.Update{}, c.conv.end(ctx, msgs, nil, err))
			return
		}
		feed := newRunFeed(c.conv, c.conv.lease.claimHead)
		stopped := false
		resp, runErr := c.conv.respond(ctx, c.next, msgs, opts, func(u chat.Update) bool {
			feed.add(u)
			if !yield(u, nil) {
				stopped = true
				return false
			}
			return true
		})
		if stopped {
			// The caller stopped reading: the run's end records why it ended early; the caller asked for it.
			_ = c.conv.end(ctx, msgs, resp, errReaderStopped)
			return
		}
		if err := c.conv.end(ctx, msgs, resp, runErr); err != nil {
			yield(chat.Update{}, err)
		}
	}
}

// conversationOf returns the conversation id the options name, for the run's span, which starts before the
// options are applied to the run.
func conversationOf(opts []RunOption) string {
	var ri runInput
	for _, o := range opts {
		if o != nil {
			o(&ri)
		}
	}
	return ri.conversationID
}

// newRunFeed starts the feed of c's streaming run. The run's events are numbered from head+1.
func newRunFeed(c *conversationRun, head int64) *runFeed {
	f := &runFeed{feed: c.h.feeds().acquire(liveKey{c.settingsID, c.id}), runID: c.st.session.run.RunID, base: head, next: head,
		store: c.store, settingsID: c.settingsID, conversationID: c.id, tel: c.h.cfg.Telemetry, log: c.h.cfg.Logger}
	if c.watches.elsewhere.watched.Load() {
		f.startRelay()
	}
	c.watches.elsewhere.feed.Store(f)
	return f
}
