package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// escalating adds a tool of its own; known says how many tools its stand-in generated code knows.
type escalating struct {
	agent.Agent
	known int
}

func (a *escalating) Declare() { a.AddTool(a.Escalate).ReadOnly() }

func (a *escalating) Escalate(context.Context) string { return "escalated" }

// TypeshiftTools stands in for the generated code.
func (a *escalating) TypeshiftTools(_ context.Context, _ *toolset.Run) ([]*toolset.Tool, error) {
	return a.Agent.DeclaredTools(a, a.known, func(chains []*toolset.ToolBuilder) ([]*toolset.Tool, error) {
		if chains[0].Func() == nil {
			return nil, errors.New("no function recorded")
		}
		return []*toolset.Tool{echo("escalate")}, nil
	})
}

// handwritten adds a tool but has no generated code to offer it.
type handwritten struct{ agent.Agent }

func (a *handwritten) Declare() { a.AddTool(a.Escalate) }

func (a *handwritten) Escalate(context.Context) string { return "" }

func TestOwnTools(t *testing.T) {
	is := is.New(t)
	a := &escalating{known: 1}
	tools, err := a.TypeshiftTools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	is.Equal(len(tools), 1)
	again, err := a.TypeshiftTools(context.Background(), &toolset.Run{})
	is.NoErr(err)
	is.Equal(again[0], tools[0]) // built once

	_, err = (&escalating{known: 2}).TypeshiftTools(context.Background(), &toolset.Run{})
	is.True(errors.Is(err, toolset.ErrStale)) // Declare adds one tool, the stand-in knows two

	_, err = agent.NewHost(&handwritten{}, agent.Config{Client: script()})
	is.True(errors.Is(err, toolset.ErrStale)) // own tools need generated code
}
