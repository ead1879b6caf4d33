package analysis

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/internal/model"
)

func TestAgentProblems(t *testing.T) {
	known := map[string]map[string]bool{
		"example.com/tickets.Tickets": {"SearchTickets": true, "CloseTicket": true},
	}
	tests := []struct {
		name  string
		use   *model.ToolsetUse
		codes []string
	}{
		{"known toolset and picks", &model.ToolsetUse{Toolset: "example.com/tickets.Tickets", Exclude: []string{"CloseTicket"}}, nil},
		{"unknown toolset is the parser's", &model.ToolsetUse{Toolset: "example.com/tickets.Client", Include: []string{"Get"}}, nil},
		{"stale exclude", &model.ToolsetUse{Toolset: "example.com/tickets.Tickets", Exclude: []string{"Reopen"}}, []string{"TSH024"}},
		{"stale include and exclude", &model.ToolsetUse{Toolset: "example.com/tickets.Tickets",
			Include: []string{"Search"}, Exclude: []string{"CloseTicket", "Delete"}}, []string{"TSH024", "TSH024"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			pkg := &model.Package{Path: "example.com/app", Agents: []*model.Agent{{TypeName: "Support", Uses: []*model.ToolsetUse{tt.use}}}}
			var codes []string
			for _, p := range agentProblems(pkg, known) {
				is.Equal(p.agent, "Support")
				codes = append(codes, p.code)
			}
			is.Equal(codes, tt.codes)
		})
	}
}
