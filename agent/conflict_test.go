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

// alphaSet and betaSet are toolsets an agent uses by type, with tools of the given names.
type alphaSet struct{ names []string }
type betaSet struct{ names []string }

func (s *alphaSet) SourceName() string { return "Alpha" }
func (s *betaSet) SourceName() string  { return "Beta" }
func (s *alphaSet) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
	return echoes(s.names), nil
}
func (s *betaSet) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) {
	return echoes(s.names), nil
}

func echoes(names []string) []*toolset.Tool {
	out := make([]*toolset.Tool, len(names))
	for i, n := range names {
		out[i] = echo(n)
	}
	return out
}

// twoUses uses Alpha, then Beta.
type twoUses struct{ agent.Agent }

func (a *twoUses) Declare() {
	agent.Use[*alphaSet](a)
	agent.Use[*betaSet](a)
}

// combinedUse uses Alpha and a combined source, found among Config.Toolsets by its type.
type combinedUse struct{ agent.Agent }

func (a *combinedUse) Declare() {
	agent.Use[*alphaSet](a)
	agent.Use[*toolset.Combined](a)
}

func TestToolNameConflicts(t *testing.T) {
	tests := []struct {
		name  string
		agent agent.Declarer
		cfg   agent.Config
		want  []toolset.Conflict
	}{
		{
			name:  "two uses share a name",
			agent: &twoUses{},
			cfg: agent.Config{Toolsets: []toolset.Source{
				&betaSet{names: []string{"search", "close"}}, &alphaSet{names: []string{"search", "open"}},
			}},
			want: []toolset.Conflict{{Name: "search", Sources: []string{"tools[0] Alpha", "tools[1] Beta"}}},
		},
		{
			name:  "a standalone tool of Config.Tools collides with a use's tool",
			agent: &twoUses{},
			cfg: agent.Config{
				Toolsets: []toolset.Source{&alphaSet{names: []string{"search"}}, &betaSet{names: []string{"open"}}},
				Tools:    []toolset.Source{echo("open"), echo("search")},
			},
			want: []toolset.Conflict{
				{Name: "search", Sources: []string{"tools[0] Alpha", `tools[3] tool "search"`}},
				{Name: "open", Sources: []string{"tools[1] Beta", `tools[2] tool "open"`}},
			},
		},
		{
			name:  "nested combined sources in Config.Toolsets and Config.Tools",
			agent: &combinedUse{},
			cfg: agent.Config{
				Toolsets: []toolset.Source{
					&alphaSet{names: []string{"search", "x_open"}},
					toolset.Combine(&betaSet{names: []string{"search"}}, toolset.Prefix(&betaSet{names: []string{"open"}}, "x")),
				},
				Tools: []toolset.Source{toolset.Combine(echo("search"))},
			},
			want: []toolset.Conflict{
				{Name: "search", Sources: []string{"tools[0] Alpha", "tools[1] Combined(...)[0] Beta", `tools[2] Combined(...)[0] tool "search"`}},
				{Name: "x_open", Sources: []string{"tools[0] Alpha", `tools[1] Combined(...)[1] Prefixed("x", Beta)`}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(say("unreachable"))
			tt.cfg.Client = m
			_, err := agent.NewHost(tt.agent, tt.cfg) // every source here offers the same tools in every run
			var ce *toolset.ConflictError
			is.True(errors.As(err, &ce)) // the composition's typed error
			is.Equal(ce.Conflicts, tt.want)
			for _, c := range tt.want {
				for _, s := range c.Sources {
					is.True(strings.Contains(err.Error(), s)) // the message names every source
				}
			}
			is.Equal(len(m.Requests()), 0) // no model call with an ambiguous list
		})
	}
}

func TestStandaloneToolsShareAName(t *testing.T) {
	is := is.New(t)
	m := script(say("ok"))
	first := echo("search")
	h, err := agent.NewHost(&plain{}, agent.Config{Client: m, Tools: []toolset.Source{first, echo("search"), echo("open")}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(m.Requests()[0].ToolNames(), []string{"search", "open"}) // the first of several standalone copies is offered
	is.True(m.Requests()[0].Options.Tools[0] == first)
}

func TestHiddenToolIsNotAvailable(t *testing.T) {
	is := is.New(t)
	adminOnly := func(ctx context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
		return t.Name != "restart", nil
	}
	ops := toolset.Filter(toolset.List{echo("status"), echo("restart")}, adminOnly)
	m := script(call(tc("1", "restart", `{}`), tc("2", "ops_restart", `{}`), tc("3", "nope", `{}`), tc("4", "ops_status", `{}`)), say("done"))
	h, err := agent.NewHost(&plain{}, agent.Config{Client: m, Tools: []toolset.Source{ops, toolset.Prefix(ops, "ops")}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(m.Requests()[0].ToolNames(), []string{"status", "ops_status"})
	got := lastResults(m)
	is.Equal(got["1"].Error, `tool "restart" is not available in this run; do not call it again`)
	is.Equal(got["2"].Error, `tool "ops_restart" is not available in this run; do not call it again`) // named as the model would see it
	is.True(strings.HasPrefix(got["3"].Error, `unknown tool "nope"`))
	is.Equal(got["4"].Error, "")
}

func TestPicksAndConflicts(t *testing.T) {
	is := is.New(t)

	// A tool the picks leave out does not conflict with a tool of the same name elsewhere.
	m := script(say("ok"))
	own := echo("close_ticket")
	h, err := agent.NewHost(&picky{}, agent.Config{Client: m, Toolsets: []toolset.Source{newTickets()}, Tools: []toolset.Source{own}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(m.Requests()[0].ToolNames(), []string{"search_tickets", "get_ticket", "close_ticket"})
	is.True(m.Requests()[0].Options.Tools[2] == own)

	// A picked tool that does conflict is reported under the use's filter, by NewHost.
	_, err = agent.NewHost(&picky{}, agent.Config{Client: script(), Toolsets: []toolset.Source{newTickets()}, Tools: []toolset.Source{echo("get_ticket")}})
	var ce *toolset.ConflictError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Conflicts, []toolset.Conflict{{Name: "get_ticket", Sources: []string{"tools[0] Filtered(agent_test.tickets)", `tools[1] tool "get_ticket"`}}})
}

func TestSettingsForAHiddenTool(t *testing.T) {
	is := is.New(t)
	hide := func(context.Context, *toolset.Run, *toolset.Tool) (bool, error) { return false, nil }
	m := script(say("ok"))
	h, err := agent.NewHost(&configurable{}, agent.Config{Client: m,
		Tools: []toolset.Source{limited("open", 1), toolset.Filter(toolset.List{limited("restart", 1)}, hide)}})
	is.NoErr(err)
	// Settings for a tool a filter hides in this run are not a mistake: the tool exists.
	_, err = h.Run(context.Background(), agent.Text("x"), settings(`{"tools":{"restart":{"limit":2}}}`))
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"), settings(`{"tools":{"nope":{"limit":2}}}`))
	var se *agent.SettingsError
	is.True(errors.As(err, &se))
}
