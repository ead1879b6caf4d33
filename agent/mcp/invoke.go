package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// invoker returns the Invoke of the server tool named name: it checks the arguments, calls the tool and maps the
// result. The tool is called by the server's name for it, whatever name the model used.
func (s *Server) invoker(name string) func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	return func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
		var args json.RawMessage
		if call != nil {
			args = call.Arguments
		}
		args, err := objectArguments(args)
		if err != nil {
			return nil, err
		}
		callCtx, cancel := ctx, context.CancelFunc(func() {})
		if s.opts.Timeout > 0 {
			callCtx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
		}
		defer cancel()

		params := &sdk.CallToolParams{Name: name, Arguments: args}
		var callID string
		if call != nil {
			callID = call.ID
		}
		done := s.track(ctx, params, callID, name)
		defer done()
		res, err := s.session.CallTool(callCtx, params)
		if err != nil {
			return nil, s.callError(ctx, callCtx, name, err)
		}
		return s.result(name, res)
	}
}

// callError explains a call that got no result: the caller's context ended, the timeout passed, or the protocol
// failed (an unknown tool, a closed session).
func (s *Server) callError(ctx, callCtx context.Context, name string, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("tool %q of MCP server %q: %w", name, s.name, context.Cause(ctx))
	case callCtx.Err() != nil:
		return fmt.Errorf("tool %q of MCP server %q timed out after %s: %w", name, s.name, s.opts.Timeout,
			context.DeadlineExceeded)
	case connectionClosed(err):
		s.stop(ctx, err)
		return fmt.Errorf("MCP server %q stopped while tool %q ran, so whether the call took effect is unknown; "+
			"its tools are no longer offered: %w", s.name, name, err)
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams {
		// Most often the tool is gone from a list that changed: list the tools again next turn.
		s.invalidate()
	}
	return fmt.Errorf("calling tool %q of MCP server %q: %w", name, s.name, err)
}

// objectArguments checks that args is one JSON object, the only shape MCP accepts, and returns it. Empty
// arguments and null mean no arguments, which a model sends for a tool without parameters.
func objectArguments(args json.RawMessage) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(string(args))
	if trimmed == "" || trimmed == "null" {
		return json.RawMessage("{}"), nil
	}
	d := tooljson.NewDecoder(args)
	if d.Object() {
		for {
			if _, ok := d.Field(); !ok {
				break
			}
			d.Skip()
		}
	}
	d.End()
	if err := d.Err(); err != nil {
		return nil, err // a *toolset.ArgumentError, whose message says what to fix
	}
	return args, nil
}

// result maps a tool's result to what the model reads. An isError result becomes a [*ToolError] carrying the
// server's text. Structured content, when present, is the result as JSON, being what the tool meant to return.
// Content of text alone is the result as one JSON string, its parts joined by newlines; content with images,
// audio or resources is a [toolset.Content], which keeps their bytes and which a run gives its model as
// [toolset.Content.Text], with the images beside it.
func (s *Server) result(name string, res *sdk.CallToolResult) (json.RawMessage, error) {
	if res == nil {
		return nil, fmt.Errorf("tool %q of MCP server %q returned no result", name, s.name)
	}
	if res.NeedsInput() {
		return nil, fmt.Errorf("tool %q of MCP server %q asked for input this client cannot give", name, s.name)
	}
	if res.IsError {
		return nil, &ToolError{Server: s.name, Tool: name, Message: contentText(res.Content)}
	}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("tool %q of MCP server %q: encoding its structured result: %w", name, s.name, err)
		}
		return raw, nil
	}
	if c, ok := contentOf(res.Content); ok {
		return c.AppendJSON(nil), nil
	}
	return tooljson.AppendString(nil, contentText(res.Content)), nil
}

// contentOf returns the content parts as a [toolset.Content], and false when they are text alone (or nothing a
// Content can hold). A part a Content cannot hold as it came — an image without bytes, a resource without a URI
// — becomes a text part describing it, as contentText does.
func contentOf(parts []sdk.Content) (toolset.Content, bool) {
	var c toolset.Content
	media := false
	for _, p := range parts {
		var part toolset.ContentPart
		switch p := p.(type) {
		case *sdk.TextContent:
			part = toolset.TextPart(p.Text)
		case *sdk.ImageContent:
			part = toolset.ImagePart(orOctets(p.MIMEType), p.Data)
		case *sdk.AudioContent:
			part = toolset.AudioPart(orOctets(p.MIMEType), p.Data)
		case *sdk.ResourceLink:
			part = toolset.LinkPart(p.URI, p.Name, p.MIMEType)
		case *sdk.EmbeddedResource:
			switch r := p.Resource; {
			case r == nil:
				continue
			case r.Blob != nil:
				part = toolset.ResourcePart(r.URI, r.MIMEType, r.Blob)
			default:
				part = toolset.ResourceTextPart(r.URI, r.MIMEType, r.Text)
			}
		default:
			continue
		}
		if part.Type != toolset.ContentText {
			if _, ok := toolset.ParseContent(toolset.Content{Parts: []toolset.ContentPart{part}}.AppendJSON(nil)); ok {
				media = true
			} else {
				part = toolset.TextPart(contentText([]sdk.Content{p}))
			}
		}
		c.Parts = append(c.Parts, part)
	}
	return c, media
}

func orOctets(mime string) string {
	if mime == "" {
		return "application/octet-stream"
	}
	return mime
}

// contentText joins the content parts as text. Parts a text result cannot hold (images, audio, binary resources)
// are described in brackets, so the model knows they were there.
func contentText(parts []sdk.Content) string {
	var sb strings.Builder
	for _, p := range parts {
		var text string
		switch p := p.(type) {
		case *sdk.TextContent:
			text = p.Text
		case *sdk.ImageContent:
			text = fmt.Sprintf("[image %s, %d bytes]", orUnknown(p.MIMEType), len(p.Data))
		case *sdk.AudioContent:
			text = fmt.Sprintf("[audio %s, %d bytes]", orUnknown(p.MIMEType), len(p.Data))
		case *sdk.ResourceLink:
			text = fmt.Sprintf("[resource %s]", p.URI)
		case *sdk.EmbeddedResource:
			switch r := p.Resource; {
			case r == nil:
				continue
			case r.Text != "" || r.Blob == nil:
				text = r.Text
			default:
				text = fmt.Sprintf("[resource %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
			}
		default:
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(text)
	}
	return sb.String()
}

func orUnknown(mime string) string {
	if mime == "" {
		return "of unknown type"
	}
	return mime
}
