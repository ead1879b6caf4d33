package mcp

import (
	"context"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// callProgress is where the progress reports of one call in flight go: the call's context, which carries the
// run's progress reporter and the call's execute_tool span.
type callProgress struct {
	ctx    context.Context
	callID string
	tool   string
}

// track gives a call a progress token of its own and routes the server's reports for it until done is called.
// It sends no token from a Server that cannot hear the reports.
func (s *Server) track(ctx context.Context, params *sdk.CallToolParams, callID, tool string) (done func()) {
	if !s.owned {
		return func() {}
	}
	token := "typeshift-" + strconv.FormatUint(s.tokens.Add(1), 10)
	params.SetProgressToken(token)
	s.progress.Store(token, &callProgress{ctx: ctx, callID: callID, tool: tool})
	s.flight.Lock()
	if s.flight.ctxs == nil {
		s.flight.ctxs = make(map[string]context.Context)
	}
	s.flight.ctxs[token] = ctx
	s.flight.calls++
	s.flight.Unlock()
	return func() {
		s.progress.Delete(token)
		s.flight.Lock()
		delete(s.flight.ctxs, token)
		if s.flight.calls--; s.flight.calls == 0 {
			s.flight.sampled = 0
		}
		s.flight.Unlock()
	}
}

// onProgress passes a notifications/progress on: to the run's stream as a progress update, and to the call's
// span as an event. Reports for a token that is not, or no longer, in flight are dropped.
func (s *Server) onProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := s.progress.Load(token)
	if !ok {
		return
	}
	cp := v.(*callProgress)
	chat.ReportProgress(cp.ctx, chat.Progress{CallID: cp.callID, Progress: p.Progress, Total: p.Total, Message: p.Message})
	if span := trace.SpanFromContext(cp.ctx); span.IsRecording() {
		attrs := []attribute.KeyValue{
			attribute.String("gen_ai.tool.name", cp.tool),
			attribute.Float64("mcp.progress", p.Progress),
		}
		if p.Total != 0 {
			attrs = append(attrs, attribute.Float64("mcp.progress.total", p.Total))
		}
		if p.Message != "" {
			attrs = append(attrs, attribute.String("mcp.progress.message", p.Message))
		}
		span.AddEvent("mcp.progress", trace.WithAttributes(attrs...))
	}
}
