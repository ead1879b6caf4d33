package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

func chainTools(inv ToolInvoker, mw []ToolMiddleware) ToolInvoker {
	for i := len(mw) - 1; i >= 0; i-- {
		inv = mw[i](inv)
	}
	return inv
}

// defaultMaxResult caps a tool result's JSON when Config.MaxResultBytes is zero.
const defaultMaxResult = 64 << 10

// timeoutError reports a tool that did not return within Config.ToolTimeout.
type timeoutError struct {
	tool  string
	after string
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("tool %q did not finish within %s and was abandoned; try a smaller request", e.tool, e.after)
}

// baseInvoke calls the tool, recovering panics, and bounds it by Config.ToolTimeout and by the run's deadline. A
// tool that ignores its context is abandoned when the bound passes (its goroutine ends when the tool returns), so
// that a stuck tool cannot hold the run past its deadline.
func (h *Host) baseInvoke(ctx context.Context, tool *toolset.Tool, call *toolset.Call) (json.RawMessage, error) {
	_, hasDeadline := ctx.Deadline()
	if h.cfg.ToolTimeout <= 0 && !hasDeadline {
		return tool.Call(ctx, call)
	}
	parent := ctx
	if h.cfg.ToolTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.cfg.ToolTimeout)
		defer cancel()
	}
	type outcome struct {
		res json.RawMessage
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := tool.Call(ctx, call)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
		if err := parent.Err(); err != nil {
			return nil, err // the run ends: its context's error says why
		}
		return nil, &timeoutError{tool: tool.Name, after: h.cfg.ToolTimeout.String()}
	}
}

// toolRunner is the tool-invocation chain of one run, which the approval stage and the tool loop share: the
// telemetry's execute_tool span, then the host's invoker (Config.ToolMiddleware, the store's mark of an approved
// call as started, Host.baseInvoke), then the result the model reads.
type toolRunner struct {
	h       *Host
	session *session         // read: the run the tools see, the standing approvals a sub-agent inherits
	usage   *usageMeter      // a sub-agent's usage is added to it
	costs   *meterState      // a sub-agent's cost is added to it, under Config.Meter
	conv    *conversationRun // where an approved call is marked as started; nil without a conversation
}

// callView is a tool call, the copy of the run it is shown and the context it runs in.
type callView struct {
	call toolset.Call
	run  toolset.Run
	ctx  toolContext
}

// toolContext is the context a tool call runs in: its parent's, through which [ReportUsage] reaches the run. It is
// allocated with the call's view, so that reaching the run costs a tool call no allocation of its own.
type toolContext struct {
	context.Context
	tools *toolRunner
}

// reportKey is the context key under which a tool's context answers with the run's toolRunner.
type reportKey struct{}

// Value answers reportKey with the run's toolRunner and asks the parent for any other key.
func (c *toolContext) Value(key any) any {
	if _, ok := key.(reportKey); ok {
		return c.tools
	}
	return c.Context.Value(key)
}

// invoke runs one call through the tool middleware and turns its outcome into the result the model reads.
func (r *toolRunner) invoke(ctx context.Context, tool *toolset.Tool, call chat.ToolCall) (chat.ToolResult, error) {
	v := &callView{run: r.session.view()} // the call, its view of the run and its context, allocated together
	v.ctx = toolContext{Context: ctx, tools: r}
	ctx = &v.ctx
	tc := &v.call
	*tc = toolset.Call{ID: call.ID, Name: call.Name, Arguments: call.Arguments, Run: &v.run}
	if len(tc.Arguments) == 0 {
		tc.Arguments = emptyObject
	}
	if tool.State != nil && tool.State.Delegate != nil {
		ctx = withCaller(ctx, r.inheritance()) // a sub-agent tool runs its delegate as this run (see AsTool)
	}
	if tool.RequiresApproval && r.h.cfg.Store != nil {
		ctx = context.WithValue(ctx, startsKey{r.h}, r.conv) // for the mark below Config.ToolMiddleware (useStore)
	}
	var span *telemetry.ToolSpan
	if tel := r.h.cfg.Telemetry; tel != nil {
		ctx, span = tel.StartTool(ctx, call, tool.Description)
	}
	res, err := r.h.invoker(ctx, tool, tc)
	span.End(res, err)
	if err != nil {
		return storableResult(chat.ToolResult{CallID: call.ID, Error: r.h.errorText(ctx, tool, err)}), err
	}
	if c, ok := toolset.ParseContent(res); ok { // the model reads its text; its images go beside it, never as base64
		text, files := r.h.contentResult(c)
		return storableResult(chat.ToolResult{CallID: call.ID, Result: r.h.capResult(tooljson.AppendString(nil, text)), Files: files}), nil
	}
	return storableResult(chat.ToolResult{CallID: call.ID, Result: r.h.capResult(res)}), nil
}

// contentResult splits a Content result into the text the model reads ([toolset.Content.Text]: a line such as
// "[image image/png, 5120 bytes]" where each image, clip or resource stood) and the images sent beside it. An
// image goes with the result when it is a PNG, JPEG, GIF or WebP image whose bytes are one (a provider refuses a
// whole request for an image whose bytes are not what its type says) and when its base64 still fits the result's
// cap, Config.MaxResultBytes, after the text and the images before it. In place of any other, the model reads a
// line saying why it is not shown.
func (h *Host) contentResult(c toolset.Content) (string, []chat.File) {
	limit := h.resultLimit()
	budget := limit - len(tooljson.AppendString(nil, c.Text()))
	var files []chat.File
	parts := c.Parts
	for i, p := range c.Parts {
		if p.Type != toolset.ContentImage {
			continue
		}
		mt, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(p.MediaType)), ";")
		mt = strings.TrimSpace(mt)
		size := base64.StdEncoding.EncodedLen(len(p.Data))
		var why string
		switch format, known := imageFormats[mt]; {
		case !known:
			why = "a model is given PNG, JPEG, GIF and WebP images only"
		case !format.is(p.Data):
			why = "its bytes are not a " + format.name + " image"
		case limit >= 0 && size > budget:
			why = "it would take the result past its limit of " + strconv.Itoa(limit) + " bytes"
		}
		if why == "" {
			budget -= size
			files = append(files, chat.File{MediaType: mt, Data: p.Data})
			continue
		}
		if &parts[0] == &c.Parts[0] {
			parts = slices.Clone(c.Parts)
		}
		parts[i] = toolset.TextPart("[image " + p.MediaType + ", " + strconv.Itoa(len(p.Data)) + " bytes, not shown: " + why + "]")
	}
	return toolset.Content{Parts: parts}.Text(), files
}

// imageFormat is an image format a tool's result may send the model: its name and how its bytes begin.
type imageFormat struct {
	name string
	is   func(b []byte) bool
}

// imageFormats are the formats every provider takes as an image, by media type.
var imageFormats = map[string]imageFormat{
	"image/png":  {"PNG", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) }},
	"image/jpeg": {"JPEG", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\xff\xd8\xff")) }},
	"image/gif": {"GIF", func(b []byte) bool {
		return bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a"))
	}},
	"image/webp": {"WebP", func(b []byte) bool {
		return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}},
}

// resultLimit is the cap on one tool result's bytes, Config.MaxResultBytes; negative means none.
func (h *Host) resultLimit() int {
	if h.cfg.MaxResultBytes == 0 {
		return defaultMaxResult
	}
	return h.cfg.MaxResultBytes
}

// inheritance is what a sub-agent's run inherits from this run: a copy of its standing approvals (approvals the
// delegate's own history adds must not reach the caller's backing array), its usage meter and Config.Meter's part.
// The mode and the tenant travel in the call's toolset.Run.
func (r *toolRunner) inheritance() *inherited {
	return &inherited{standing: slices.Clone(r.session.standing), usage: r.usage, costs: r.costs}
}

var emptyObject = json.RawMessage("{}")

// errorText is what the model reads of a tool's error.
func (h *Host) errorText(ctx context.Context, tool *toolset.Tool, err error) string {
	var (
		retry *toolset.RetryError
		arg   *tooljson.Error
		pe    *toolset.PanicError
		te    *timeoutError
	)
	switch {
	case errors.As(err, &retry), errors.As(err, &arg), errors.As(err, &te):
		return err.Error()
	case errors.As(err, &pe):
		h.logger().ErrorContext(ctx, "tool panicked", "tool", tool.Name, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
		return pe.Error()
	case h.cfg.HideToolErrors:
		h.logger().WarnContext(ctx, "tool failed", "tool", tool.Name, "error", err)
		return fmt.Sprintf("tool %q failed", tool.Name)
	}
	return err.Error()
}

// logger is Config.Logger, or slog.Default when it is nil: a panic's value and stack must reach the developer
// even when the host was built without a logger.
func (h *Host) logger() *slog.Logger {
	if h.cfg.Logger != nil {
		return h.cfg.Logger
	}
	return slog.Default()
}

// capResult cuts a result longer than the host's cap. The cut result is a JSON string holding the start of the
// original and a note, so the model knows it is incomplete.
func (h *Host) capResult(res json.RawMessage) json.RawMessage {
	limit := h.resultLimit()
	if limit < 0 || len(res) <= limit {
		return res
	}
	cut := res[:limit]
	for i := 0; i < utf8.UTFMax && len(cut) > 0; i++ { // keep whole UTF-8 sequences
		if r, size := utf8.DecodeLastRune(cut); r != utf8.RuneError || size > 1 {
			break
		}
		cut = cut[:len(cut)-1]
	}
	note := "\n[truncated: the result has " + strconv.Itoa(len(res)) + " bytes; only the first " + strconv.Itoa(len(cut)) + " are shown]"
	b := make([]byte, 0, len(cut)+len(note)+16)
	b = tooljson.AppendString(b, string(cut)+note)
	return b
}

// callerKey is the context key of what a sub-agent inherits from the run that invokes a tool with a delegate, set
// by toolRunner.invoke.
type callerKey struct{}

// inherited is what a sub-agent's run inherits from the run that called it, and the only part of that run it
// reaches: the standing approvals (a copy), the usage meter its usage is added to, and Config.Meter's part of the
// run, which its cost is added to.
type inherited struct {
	standing []standingApproval
	usage    *usageMeter
	costs    *meterState // Config.Meter's part of the run, or nil
}

// withCaller returns ctx carrying what a sub-agent inherits from the run that invokes a tool, so that a sub-agent
// tool can run its delegate with the run's standing approvals and report its usage to it.
func withCaller(ctx context.Context, in *inherited) context.Context {
	return context.WithValue(ctx, callerKey{}, in)
}
