package mcp

import "fmt"

// ToolError is a call the server answered with a result flagged isError: the tool ran and failed. Its message
// is the server's own text, written for the model to read and act on.
type ToolError struct {
	// Server and Tool name the server (as in [Options.Name]) and the tool, as the server knows it.
	Server, Tool string
	// Message is the text of the result's content.
	Message string
}

// Error returns the server's message, or a sentence saying the tool failed when the server sent no text.
func (e *ToolError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("tool %q failed without saying why", e.Tool)
	}
	return e.Message
}

// SchemaError reports a server tool whose input schema cannot be offered to a model: missing, not a JSON
// object, or not describing an object. Exclude the tool with [Options.Include] to offer the others.
type SchemaError struct {
	// Server names the server; Tool names the tool, or is empty for a tool listed without a name.
	Server, Tool string
	// Reason says what is wrong, such as `the input schema has type "string", not "object"`.
	Reason string
}

func (e *SchemaError) Error() string {
	if e.Tool == "" {
		return fmt.Sprintf("MCP server %q: %s", e.Server, e.Reason)
	}
	return fmt.Sprintf("MCP server %q: tool %q: %s", e.Server, e.Tool, e.Reason)
}
