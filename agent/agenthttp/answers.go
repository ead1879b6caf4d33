package agenthttp

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// This file holds what every protocol says of a typed answer (see docs/typed-answers.md): the answer type in an
// agent's description, and the answer as the native stream's answer event carries it.

// answerTypeJSON describes an agent's answer type: what its runs answer with instead of text.
type answerTypeJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

// answerTypeOf describes the host's answer type, or returns nil for an agent that answers with text.
func answerTypeOf(host *agent.Host) *answerTypeJSON {
	ans, ok := host.AnswerType()
	if !ok {
		return nil
	}
	return &answerTypeJSON{Name: ans.Name, Description: ans.Description, Schema: ans.Schema}
}

// answerEventJSON is the data of the native stream's answer event: the answer while it streams (the fields
// complete so far), then once with final set, the answer the run accepted.
type answerEventJSON struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	Final bool            `json:"final"`
}

// answerEventOf returns the event of an answer update, and false for one whose value is not JSON (which the run
// never sends: it is left out rather than sent broken).
func answerEventOf(a *chat.AnswerUpdate) (answerEventJSON, bool) {
	v := answerValue(a.Value)
	if v == nil {
		return answerEventJSON{}, false
	}
	return answerEventJSON{Type: a.Type, Value: v, Final: a.Final}, true
}
