package agent

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/toolset"
)

// validateArguments reports, in words the model can act on, arguments the tool would refuse: JSON that is not an
// object, and, for a tool with a decoder ([toolset.Tool.Decode], which generated tools have), everything the
// decoder refuses: a missing property, a wrong type, a value out of range. The approval stage calls it before it
// defers a call, so that nobody is asked to approve a call that could not run.
func validateArguments(t *toolset.Tool, args json.RawMessage) string {
	if msg := checkArguments(args); msg != "" {
		return msg
	}
	if t.Decode == nil {
		return ""
	}
	if _, err := t.Decode(args); err != nil {
		return err.Error()
	}
	return ""
}
