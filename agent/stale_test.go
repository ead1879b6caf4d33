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

// staleTickets is a toolset whose "generated code" knows a number of tools, as a stale generated file would.
type staleTickets struct {
	toolset.Toolset
	known int
}

func (s *staleTickets) Declare() {
	s.AddTool(s.Search)
	s.AddTool(s.Close)
}

func (s *staleTickets) Search() {}
func (s *staleTickets) Close()  {}

func (s *staleTickets) SourceName() string { return "staleTickets" }

func (s *staleTickets) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
	return s.Declared("staleTickets", s.Declare, s.known, func(chains []*toolset.ToolBuilder) ([]*toolset.Tool, error) {
		out := make([]*toolset.Tool, len(chains))
		for i := range chains {
			out[i] = echo([]string{"search", "close"}[i])
		}
		return out, nil
	})
}

// staleAgent uses staleTickets; its declaration is the stand-in for generated code.
type staleAgent struct {
	agent.Agent
	decl agent.Declaration
}

func (a *staleAgent) Declare() { agent.Use[*staleTickets](a) }

func (a *staleAgent) TypeshiftDeclaration() agent.Declaration { return a.decl }

// Generated code that no longer matches the declarations is refused with toolset.ErrStale and a message naming
// what differs, never run half-matched.
func TestStaleGeneratedCode(t *testing.T) {
	tests := []struct {
		name  string
		decl  agent.Declaration
		known int
		want  string
	}{
		{"an agent's use the declaration does not know", agent.Declaration{Name: "a"}, 2, "makes 1 toolset uses but its declaration knows 0"},
		{"a declaration naming a use that is gone", agent.Declaration{Name: "a", Uses: []agent.UseDeclaration{{Index: 3}}}, 2, "declaration names use 3 of 1"},
		{"a toolset declaring more tools than its code knows", agent.Declaration{Name: "a", Uses: []agent.UseDeclaration{{Index: 0}}}, 1, "declares 2 tools but its generated code knows 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(say("never"))
			h, err := agent.NewHost(&staleAgent{decl: tt.decl}, agent.Config{Client: m, Toolsets: []toolset.Source{&staleTickets{known: tt.known}}})
			if err == nil {
				_, err = h.Run(context.Background(), agent.Text("x"))
			}
			is.True(errors.Is(err, toolset.ErrStale))
			is.True(strings.Contains(err.Error(), tt.want))
			is.Equal(len(m.Requests()), 0)
		})
	}
	// Matching code runs.
	is := is.New(t)
	h, err := agent.NewHost(&staleAgent{decl: agent.Declaration{Name: "a", Uses: []agent.UseDeclaration{{Index: 0}}}},
		agent.Config{Client: script(say("ok")), Toolsets: []toolset.Source{&staleTickets{known: 2}}})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(res.Text(), "ok")
}
