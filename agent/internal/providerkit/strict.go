package providerkit

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// Restorers maps the names of tools sent in strict mode to their adapted schemas, whose Restore turns the
// model's arguments back into what the tool's own schema means.
type Restorers map[string]*schemaprofile.Adapted

// Restore returns call with its arguments restored, when its tool was sent in strict mode.
func (r Restorers) Restore(call chat.ToolCall) chat.ToolCall {
	if a := r[call.Name]; a != nil {
		call.Arguments = a.Restore(call.Arguments)
	}
	return call
}

// StrictTool returns the schema to send a tool with and whether to send it in strict mode (OpenAI's): with strict
// on, the schema brought into strict mode's subset by [schemaprofile.OpenAIStrict] where it can describe it (a
// tool it cannot, such as one taking a map, goes without, as the APIs allow per tool), and the tool's restorer
// added to *r when the adaptation changed the schema.
func StrictTool(r *Restorers, strict bool, name string, schema json.RawMessage) (json.RawMessage, bool) {
	if !strict {
		return schema, false
	}
	a, err := schemaprofile.OpenAIStrict.Adapt(name, schema)
	if err != nil {
		return schema, false
	}
	if a.Changed {
		if *r == nil {
			*r = Restorers{}
		}
		(*r)[name] = a
	}
	return a.Schema, true
}
