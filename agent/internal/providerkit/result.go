package providerkit

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// ResultText returns what a model reads of a tool result whose API takes text: the error when the call failed;
// the text itself when the result is a JSON string (not the string JSON-quoted); otherwise the result's JSON.
func ResultText(res chat.ToolResult) string {
	if res.Error != "" {
		return res.Error
	}
	if len(res.Result) > 0 && res.Result[0] == '"' {
		var s string
		if json.Unmarshal(res.Result, &s) == nil {
			return s
		}
	}
	return string(res.Result)
}
