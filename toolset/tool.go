package toolset

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
)

// A Tool is one function offered to a model.
//
// Tools are made by generated code, by composition, or by hand for tools that have no Go method (MCP server
// tools, sub-agents). A Tool is immutable once offered: composition makes copies that share its [State].
type Tool struct {
	// Name is the name the model calls the tool by. It is unique within what one run offers.
	Name string
	// Description tells the model when and how to call the tool.
	Description string
	// Schema is the JSON Schema (draft 2020-12) of the tool's arguments: always an object schema.
	Schema json.RawMessage
	// ReadOnly reports that the tool changes nothing. Plan mode offers only read-only tools.
	ReadOnly bool
	// RequiresApproval reports that each call waits for approval before it runs.
	RequiresApproval bool
	// ID identifies the tool across prefixing and renaming, such as "example.com/tickets.Tickets.close_ticket".
	// Approval rules and stored settings key on it, so a surface name cannot bypass them.
	ID string
	// Invoke runs the tool with the model's arguments and returns its result as JSON. Use [Tool.Call], which also
	// recovers panics, rather than calling Invoke directly.
	Invoke func(ctx context.Context, call *Call) (json.RawMessage, error)
	// Decode, when not nil, decodes and checks the model's arguments exactly as Invoke does before it calls the
	// tool, and runs nothing. It returns the tool's input struct value (boxed, so a caller type-asserts it to the
	// input type; nil for a tool that takes no input) or the [*ArgumentError] the model reads. Generated code sets
	// it for every tool; the approval stage calls it so that invalid arguments are answered at once rather than
	// deferred for approval, and typed approval rules read the decoded value.
	Decode func(args json.RawMessage) (any, error)
	// Configure, when not nil, returns a copy of the tool whose configurable settings take the values of
	// overrides, a JSON object keyed by the settings' json names. Generated code sets it for tools with
	// configurable settings.
	Configure func(overrides json.RawMessage) (*Tool, error)
	// SettingsSchema is the JSON Schema of the overrides Configure accepts, or nil.
	SettingsSchema json.RawMessage
	// State is shared by the tool and every copy that composition makes of it.
	State *State
}

// A Call is one request of the model to run a tool.
type Call struct {
	// ID is the call's id, unique within the run.
	ID string
	// Name is the name the model used, which may be a prefixed or renamed form of the tool's own.
	Name string
	// Arguments is the raw JSON the model sent.
	Arguments json.RawMessage
	// Run describes the run the call belongs to. It may be nil outside a run.
	Run *Run
}

// Args returns the call's arguments, or nil for a nil call, so that generated invokers accept a nil call as one
// without arguments.
func (c *Call) Args() json.RawMessage {
	if c == nil {
		return nil
	}
	return c.Arguments
}

// Run describes the run a tool is offered in or called from. Per-request values, such as the current user, travel
// in the context.Context, as everywhere in Go.
type Run struct {
	// SettingsID is the tenant the run belongs to.
	SettingsID string
	// ConversationID is the conversation the run continues, or "".
	ConversationID string
	// RunID identifies the run.
	RunID string
	// Agent is the name of the agent that runs.
	Agent string
	// Mode is the run's mode, such as "plan", or "" for the default.
	Mode string
}

// State holds what a tool and its prefixed or renamed copies share: caches, rate-limit counters and the delegate
// agent of a sub-agent tool. The zero value is ready to use.
type State struct {
	// Delegate is the agent a sub-agent tool runs, if any.
	Delegate any

	values sync.Map
}

// Value returns the state stored under key.
func (s *State) Value(key any) (any, bool) { return s.values.Load(key) }

// SetValue stores v under key.
func (s *State) SetValue(key, v any) { s.values.Store(key, v) }

// LoadOrStore returns the value under key, storing v first if there is none.
func (s *State) LoadOrStore(key, v any) (actual any, loaded bool) {
	return s.values.LoadOrStore(key, v)
}

// Call runs the tool. A panic inside the tool is recovered and returned as a [*PanicError]; every error it
// returns is meant for the model to read.
func (t *Tool) Call(ctx context.Context, call *Call) (result json.RawMessage, err error) {
	if t.Invoke == nil {
		return nil, fmt.Errorf("tool %q cannot be called: it has no invoker", t.Name)
	}
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Tool: t.Name, Value: v, Stack: debug.Stack()}
		}
	}()
	return t.Invoke(ctx, call)
}

// WithOverrides returns the tool with each layer of settings overrides applied in order, later layers winning.
// Empty layers are skipped; a tool without configurable settings accepts only empty layers.
func (t *Tool) WithOverrides(layers ...json.RawMessage) (*Tool, error) {
	out := t
	for _, layer := range layers {
		if isEmptyJSON(layer) {
			continue
		}
		if out.Configure == nil {
			return nil, fmt.Errorf("tool %q has no configurable settings", t.Name)
		}
		next, err := out.Configure(layer)
		if err != nil {
			return nil, fmt.Errorf("settings of tool %q: %w", t.Name, err)
		}
		out = next
	}
	return out, nil
}

// Clone returns a shallow copy of the tool that shares its State. Tools made by hand should set State so
// that their copies share one.
func (t *Tool) Clone() *Tool {
	c := *t
	return &c
}

func isEmptyJSON(b json.RawMessage) bool {
	b = trimSpace(b)
	return len(b) == 0 || string(b) == "null" || string(b) == "{}"
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
