package mcp

import (
	"log/slog"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure how a server's tools are offered. The zero value, and a nil *Options, offer every tool under
// the name the server gives itself, with approval for every tool that is not read-only.
type Options struct {
	// Name names the server in tool IDs ("mcp:<Name>:<tool>"), in the source's name and in error messages. Empty
	// means the name the server reports when the session starts, or "mcp" if it reports none.
	Name string
	// Include, when not nil, decides which of the server's tools are offered; see [Names]. Nil offers all.
	Include func(t *sdk.Tool) bool
	// ReadOnly, when not nil, decides which tools are read-only, and so offered in plan mode. Nil trusts the
	// server's readOnlyHint annotation.
	ReadOnly func(t *sdk.Tool) bool
	// RequiresApproval, when not nil, decides which tools wait for approval before each call; it is told whether
	// the tool was found read-only. Nil asks approval for every tool that is not read-only.
	RequiresApproval func(t *sdk.Tool, readOnly bool) bool
	// Timeout bounds each tool call. A call still running when it passes is cancelled on the server and fails
	// with an error saying it timed out. Zero means no bound beyond the caller's context.
	Timeout time.Duration

	// Sampling, when not nil, lets the server ask the host's model for completions while its tools run
	// ([Connect] only). Nil refuses every sampling request.
	Sampling *Sampling

	// Logger receives what the model does not read, such as the server stopping. Nil discards it.
	Logger *slog.Logger

	// Client configures the SDK client that [Connect] makes; it is copied. Its ToolListChangedHandler, if any, is
	// still called, after the cached tool list has been dropped. [Tools] ignores it.
	Client *sdk.ClientOptions
	// Implementation is what [Connect] tells the server about the client. Nil means "typeshift".
	Implementation *sdk.Implementation
}

// Names returns an [Options.Include] that offers the tools with the given names only.
func Names(names ...string) func(t *sdk.Tool) bool {
	names = slices.Clone(names)
	return func(t *sdk.Tool) bool { return slices.Contains(names, t.Name) }
}

func (o *Options) readOnly(t *sdk.Tool) bool {
	if o.ReadOnly != nil {
		return o.ReadOnly(t)
	}
	return t.Annotations != nil && t.Annotations.ReadOnlyHint
}

func (o *Options) requiresApproval(t *sdk.Tool, readOnly bool) bool {
	if o.RequiresApproval != nil {
		return o.RequiresApproval(t, readOnly)
	}
	return !readOnly
}
