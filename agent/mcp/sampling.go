package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Sampling lets an MCP server ask the host's model for a completion (sampling/createMessage) while one of its
// tools runs. A [Server] made without it does not offer sampling, and the SDK refuses a server's request with
// an error saying the client does not support it.
type Sampling struct {
	// Client answers the requests; it is required. Wrap a provider's client with the host's telemetry
	// (the Client method of agent/telemetry's Instrumentation) to have each request traced and measured like the run's own calls:
	// while one tool call is in flight, the request's span is a child of that call's execute_tool span.
	Client chat.Client
	// Model is the model asked; empty means the client's default. The server's model preferences are not
	// followed: the host decides which model its money buys.
	Model string
	// MaxTokens caps each answer: a request that asks for more, or for none, gets this. Zero means 1024.
	MaxTokens int
	// MaxRequests bounds the requests answered per tool call in flight; more are refused. Zero means 5.
	MaxRequests int
	// Allow, when not nil, decides each request before the model is asked: an error refuses the request, and its
	// message is what the server reads. Use it to keep a server from reaching the model with what it likes.
	Allow func(ctx context.Context, req *sdk.CreateMessageParams) error
}

// ErrSamplingRefused is wrapped by the errors of the sampling requests the host did not answer.
var ErrSamplingRefused = errors.New("sampling request refused")

func (sp *Sampling) maxTokens() int {
	if sp.MaxTokens > 0 {
		return sp.MaxTokens
	}
	return 1024
}

func (sp *Sampling) maxRequests() int64 {
	if sp.MaxRequests > 0 {
		return int64(sp.MaxRequests)
	}
	return 5
}

// sample answers one sampling request of the server through Options.Sampling.
func (s *Server) sample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	sp := s.opts.Sampling
	p := req.Params
	if p == nil {
		return nil, fmt.Errorf("%w: no parameters", ErrSamplingRefused)
	}
	callCtx, ok := s.admitSample()
	if !ok {
		return nil, fmt.Errorf("%w: the host answers at most %d sampling requests per tool call, and only while one runs",
			ErrSamplingRefused, sp.maxRequests())
	}
	if callCtx != nil {
		ctx = trace.ContextWithSpanContext(ctx, trace.SpanContextFromContext(callCtx))
	}
	if sp.Allow != nil {
		if err := sp.Allow(ctx, p); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSamplingRefused, err)
		}
	}
	msgs := make([]chat.Message, 0, len(p.Messages))
	for i, m := range p.Messages {
		var t *sdk.TextContent
		if m != nil {
			t, _ = m.Content.(*sdk.TextContent)
		}
		if t == nil {
			return nil, fmt.Errorf("%w: message %d is not text; this host samples text only", ErrSamplingRefused, i)
		}
		role := chat.RoleUser
		if m.Role == "assistant" {
			role = chat.RoleAssistant
		}
		msgs = append(msgs, chat.Message{Role: role, Parts: []chat.Part{chat.Text{Text: t.Text}}})
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%w: no messages", ErrSamplingRefused)
	}
	limit := sp.maxTokens()
	if p.MaxTokens > 0 && int(p.MaxTokens) < limit {
		limit = int(p.MaxTokens)
	}
	opts := &chat.Options{Model: sp.Model, Instructions: p.SystemPrompt, MaxTokens: &limit, Stop: p.StopSequences}
	if p.Temperature != 0 {
		temp := p.Temperature
		opts.Temperature = &temp
	}
	resp, err := sp.Client.Respond(ctx, msgs, opts)
	if err != nil {
		return nil, fmt.Errorf("sampling for MCP server %q: %w", s.name, err)
	}
	var text strings.Builder
	for _, m := range resp.Messages {
		if m.Role == chat.RoleAssistant {
			text.WriteString(m.Text())
		}
	}
	stop := "endTurn"
	if resp.FinishReason == chat.FinishLength {
		stop = "maxTokens"
	}
	model := resp.Model
	if model == "" {
		model = sp.Model
	}
	return &sdk.CreateMessageResult{Role: "assistant", Content: &sdk.TextContent{Text: text.String()}, Model: model,
		StopReason: stop}, nil
}

// admitSample counts a sampling request against the budget of the calls in flight, and returns the context of
// the one call in flight, if there is exactly one.
func (s *Server) admitSample() (context.Context, bool) {
	s.flight.Lock()
	defer s.flight.Unlock()
	if s.flight.calls == 0 || s.flight.sampled >= s.opts.Sampling.maxRequests()*s.flight.calls {
		return nil, false
	}
	s.flight.sampled++
	if s.flight.calls == 1 {
		for _, cp := range s.flight.ctxs {
			return cp, true
		}
	}
	return nil, true
}
