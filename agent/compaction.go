package agent

import (
	"context"
	"fmt"
	"hash/maphash"
	"iter"
	"strings"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// ClearedResultText replaces a tool result that compaction cleared.
const ClearedResultText = "[result cleared to save context]"

// clearedResult is ClearedResultText as the JSON string a cleared result holds.
var clearedResult = []byte(`"` + ClearedResultText + `"`)

// SummaryPrefix starts the text of the message that stands for the summarised part of a conversation.
const SummaryPrefix = "Summary of the conversation so far:\n"

// DefaultSummaryInstructions are what the model that writes a summary is told.
const DefaultSummaryInstructions = "You condense conversations between a user, an assistant and its tools. " +
	"Summarise the conversation you are given so that the assistant can carry on from it without the original: " +
	"the user's goals and requests, decisions made, facts and identifiers learnt from tool results, what was done, " +
	"and what is still open. Write plain prose and lists, no preamble."

// CompactionOptions configure [Compaction].
type CompactionOptions struct {
	// Budget is the most input tokens a model call may take, as estimated: the messages, the instructions and the
	// tools' descriptions and schemas. A request over it is compacted. Zero or less turns compaction off.
	Budget int
	// Target is what a compacted request is shrunk to, below Budget so that the next steps fit without compacting
	// again. Zero means three quarters of Budget.
	Target int
	// KeepResults is how many of the most recent tool results are never cleared. Zero means 3; negative means
	// none.
	KeepResults int

	// Summarizer writes the summaries. Nil means the client compaction wraps: the run's own model.
	Summarizer chat.Client
	// SummaryModel is the model the summary is asked of; empty means the run's model.
	SummaryModel string
	// SummaryInstructions replace [DefaultSummaryInstructions].
	SummaryInstructions string
	// SummaryMaxTokens bounds a summary's length, and is the room kept for it. Zero means a quarter of Target, at
	// most 2000.
	SummaryMaxTokens int

	// OnSummary, when not nil, is called with each new summary and the index, in the messages the compaction
	// received, of the first message the summary does not cover. It is not needed to store the summary: a host
	// with Config.Store records each summary in the run's conversation itself, so that later runs start from it.
	OnSummary func(ctx context.Context, summary chat.Message, keptFrom int)
}

// Compaction returns a middleware that keeps each model call within a token budget. Put it in [Config.Inner],
// below the tool loop, where it sees every model call of a run and where the conversation's checkpoints have
// stored each step before it shrinks the request.
//
// A request over the budget is compacted in two steps. First the oldest tool results are replaced by
// [ClearedResultText], keeping the most recent ones, until the request fits the target. If clearing is not
// enough, the older messages are summarised by a model call into one user message that starts with
// [SummaryPrefix], and only the recent messages are kept after it. System messages are always kept, the options'
// instructions are never touched, and a tool call and its result are kept or summarised together.
//
// Tokens are estimated as bytes/4, calibrated after each call by the input tokens the provider reports. The host
// calls the middleware once per run, so the calibration, the cleared results and the summary belong to one run.
// Used outside a host, one wrapped client keeps them across all its calls. See docs/compaction.md.
func Compaction(o CompactionOptions) chat.Middleware {
	if o.Budget <= 0 {
		return func(next chat.Client) chat.Client { return next }
	}
	if o.Target <= 0 || o.Target > o.Budget {
		o.Target = o.Budget * 3 / 4
	}
	switch {
	case o.KeepResults == 0:
		o.KeepResults = 3
	case o.KeepResults < 0:
		o.KeepResults = 0
	}
	if o.SummaryMaxTokens <= 0 {
		o.SummaryMaxTokens = min(o.Target/4, 2000)
	}
	if o.SummaryInstructions == "" {
		o.SummaryInstructions = DefaultSummaryInstructions
	}
	seed := maphash.MakeSeed()
	return func(next chat.Client) chat.Client {
		return &compactor{next: next, o: o, seed: seed, ratio: 1}
	}
}

// summaryStore records a compaction's summaries: the checkpoint of a run with a conversation.
type summaryStore interface {
	storeSummary(ctx context.Context, summary chat.Message, keptFrom int)
}

// recordIn makes c record each new summary in s. The host calls it while it builds the run's stages, before any
// model call.
func (c *compactor) recordIn(s summaryStore) { c.stored = s }

// compactor is the compaction of one run.
type compactor struct {
	next chat.Client
	o    CompactionOptions
	seed maphash.Seed
	// stored records each new summary in the run's conversation: the run's checkpoint, which the host gives a
	// compaction in Config.Inner of a run with a conversation (recordIn), or nil.
	stored summaryStore

	mu sync.Mutex
	// ratio turns the raw estimate (bytes/4) into the provider's tokens, as its last reported usage showed.
	ratio   float64
	cleared map[string]bool // call IDs whose results are cleared
	// The summary stands for msgs[:keptFrom] while those messages hash to prefix; head is the messages sent in
	// their place: their system messages, then the summary.
	summary  *chat.Message
	keptFrom int
	prefix   uint64
	head     []chat.Message
}

func (c *compactor) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	req, extra, err := c.compact(ctx, msgs, opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.next.Respond(ctx, req, opts)
	if resp != nil {
		c.calibrate(req, opts, resp.Usage.InputTokens)
		resp.Usage = resp.Usage.Add(extra)
	}
	return resp, err
}

func (c *compactor) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		req, extra, err := c.compact(ctx, msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		if extra != (chat.Usage{}) {
			// The summary's tokens count towards the run's usage like the call's own.
			if !yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.UsagePart{Usage: extra}}}, nil) {
				return
			}
		}
		var input int64
		for u, err := range c.next.Stream(ctx, req, opts) {
			for _, p := range u.Parts {
				if up, ok := p.(chat.UsagePart); ok {
					input += up.Usage.InputTokens
				}
			}
			if !yield(u, err) || err != nil {
				return
			}
		}
		c.calibrate(req, opts, input)
	}
}

// calibrate records how many tokens the provider counted for a request whose raw estimate it knows.
func (c *compactor) calibrate(req []chat.Message, opts *chat.Options, reported int64) {
	if reported <= 0 {
		return
	}
	raw := rawTokens(optionsBytes(opts) + messagesBytes(req))
	if raw <= 0 {
		return
	}
	r := float64(reported) / float64(raw)
	c.mu.Lock()
	c.ratio = min(max(r, 0.1), 10) // a provider's odd report must not make every request look empty or huge
	c.mu.Unlock()
}

// compact returns the request to send in place of msgs, and the usage of the summary it wrote, if any.
func (c *compactor) compact(ctx context.Context, msgs []chat.Message, opts *chat.Options) ([]chat.Message, chat.Usage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fixed := optionsBytes(opts)

	// A summary written by an earlier call stands for the messages it covered, as long as they are the same.
	start := 0
	var head []chat.Message
	if c.summary != nil {
		if c.keptFrom <= len(msgs) && c.hash(msgs[:c.keptFrom]) == c.prefix {
			start, head = c.keptFrom, c.head
		} else {
			c.summary, c.head = nil, nil
		}
	}
	tail, changed := c.applyCleared(msgs[start:])
	headBytes := messagesBytes(head)
	tailBytes := messagesBytes(tail)
	if c.tokens(fixed+headBytes+tailBytes) <= c.o.Budget {
		if start == 0 && !changed {
			return msgs, chat.Usage{}, nil
		}
		return join(head, tail), chat.Usage{}, nil
	}

	// Step 1: clear the oldest results until the request fits the target.
	tail, tailBytes = c.clearOldest(tail, fixed+headBytes, tailBytes)
	if c.tokens(fixed+headBytes+tailBytes) <= c.o.Budget {
		return join(head, tail), chat.Usage{}, nil
	}

	// Step 2: summarise the older messages.
	k := c.cut(tail, fixed+messagesBytes(systemMessages(head)))
	if k <= 0 {
		return join(head, tail), chat.Usage{}, nil // nothing can go: send it as it is
	}
	var covered []chat.Message
	if c.summary != nil {
		covered = append(covered, *c.summary)
	}
	covered = append(covered, tail[:k]...)
	summary, usage, err := c.summarise(ctx, covered, opts)
	if err != nil {
		return nil, usage, fmt.Errorf("compaction: summarising %d messages: %w", len(covered), err)
	}
	keptFrom := start + k
	newHead := append(systemMessages(head), systemMessages(tail[:k])...)
	newHead = append(newHead, summary)
	c.summary, c.keptFrom, c.prefix, c.head = &summary, keptFrom, c.hash(msgs[:keptFrom]), newHead
	if c.stored != nil {
		c.stored.storeSummary(ctx, summary, keptFrom)
	}
	if c.o.OnSummary != nil {
		c.o.OnSummary(ctx, summary, keptFrom)
	}
	return join(newHead, tail[k:]), usage, nil
}

// tokens estimates the provider's tokens for n bytes.
func (c *compactor) tokens(n int) int { return int(float64(rawTokens(n)) * c.ratio) }

// rawTokens is the uncalibrated estimate: a token per four bytes.
func rawTokens(n int) int { return (n + 3) / 4 }

// applyCleared returns msgs with the results cleared earlier replaced, copying only the messages it changes.
func (c *compactor) applyCleared(msgs []chat.Message) ([]chat.Message, bool) {
	if len(c.cleared) == 0 {
		return msgs, false
	}
	var out []chat.Message
	for i, m := range msgs {
		var parts []chat.Part
		for j, p := range m.Parts {
			r, ok := p.(chat.ToolResult)
			if !ok || !c.cleared[r.CallID] || isCleared(r) {
				continue
			}
			if parts == nil {
				parts = append([]chat.Part(nil), m.Parts...)
			}
			parts[j] = clearResult(r)
		}
		if parts == nil {
			continue
		}
		if out == nil {
			out = append([]chat.Message(nil), msgs...)
		}
		out[i].Parts = parts
	}
	if out == nil {
		return msgs, false
	}
	return out, true
}

// clearOldest clears results, oldest first and never the most recent KeepResults, until the request fits the
// target or nothing more can be cleared. It returns the messages and their new size in bytes.
func (c *compactor) clearOldest(msgs []chat.Message, other, size int) ([]chat.Message, int) {
	total := 0
	for range partsOf[chat.ToolResult](msgs) {
		total++
	}
	clearable := total - c.o.KeepResults
	copied := false
	for i := 0; i < len(msgs) && clearable > 0; i++ {
		m := msgs[i]
		parts := m.Parts
		for j, p := range m.Parts {
			if clearable <= 0 || c.tokens(other+size) <= c.o.Target {
				break
			}
			r, ok := p.(chat.ToolResult)
			if !ok {
				continue
			}
			clearable--
			if isCleared(r) || len(r.Result)+len(r.Error)+len(r.Files)*fileBytes <= len(clearedResult) {
				continue // nothing to gain
			}
			if !copied {
				msgs, copied = append([]chat.Message(nil), msgs...), true
			}
			if &parts[0] == &m.Parts[0] {
				parts = append([]chat.Part(nil), m.Parts...)
			}
			cr := clearResult(r)
			size += len(cr.Result) + len(cr.Error) - len(r.Result) - len(r.Error) - len(r.Files)*fileBytes
			parts[j] = cr
			if c.cleared == nil {
				c.cleared = make(map[string]bool)
			}
			c.cleared[r.CallID] = true
		}
		if copied {
			msgs[i].Parts = parts
		}
		if c.tokens(other+size) <= c.o.Target {
			break
		}
	}
	return msgs, size
}

// clearResult returns r with its content replaced by the cleared note; an error stays an error.
func clearResult(r chat.ToolResult) chat.ToolResult {
	if r.Error != "" && len(r.Result) == 0 {
		return chat.ToolResult{CallID: r.CallID, Error: ClearedResultText}
	}
	return chat.ToolResult{CallID: r.CallID, Result: clearedResult}
}

func isCleared(r chat.ToolResult) bool {
	return r.Error == ClearedResultText || string(r.Result) == string(clearedResult)
}

// cut returns how many of msgs a summary should cover: the fewest whose removal makes the rest fit the target
// (with room for the summary), at a boundary that splits no call from its result. Failing that, it covers all
// but the last safe part. It returns 0 when no boundary is safe.
func (c *compactor) cut(msgs []chat.Message, other int) int {
	safe := safeBoundaries(msgs)
	room := c.o.Target - c.o.SummaryMaxTokens
	rest := messagesBytes(msgs)
	best := 0
	for k := 1; k < len(msgs); k++ {
		rest -= messageBytes(msgs[k-1])
		if !safe[k] {
			continue
		}
		best = k
		if c.tokens(other+rest) <= room {
			return k
		}
	}
	return best
}

// safeBoundaries reports, for each k in [0, len(msgs)], whether msgs[:k] and msgs[k:] keep every tool call with
// its result: no result in msgs[k:] answers a call in msgs[:k]. A result answers the latest call with its id before
// it, so that a repeated id (which the unique call ids stage prevents within a run) cannot pair the wrong messages.
func safeBoundaries(msgs []chat.Message) []bool {
	callAt := make(map[string]int)
	// A call at index a answered at index b > a forbids every boundary in (a, b].
	diff := make([]int, len(msgs)+2)
	for i, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				if a, ok := callAt[r.CallID]; ok && a < i {
					diff[a+1]++
					diff[i+1]--
				}
			}
		}
		for _, p := range m.Parts {
			if c, ok := p.(chat.ToolCall); ok {
				callAt[c.ID] = i
			}
		}
	}
	safe := make([]bool, len(msgs)+1)
	open := 0
	for k := 0; k <= len(msgs); k++ {
		open += diff[k]
		safe[k] = open == 0
	}
	return safe
}

// summarise asks the summarizer for a summary of msgs and returns it as the message that stands for them.
func (c *compactor) summarise(ctx context.Context, msgs []chat.Message, opts *chat.Options) (chat.Message, chat.Usage, error) {
	client := c.o.Summarizer
	if client == nil {
		client = c.next
	}
	model := c.o.SummaryModel
	if model == "" && opts != nil {
		model = opts.Model
	}
	maxTokens := c.o.SummaryMaxTokens
	sopts := &chat.Options{Model: model, Instructions: c.o.SummaryInstructions, MaxTokens: &maxTokens}
	// The conversation goes as a transcript in one message, so no provider sees tool calls without the tools.
	req := []chat.Message{chat.UserText("Summarise this conversation:\n\n" + transcript(msgs))}
	resp, err := client.Respond(ctx, req, sopts)
	if err != nil {
		var u chat.Usage
		if resp != nil {
			u = resp.Usage
		}
		return chat.Message{}, u, err
	}
	var text string
	for _, m := range resp.Messages {
		if m.Role == chat.RoleAssistant || m.Role == "" {
			text += m.Text()
		}
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return chat.Message{}, resp.Usage, fmt.Errorf("the summary is empty")
	}
	return chat.UserText(SummaryPrefix + text), resp.Usage, nil
}

// transcript writes msgs as plain text for the summarizer.
func transcript(msgs []chat.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role))
		if m.AuthorName != "" {
			b.WriteString(" (" + m.AuthorName + ")")
		}
		b.WriteString(":\n")
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				b.WriteString(p.Text)
			case chat.ToolCall:
				fmt.Fprintf(&b, "[called %s, call %s, with %s]", p.Name, p.ID, p.Arguments)
			case chat.ToolResult:
				if p.Error != "" {
					fmt.Fprintf(&b, "[call %s failed: %s]", p.CallID, p.Error)
				} else {
					fmt.Fprintf(&b, "[call %s returned %s]", p.CallID, p.Result)
				}
			default:
				continue
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// systemMessages returns the system messages of msgs, in a new slice.
func systemMessages(msgs []chat.Message) []chat.Message {
	var out []chat.Message
	for _, m := range msgs {
		if m.Role == chat.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

// join returns head followed by tail in a new slice.
func join(head, tail []chat.Message) []chat.Message {
	if len(head) == 0 {
		return tail
	}
	out := make([]chat.Message, 0, len(head)+len(tail))
	return append(append(out, head...), tail...)
}

// hash fingerprints msgs, so that a summary is reused only for the messages it covers.
func (c *compactor) hash(msgs []chat.Message) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, m := range msgs {
		h.WriteString(string(m.Role))
		h.WriteByte(0)
		h.WriteString(m.AuthorName)
		h.WriteByte(0)
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				h.WriteByte('t')
				h.WriteString(p.Text)
			case chat.ToolCall:
				h.WriteByte('c')
				h.WriteString(p.ID)
				h.WriteByte(0)
				h.WriteString(p.Name)
				h.WriteByte(0)
				h.Write(p.Arguments)
			case chat.ToolResult:
				h.WriteByte('r')
				h.WriteString(p.CallID)
				h.WriteByte(0)
				h.Write(p.Result)
				h.WriteByte(0)
				h.WriteString(p.Error)
				for _, f := range p.Files {
					h.WriteByte('f')
					h.WriteString(f.MediaType)
					h.WriteByte(0)
					h.WriteString(f.URL)
					h.WriteByte(0)
					h.Write(f.Data)
				}
			case chat.Raw:
				h.WriteByte('w')
				h.Write(p.Data)
			case chat.Reasoning:
				h.WriteByte('g')
				h.WriteString(p.Provider)
				h.WriteByte(0)
				h.WriteString(p.Text)
				h.WriteByte(0)
				h.WriteString(p.Encrypted)
				h.WriteByte(0)
				h.WriteString(p.Signature)
			case chat.File:
				h.WriteByte('f')
				h.WriteString(p.MediaType)
				h.WriteByte(0)
				h.WriteString(p.URL)
				h.WriteByte(0)
				h.Write(p.Data)
			default:
				h.WriteByte('o')
			}
			h.WriteByte(0)
		}
		h.WriteByte(1)
	}
	return h.Sum64()
}

// messageOverhead approximates the bytes a provider's framing adds to each message.
const messageOverhead = 8

// messagesBytes is the size the estimate counts for msgs.
func messagesBytes(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageBytes(m)
	}
	return n
}

func messageBytes(m chat.Message) int {
	n := messageOverhead + len(m.Role) + len(m.AuthorName)
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.Text:
			n += len(p.Text)
		case chat.ToolCall:
			n += len(p.ID) + len(p.Name) + len(p.Arguments)
		case chat.ToolResult:
			n += len(p.CallID) + len(p.Result) + len(p.Error) + len(p.Files)*fileBytes
		case chat.Raw:
			n += len(p.Data)
		case chat.Reasoning:
			n += len(p.Text) + len(p.Encrypted)
		case chat.File:
			// Providers bill an image or a page by its size on screen, not its bytes: about a thousand tokens.
			n += fileBytes + len(p.URL)
		}
	}
	return n
}

// fileBytes is what the estimate counts for a file, a thousand tokens' worth of text.
const fileBytes = 4000

// optionsBytes is the size the estimate counts for what the options add to a request.
func optionsBytes(o *chat.Options) int {
	if o == nil {
		return 0
	}
	n := len(o.Instructions)
	for _, t := range o.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n
}
