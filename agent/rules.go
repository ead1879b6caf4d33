package agent

import (
	"context"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// A Decision answers an approval request without asking anyone.
type Decision int

// The decisions a [Rule] can make.
const (
	// Ask leaves the request to the next rule, the standing approvals, the mode, and finally the person.
	Ask Decision = iota
	// Allow approves the call.
	Allow
	// Deny rejects the call; the model reads "The tool call was denied.".
	Deny
)

// A Rule decides approval requests. It sees the tool, whose ID is its identity whatever name it is offered
// under, and the call as the model made it, with its arguments already checked to be a JSON object.
type Rule func(ctx context.Context, tool *toolset.Tool, call chat.ToolCall) Decision

// AllowTool is a rule that approves every call of the tool with this identity ([toolset.Tool.ID]).
func AllowTool(toolID string) Rule {
	return func(_ context.Context, t *toolset.Tool, _ chat.ToolCall) Decision {
		if toolID == idOfTool(t) {
			return Allow
		}
		return Ask
	}
}

// DenyTool is a rule that rejects every call of the tool with this identity.
func DenyTool(toolID string) Rule {
	return func(_ context.Context, t *toolset.Tool, _ chat.ToolCall) Decision {
		if toolID == idOfTool(t) {
			return Deny
		}
		return Ask
	}
}

// idOfTool is toolID under a name the rules' parameters do not shadow.
func idOfTool(t *toolset.Tool) string { return toolID(t) }
