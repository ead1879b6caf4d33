package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// tickets stands in for a generated toolset.
type tickets struct{ tools toolset.List }

func newTickets() *tickets {
	return &tickets{tools: toolset.List{
		withID(readOnly(echo("search_tickets")), "example.com/tickets.Tickets.search_tickets"),
		withID(readOnly(echo("get_ticket")), "example.com/tickets.Tickets.get_ticket"),
		withID(needsApproval(echo("close_ticket")), "example.com/tickets.Tickets.close_ticket"),
	}}
}

func (t *tickets) Tools(ctx context.Context, r *toolset.Run) ([]*toolset.Tool, error) {
	return t.tools.Tools(ctx, r)
}

// The methods picks refer to; generated code would give their tool names.
func (t *tickets) SearchTickets() {}
func (t *tickets) CloseTicket()   {}

// notes is a second toolset type.
type notes struct{ toolset.List }

// picky uses tickets without close_ticket. Its declaration is written by hand, as the generator will write it.
type picky struct{ agent.Agent }

func (a *picky) Declare() {
	a.WithInstructions("Help with tickets.")
	agent.Use[*tickets](a).Exclude((*tickets).CloseTicket)
}

func (a *picky) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Picky", Uses: []agent.UseDeclaration{{Index: 0, Exclude: []string{"close_ticket"}}}}
}

// includer offers only search_tickets and all of notes.
type includer struct{ agent.Agent }

func (a *includer) Declare() {
	agent.Use[*tickets](a).Include((*tickets).SearchTickets)
	agent.Use[*notes](a)
}

func (a *includer) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Includer", Uses: []agent.UseDeclaration{{Index: 0, Include: []string{"search_tickets"}}, {Index: 1}}}
}

// undeclared picks but has no declaration.
type undeclared struct{ agent.Agent }

func (a *undeclared) Declare() { agent.Use[*tickets](a).Include((*tickets).SearchTickets) }

// usesAll uses tickets without picks and has no declaration: the host can run it from the chains alone.
type usesAll struct{ agent.Agent }

func (a *usesAll) Declare() { agent.Use[*tickets](a) }

// stale makes two uses but its declaration knows one.
type stale struct{ agent.Agent }

func (a *stale) Declare() { agent.Use[*tickets](a); agent.Use[*notes](a) }
func (a *stale) TypeshiftDeclaration() agent.Declaration {
	return agent.Declaration{Name: "Stale", Uses: []agent.UseDeclaration{{Index: 0}}}
}

func TestDeclarations(t *testing.T) {
	n := &notes{toolset.List{echo("add_note")}}
	tests := []struct {
		name     string
		agent    agent.Declarer
		toolsets []toolset.Source
		tools    string
		err      string
	}{
		{"exclude", &picky{}, []toolset.Source{n, newTickets()}, "search_tickets,get_ticket", ""},
		{"include", &includer{}, []toolset.Source{newTickets(), n}, "search_tickets,add_note", ""},
		{"no picks, no declaration", &usesAll{}, []toolset.Source{newTickets()}, "search_tickets,get_ticket,close_ticket", ""},
		{"picks need a declaration", &undeclared{}, []toolset.Source{newTickets()}, "", "run go tool typeshift generate"},
		{"missing instance", &picky{}, []toolset.Source{n}, "", "agent uses *agent_test.tickets but Config.Toolsets holds no instance of it"},
		{"two instances", &picky{}, []toolset.Source{newTickets(), newTickets()}, "", "holds 2 instances"},
		{"stale declaration", &stale{}, []toolset.Source{newTickets(), n}, "", "out of date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(say("ok"))
			h, err := agent.NewHost(tt.agent, agent.Config{Client: m, Toolsets: tt.toolsets})
			if tt.err != "" {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), tt.err))
				return
			}
			is.NoErr(err)
			_, err = h.Run(context.Background(), agent.Text("x"))
			is.NoErr(err)
			is.Equal(joined(m.Requests()[0].ToolNames()), tt.tools)
		})
	}
	var ue *agent.UseError
	_, err := agent.NewHost(&picky{}, agent.Config{Client: script()})
	is.New(t).True(errors.As(err, &ue))
}

func TestDeclarationName(t *testing.T) {
	is := is.New(t)
	m := script(say("ok"))
	h, err := agent.NewHost(&picky{}, agent.Config{Client: m, Toolsets: []toolset.Source{newTickets()}})
	is.NoErr(err)
	is.Equal(h.Name(), "Picky")
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(res.New[0].AuthorName, "Picky")
	is.Equal(m.Requests()[0].Options.Instructions, "Help with tickets.")
}

func TestDuplicateToolNames(t *testing.T) {
	is := is.New(t)
	_, err := agent.NewHost(&plain{}, agent.Config{Client: script(), Tools: []toolset.Source{toolset.List{echo("a"), echo("a")}}})
	var ce *toolset.ConflictError
	is.True(errors.As(err, &ce)) // the composition's error, see conflict_test.go
	is.Equal(ce.Conflicts[0].Name, "a")
	_ = json.Valid
}
