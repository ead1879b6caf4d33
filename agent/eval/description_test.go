package eval_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/agent/openai"
	ticketsx "github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/toolset"
)

// Plain offers only the tools its host's Config.Tools gives it.
type Plain struct{ agent.Agent }

func (a *Plain) Declare() { a.WithInstructions("You help customers with their support tickets.") }

func (a *Plain) TypeshiftDeclaration() agent.Declaration { return agent.Declaration{Name: "Plain"} }

// describe offers the tickets toolset with the descriptions given replacing the tools' own.
func describe(descriptions map[string]string) toolset.Source {
	src := &ticketsx.Tickets{Client: ticketsx.NewMemoryClient(ticketsx.SampleTickets()...)}
	return toolset.Wrap(src, func(_ context.Context, _ *toolset.Run, tools []*toolset.Tool) ([]*toolset.Tool, error) {
		for i, tool := range tools {
			if d, ok := descriptions[tool.Name]; ok {
				c := tool.Clone()
				c.Description = d
				tools[i] = c
			}
		}
		return tools, nil
	})
}

// Changing one tool's description makes a model that chooses by descriptions pick another tool; the get_ticket
// case then fails on its trajectory, and says which call it expected and which it got.
func TestChangedDescriptionFailsTheTrajectory(t *testing.T) {
	cases, err := eval.Load(os.DirFS("testdata"), "cases")
	if err != nil {
		t.Fatal(err)
	}
	var c *eval.Case
	for _, x := range cases {
		if x.Name == "get_ticket" {
			c = x
		}
	}
	srv := httptest.NewServer(&scriptedModel{byDescription: true})
	t.Cleanup(srv.Close)
	run := func(t *testing.T, descriptions map[string]string) *eval.Result {
		client := openai.New(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)).WithModel("gpt-4.1-mini")
		host, err := agent.NewHost(&Plain{}, agent.Config{Tools: []toolset.Source{describe(descriptions)}, Client: client})
		if err != nil {
			t.Fatal(err)
		}
		res, err := eval.Evaluate(t.Context(), host, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("as declared", func(t *testing.T) {
		is := is.New(t)
		res := run(t, nil)
		is.True(res.Passed) // the model reads get_ticket's description and picks it
	})
	t.Run("changed", func(t *testing.T) {
		is := is.New(t)
		res := run(t, map[string]string{
			"get_ticket":     "Reads a ticket's details.",
			"search_tickets": "Finds one ticket, or several, by words of their titles.",
		})
		is.True(!res.Passed)
		is.Equal(res.Scores[0].Name, eval.ScoreTrajectory)
		is.Equal(res.Scores[0].Reason, `expected call 1 to be get_ticket(number=4711), got search_tickets {"query":"4711"}`)
		is.True(strings.HasPrefix(res.Reason, "tool_trajectory_avg_score 0.00 < 1.00: expected call 1 to be get_ticket"))
	})
}
