package telemetry

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// AgentSpan is the "invoke_agent {agent}" span of one run.
type AgentSpan struct {
	span trace.Span
	// The attributes and options live in the span's struct, which is allocated anyway: slices passed to the
	// tracer's methods would otherwise be allocated one by one.
	attrs [3]attribute.KeyValue
	end   [3]attribute.KeyValue
	opts  [2]trace.SpanStartOption
}

// StartAgent opens the span of a run of agent, in the conversation conversationID ("" for none). The chat and
// tool spans of the run nest under it through the returned context.
func (in *Instrumentation) StartAgent(ctx context.Context, agent, conversationID string) (context.Context, *AgentSpan) {
	s := &AgentSpan{}
	s.attrs[0] = OperationName.String("invoke_agent")
	n := 1
	if agent != "" {
		s.attrs[n] = AgentName.String(agent)
		n++
	}
	if conversationID != "" {
		s.attrs[n] = ConversationID.String(conversationID)
		n++
	}
	s.opts = [2]trace.SpanStartOption{kindInternal, trace.WithAttributes(s.attrs[:n]...)}
	ctx, s.span = in.tracer.Start(ctx, in.names.of("invoke_agent", agent), s.opts[:]...)
	return ctx, s
}

// End closes the span with the run's total usage (as attributes only: the chat calls already recorded the
// token metric, which must not count twice) and its error, if any.
func (s *AgentSpan) End(usage chat.Usage, err error) {
	if s == nil {
		return
	}
	s.end[0], s.end[1] = InputTokens.Int64(usage.InputTokens), OutputTokens.Int64(usage.OutputTokens)
	n := 2
	if err != nil {
		s.end[n] = ErrorType.String(ErrorTypeOf(err))
		n++
		s.span.SetStatus(codes.Error, err.Error())
	}
	s.span.SetAttributes(s.end[:n]...)
	s.span.End()
}

// ToolSpan is the "execute_tool {tool}" span of one tool call.
type ToolSpan struct {
	span    trace.Span
	capture bool
	attrs   [6]attribute.KeyValue // see AgentSpan
	end     [1]attribute.KeyValue
	opts    [2]trace.SpanStartOption
}

// StartTool opens the span of a call to a tool. description may be empty.
func (in *Instrumentation) StartTool(ctx context.Context, call chat.ToolCall, description string) (context.Context, *ToolSpan) {
	s := &ToolSpan{capture: in.capture}
	s.attrs[0], s.attrs[1], s.attrs[2] = OperationName.String("execute_tool"), ToolName.String(call.Name), ToolType.String("function")
	n := 3
	if call.ID != "" {
		s.attrs[n] = ToolCallID.String(call.ID)
		n++
	}
	if description != "" {
		s.attrs[n] = ToolDescription.String(description)
		n++
	}
	if in.capture {
		s.attrs[n] = ToolCallArguments.String(string(jsonOrString(call.Arguments)))
		n++
	}
	s.opts = [2]trace.SpanStartOption{kindInternal, trace.WithAttributes(s.attrs[:n]...)}
	ctx, s.span = in.tracer.Start(ctx, in.names.of("execute_tool", call.Name), s.opts[:]...)
	return ctx, s
}

// End closes the span with the tool's result or its error.
func (s *ToolSpan) End(result json.RawMessage, err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.end[0] = ErrorType.String(ErrorTypeOf(err))
		s.span.SetAttributes(s.end[:]...)
		s.span.SetStatus(codes.Error, err.Error())
	} else if s.capture {
		s.end[0] = ToolCallResult.String(string(jsonOrString(result)))
		s.span.SetAttributes(s.end[:]...)
	}
	s.span.End()
}
