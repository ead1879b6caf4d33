package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/toolset"
)

// geminiLike is a client whose provider takes Gemini's schema profile.
type geminiLike struct{ chat.Client }

func (geminiLike) CheckSchema(tool string, schema json.RawMessage) error {
	_, err := schemaprofile.Gemini.Adapt(tool, schema)
	return err
}

func TestSchemaChecksWhenTheHostIsBuilt(t *testing.T) {
	bad := &toolset.Tool{Name: "odd", Schema: json.RawMessage(`{"type":"object","properties":{"v":{"not":{"type":"string"}}}}`)}
	good := &toolset.Tool{Name: "fine", Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string","pattern":"^a"}}}`)}
	check := func(tool string, schema json.RawMessage) error {
		_, err := schemaprofile.Gemini.Adapt(tool, schema)
		return err
	}
	withCheck := func() *chat.Providers {
		var p chat.Providers
		p.Register("openai", func(string) (chat.Client, error) { return chattest.NewTestModel(nil), nil })
		p.Register("gemini", func(string) (chat.Client, error) { return chattest.NewTestModel(nil), nil })
		p.SetSchemaCheck("gemini", check)
		return &p
	}
	tests := []struct {
		name string
		cfg  agent.Config
		err  bool
	}{
		{"a registered provider refuses a tool", agent.Config{Providers: withCheck(), Tools: []toolset.Source{good, bad}}, true},
		{"the one client refuses a tool", agent.Config{Client: geminiLike{chattest.NewTestModel(nil)}, Tools: []toolset.Source{bad}}, true},
		{"every tool fits", agent.Config{Providers: withCheck(), Tools: []toolset.Source{good}}, false},
		{"no provider checks", agent.Config{Client: chattest.NewTestModel(nil), Tools: []toolset.Source{bad}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := agent.NewHost(&fallbackAgent{}, tt.cfg)
			if !tt.err {
				is.NoErr(err)
				return
			}
			var pe *schemaprofile.Error
			is.True(errors.As(err, &pe))
			is.Equal(pe.Tool, "odd")
			is.Equal(pe.Field, "v")
			is.Equal(pe.Provider, "gemini")
			is.True(strings.Contains(err.Error(), `gemini cannot take tool "odd": field v: Gemini has no not`))
		})
	}
}
