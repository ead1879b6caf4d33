package agenthttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/storage"
)

// runRequest is the body of a native run: the user's text, answers to the conversation's open approval requests,
// or both.
type runRequest struct {
	// Agent names the agent to run; it may be left out when the handler serves one.
	Agent     string       `json:"agent,omitempty"`
	Text      string       `json:"text,omitempty"`
	Files     []fileJSON   `json:"files,omitempty"`
	Approvals []answerJSON `json:"approvals,omitempty"`
	// Mode, when set, runs in this mode (one of Options.ClientModes); otherwise the conversation's mode goes on.
	Mode *string `json:"mode,omitempty"`
}

// answerJSON answers one approval request.
type answerJSON struct {
	RequestID string `json:"request_id"`
	Approved  bool   `json:"approved"`
	// Reason is what the model reads of a denial.
	Reason string `json:"reason,omitempty"`
	// Always makes an approval standing: "tool" for later calls of the tool, "arguments" for later calls with the
	// same arguments.
	Always string `json:"always,omitempty"`
}

// requestJSON is an open approval request, as clients show it.
type requestJSON struct {
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	ToolID    string          `json:"tool_id,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
}

func requestsJSON(reqs []chat.ApprovalRequest) []requestJSON {
	out := make([]requestJSON, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, requestOf(r))
	}
	return out
}

func requestOf(r chat.ApprovalRequest) requestJSON {
	args := r.Call.Arguments
	if !json.Valid(args) {
		quoted, _ := json.Marshal(string(args))
		args = quoted
	}
	return requestJSON{ID: r.ID, CallID: r.Call.ID, Tool: r.Call.Name, ToolID: r.ToolID, Arguments: args}
}

type usageJSON struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
}

func usageOf(u chat.Usage) usageJSON {
	return usageJSON{u.InputTokens, u.OutputTokens, u.TotalTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens}
}

// resultJSON is a run's outcome.
type resultJSON struct {
	ConversationID string         `json:"conversation_id"`
	Agent          string         `json:"agent"`
	Text           string         `json:"text"`
	Messages       []chat.Message `json:"messages"`
	Pending        []requestJSON  `json:"pending"`
	Mode           string         `json:"mode"`
	Usage          usageJSON      `json:"usage"`
	// Cost is what the run's model calls cost, when the host has a meter (see docs/budgets.md).
	Cost         *costJSON `json:"cost,omitempty"`
	FinishReason string    `json:"finish_reason,omitempty"`
	// Answer is the typed answer the run accepted (agent.Result.Answer), for an agent that declares an answer type;
	// absent otherwise, and for a run that ended before an answer was accepted.
	Answer json.RawMessage `json:"answer,omitempty"`
}

// costJSON is a run's cost: the priced calls' amount in the currency, and the calls with no price.
type costJSON struct {
	Amount        float64 `json:"amount"`
	Currency      string  `json:"currency,omitempty"`
	UnpricedCalls int     `json:"unpriced_calls,omitempty"`
}

func costOf(c agent.Cost) *costJSON {
	if c == (agent.Cost{}) {
		return nil
	}
	return &costJSON{Amount: c.Amount(), Currency: c.Currency, UnpricedCalls: c.Unpriced}
}

func resultOf(conversationID string, res *agent.Result) resultJSON {
	msgs := res.New
	if msgs == nil {
		msgs = []chat.Message{}
	}
	return resultJSON{ConversationID: conversationID, Agent: res.Agent, Text: res.Text(), Messages: msgs,
		Pending: requestsJSON(res.Pending), Mode: res.Mode, Usage: usageOf(res.Usage), Cost: costOf(res.Cost), FinishReason: string(res.FinishReason),
		Answer: answerValue(res.Answer)}
}

// answerValue returns an answer as it goes out: nil (left out) when there is none or it is not JSON, which an
// accepted answer always is.
func answerValue(a json.RawMessage) json.RawMessage {
	if len(a) == 0 || !json.Valid(a) {
		return nil
	}
	return a
}

// input is a run's input in the terms of the agent package, from whichever protocol.
type input struct {
	text    string
	files   []chat.File
	answers []chat.ApprovalAnswer
	mode    *string
}

// options checks the input and returns its run options.
func (h *Handler) options(in input) ([]agent.RunOption, error) {
	var opts []agent.RunOption
	if in.text != "" {
		opts = append(opts, agent.Text(in.text))
	}
	if len(in.files) > maxFiles {
		return nil, &fieldError{Pointer: "", Detail: "at most " + itoa(maxFiles) + " files"}
	}
	if len(in.files) > 0 {
		opts = append(opts, agent.Files(in.files...))
	}
	for _, a := range in.answers {
		opts = append(opts, agent.Answer(a))
	}
	if in.mode != nil {
		if !slices.Contains(h.opts.ClientModes, *in.mode) {
			return nil, &fieldError{Pointer: "/mode", Detail: "not a mode clients may choose: " + strings.Join(quoteAll(h.opts.ClientModes), ", ")}
		}
		opts = append(opts, agent.Mode(*in.mode))
	}
	if len(opts) == 0 || (in.text == "" && len(in.files) == 0 && len(in.answers) == 0) {
		return nil, &fieldError{Pointer: "", Detail: "send text, files, approval answers or both"}
	}
	return opts, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		b, _ := json.Marshal(s)
		out[i] = string(b)
	}
	return out
}

// answersOf checks the native approval answers.
func answersOf(list []answerJSON) ([]chat.ApprovalAnswer, error) {
	var faults validationError
	out := make([]chat.ApprovalAnswer, 0, len(list))
	for i, a := range list {
		at := "/approvals/" + itoa(i)
		if a.RequestID == "" {
			faults = append(faults, FieldError{Pointer: at + "/request_id", Detail: "required"})
		}
		scope, err := chat.ParseStanding(a.Always)
		if err != nil {
			faults = append(faults, FieldError{Pointer: at + "/always", Detail: `must be "tool" or "arguments"`})
		}
		if scope != chat.Once && !a.Approved {
			faults = append(faults, FieldError{Pointer: at + "/always", Detail: "only an approval can be standing"})
		}
		out = append(out, chat.ApprovalAnswer{RequestID: a.RequestID, Approved: a.Approved, Reason: a.Reason, Always: scope})
	}
	if len(faults) > 0 {
		return nil, faults
	}
	return out, nil
}

// runSink receives a run's updates in one protocol's form. Writes to a client that left fail silently: the run
// goes on to its end.
type runSink interface {
	// update is one update of the run.
	update(u chat.Update)
	// end is the run's end: its result, and the error that ended it, if any.
	end(res *agent.Result, err error)
	// refuse answers a run that did not start (busy, a bad answer, bad settings), or that its budget refused
	// before anything was sent, with the error's problem and status.
	refuse(err error)
	// written reports whether anything of the run was sent to the client: its headers are sent with the first
	// event.
	written() bool
	// streams reports whether the sink sends updates as they come; one that does not (a JSON answer) gets the
	// run's result only, and the run asks its model for whole responses.
	streams() bool
}

// conversationState loads the tenant's conversation; a conversation without entries, or another tenant's, is
// errNotFound.
func (h *Handler) conversationState(ctx context.Context, host *agent.Host, settingsID, id string) (*agent.ConversationState, error) {
	st, err := host.LoadConversation(ctx, settingsID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, errNotFound
	}
	return st, err
}

// run runs host in the tenant's conversation and hands what it produces to sink. The run goes on in its own
// context (see runContext): a client that disconnects does not stop it, and the conversation stays watchable.
func (h *Handler) run(r *http.Request, host *agent.Host, conversationID string, opts []agent.RunOption, sink runSink) {
	ctx, cancel := h.runContext(r)
	defer cancel()
	var res agent.Result
	opts = append(opts, agent.SettingsID(principal(r).SettingsID), agent.Conversation(conversationID))
	started := false
	var runErr error
	if sink.streams() {
		for u, err := range host.RunStream(ctx, append(opts, agent.ResultInto(&res))...) {
			if err != nil {
				runErr = err
				break
			}
			started = true
			sink.update(u)
		}
	} else {
		var got *agent.Result
		got, runErr = host.Run(ctx, opts...)
		res = *got
	}
	if runErr != nil && (!started && res.Messages == nil || refused(runErr) && !sink.written()) {
		// Not started, or refused by its budget before the client saw anything: the answer is the problem, with
		// its status (429 and Retry-After for a budget). The refused run's end is stored all the same.
		sink.refuse(runErr)
		return
	}
	if runErr != nil {
		h.log.LogAttrs(ctx, slog.LevelWarn, "agenthttp: run failed", slog.String("conversation_id", conversationID), slog.String("error", runErr.Error()))
	}
	sink.end(&res, runErr)
}

// refused reports a run that its budget refused (storage.BudgetExceededError).
func refused(err error) bool {
	var be *storage.BudgetExceededError
	return errors.As(err, &be)
}

// createConversation starts a conversation with a first run: the server picks its id.
func (h *Handler) createConversation(w http.ResponseWriter, r *http.Request) error {
	var req runRequest
	if err := decodeBody(w, r, h.opts.MaxBodyBytes, &req); err != nil {
		return err
	}
	if len(req.Approvals) > 0 {
		return &fieldError{Pointer: "/approvals", Detail: "a new conversation has no requests to answer"}
	}
	host, err := h.hostFor(req.Agent)
	if err != nil {
		return err
	}
	files, err := filesOf(req.Files)
	if err != nil {
		return err
	}
	opts, err := h.options(input{text: req.Text, files: files, mode: req.Mode})
	if err != nil {
		return err
	}
	id := newID()
	w.Header().Set("Location", "conversations/"+id)
	h.run(r, host, id, opts, h.nativeSink(w, r, id, agent.ModeDefault, http.StatusCreated))
	return nil
}

// postRun sends input to an existing conversation of the tenant.
func (h *Handler) postRun(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	var req runRequest
	if err := decodeBody(w, r, h.opts.MaxBodyBytes, &req); err != nil {
		return err
	}
	host, err := h.hostFor(req.Agent)
	if err != nil {
		return err
	}
	answers, err := answersOf(req.Approvals)
	if err != nil {
		return err
	}
	files, err := filesOf(req.Files)
	if err != nil {
		return err
	}
	opts, err := h.options(input{text: req.Text, files: files, answers: answers, mode: req.Mode})
	if err != nil {
		return err
	}
	st, err := h.conversationState(r.Context(), host, principal(r).SettingsID, id)
	if err != nil {
		return err
	}
	h.run(r, host, id, opts, h.nativeSink(w, r, id, st.Mode, http.StatusOK))
	return nil
}

// steeringRequest is input for a conversation's live run.
type steeringRequest struct {
	Agent string `json:"agent,omitempty"`
	Text  string `json:"text"`
}

// postSteering sends text to the conversation's live run, which takes it in before its next model call.
func (h *Handler) postSteering(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	var req steeringRequest
	if err := decodeBody(w, r, h.opts.MaxBodyBytes, &req); err != nil {
		return err
	}
	if req.Text == "" {
		return &fieldError{Pointer: "/text", Detail: "required"}
	}
	host, err := h.hostFor(req.Agent)
	if err != nil {
		return err
	}
	p := principal(r)
	err = host.Steer(r.Context(), p.SettingsID, id, chat.UserText(req.Text))
	if errors.Is(err, agent.ErrNotRunning) {
		// A conversation that does not exist (or is another tenant's) has no run either: tell the two apart only
		// for the tenant's own conversations.
		if _, lerr := h.conversationState(r.Context(), host, p.SettingsID, id); lerr != nil {
			return lerr
		}
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, map[string]string{"conversation_id": id})
}
