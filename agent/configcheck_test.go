package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestNewHostRefusesNilSources: an entry of Config.Toolsets or Config.Tools that is nil, or a nil pointer, fails
// NewHost naming the entry by its index and type, rather than the first run with a nil dereference.
func TestNewHostRefusesNilSources(t *testing.T) {
	tests := []struct {
		name string
		cfg  agent.Config
		want string
	}{
		{"a nil pointer of a used type", agent.Config{Toolsets: []toolset.Source{(*alphaSet)(nil), &betaSet{}}},
			"Config.Toolsets[0] is a nil *agent_test.alphaSet: put an instance there, such as &agent_test.alphaSet{...}"},
		{"a nil entry", agent.Config{Toolsets: []toolset.Source{&alphaSet{}, nil, &betaSet{}}},
			"Config.Toolsets[1] is nil: remove the entry"},
		{"a nil tool", agent.Config{Toolsets: []toolset.Source{&alphaSet{}, &betaSet{}}, Tools: []toolset.Source{echo("x"), (*toolset.Tool)(nil)}},
			"Config.Tools[1] is a nil *toolset.Tool"},
		{"a nil source function", agent.Config{Toolsets: []toolset.Source{&alphaSet{}, &betaSet{}}, Tools: []toolset.Source{toolset.SourceFunc(nil)}},
			"Config.Tools[0] is a nil toolset.SourceFunc: put a function there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.cfg.Client = script(say("ok"))
			_, err := agent.NewHost(&twoUses{}, tt.cfg)
			var ne *agent.NilSourceError
			is.True(errors.As(err, &ne)) // NewHost refuses the entry
			is.True(strings.Contains(err.Error(), tt.want))
		})
	}
}

// TestNewHostReportsConflicts: a tool name offered twice through Config.Tools, by a source whose tools are the
// same in every run, fails NewHost with the conflict and a suggested fix, not the first run.
func TestNewHostReportsConflicts(t *testing.T) {
	is := is.New(t)
	alpha := &alphaSet{names: []string{"search"}}
	_, err := agent.NewHost(&twoUses{}, agent.Config{
		Client:   script(say("ok")),
		Toolsets: []toolset.Source{alpha, &betaSet{names: []string{"open"}}},
		Tools:    []toolset.Source{toolset.Prefix(toolset.List{echo("search")}, "x"), echo("search")},
	})
	var ce *toolset.ConflictError
	is.True(errors.As(err, &ce)) // the composition's typed error, through NewHost's
	is.Equal(ce.Conflicts, []toolset.Conflict{{Name: "search", Sources: []string{"tools[0] Alpha", `tools[3] tool "search"`}}})
	var cce *agent.ConfigConflictError
	is.True(errors.As(err, &cce))
	is.True(strings.Contains(err.Error(), "toolset.Prefix(src")) // the fix

	// A source whose tools are known only in a run is left to the run.
	dynamic := toolset.SourceFunc(func(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
		return []*toolset.Tool{echo("search")}, nil
	})
	h, err := agent.NewHost(&twoUses{}, agent.Config{
		Client:   script(say("ok")),
		Toolsets: []toolset.Source{alpha, &betaSet{}},
		Tools:    []toolset.Source{dynamic},
	})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"))
	is.True(errors.As(err, &ce))
}
