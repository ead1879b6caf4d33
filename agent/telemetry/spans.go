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
}

// StartAgent opens the span of a run of agent, in the conversation conversationID ("" for none). The chat and
// tool spans of the run nest under it through the returned context.
func (in *Instrumentation) StartAgent(ctx context.Context, agent, conversationID string) (context.Context, *AgentSpan) {
	name := "invoke_agent"
	if agent != "" {
		name += " " + agent
	}
	attrs := []attribute.KeyValue{OperationName.String("invoke_agent")}
	if agent != "" {
		attrs = append(attrs, AgentName.String(agent))
	}
	if conversationID != "" {
		attrs = append(attrs, ConversationID.String(conversationID))
	}
	ctx, span := in.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &AgentSpan{span: span}
}

// End closes the span with the run's total usage (as attributes only: the chat calls already recorded the
// token metric, which must not count twice) and its error, if any.
func (s *AgentSpan) End(usage chat.Usage, err error) {
	if s == nil {
		return
	}
	s.span.SetAttributes(InputTokens.Int64(usage.InputTokens), OutputTokens.Int64(usage.OutputTokens))
	if err != nil {
		s.span.SetAttributes(ErrorType.String(ErrorTypeOf(err)))
		s.span.SetStatus(codes.Error, err.Error())
	}
	s.span.End()
}

// ToolSpan is the "execute_tool {tool}" span of one tool call.
type ToolSpan struct {
	span    trace.Span
	capture bool
}

// StartTool opens the span of a call to a tool. description may be empty.
func (in *Instrumentation) StartTool(ctx context.Context, call chat.ToolCall, description string) (context.Context, *ToolSpan) {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, OperationName.String("execute_tool"), ToolName.String(call.Name), ToolType.String("function"))
	if call.ID != "" {
		attrs = append(attrs, ToolCallID.String(call.ID))
	}
	if description != "" {
		attrs = append(attrs, ToolDescription.String(description))
	}
	if in.capture {
		attrs = append(attrs, ToolCallArguments.String(string(jsonOrString(call.Arguments))))
	}
	ctx, span := in.tracer.Start(ctx, "execute_tool "+call.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &ToolSpan{span: span, capture: in.capture}
}

// End closes the span with the tool's result or its error.
func (s *ToolSpan) End(result json.RawMessage, err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.span.SetAttributes(ErrorType.String(ErrorTypeOf(err)))
		s.span.SetStatus(codes.Error, err.Error())
	} else if s.capture {
		s.span.SetAttributes(ToolCallResult.String(string(jsonOrString(result))))
	}
	s.span.End()
}
