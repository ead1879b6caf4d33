package analysis

import (
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// The codes of the agent checks.
const (
	codeNotToolset  = "TSH023"
	codeUnknownPick = "TSH024"
)

// checkAgents is the extension point for agent declarations. The parser does not read agents yet, so pkg.Agents
// is empty and nothing is reported today. What is here is what only the analyzer can check, because it needs the
// toolsets of other packages, which it knows from their facts:
//
//   - TSH023: agent.Use names a type that declares no tools: not a toolset.
//   - TSH024: an Include or Exclude pick names a method the toolset has no tool for.
//
// Once the parser reads agents, it should also report the problems it can see in one package (a Use chain split
// over statements, a pick that is not a method expression) with the toolset codes, and give positions: the
// diagnostics below point at the agent's type name because models carry none.
func checkAgents(r *reporter, loc *locator, pkg *model.Package, fact *toolsFact) {
	if len(pkg.Agents) == 0 {
		return
	}
	for _, p := range agentProblems(pkg, knownToolsets(fact)) {
		pos, end := loc.typeName(p.agent)
		r.report(parse.Diagnostic{Pos: pos, End: end, Code: p.code, Severity: parse.Error, Message: p.message})
	}
}

// knownToolsets maps each toolset's qualified name ("example.com/x.Tickets") to its tools' method names, for the
// package's toolsets and those of every package it imports: all of them are in the package's fact.
func knownToolsets(fact *toolsFact) map[string]map[string]bool {
	known := map[string]map[string]bool{}
	for _, ts := range fact.Toolsets {
		methods := map[string]bool{}
		for _, t := range ts.Tools {
			methods[t.Method] = true
		}
		known[ts.Pkg+"."+ts.Type] = methods
	}
	return known
}

// agentProblem is one finding of agentProblems.
type agentProblem struct {
	agent, code, message string
}

// agentProblems checks each agent's toolset uses against the known toolsets.
func agentProblems(pkg *model.Package, known map[string]map[string]bool) []agentProblem {
	var out []agentProblem
	for _, a := range pkg.Agents {
		for _, u := range a.Uses {
			name := strings.TrimPrefix(u.Toolset, "*")
			methods, ok := known[name]
			if !ok {
				out = append(out, agentProblem{a.TypeName, codeNotToolset, fmt.Sprintf(
					"agent %s uses %s, which is not a toolset: it must embed toolset.Toolset and declare tools", a.TypeName, name)})
				continue
			}
			for _, picks := range [][]string{u.Include, u.Exclude} {
				for _, m := range picks {
					if !methods[m] {
						out = append(out, agentProblem{a.TypeName, codeUnknownPick, fmt.Sprintf(
							"agent %s picks %s.%s, which is not a tool of that toolset; pick one of its tools' methods", a.TypeName, name, m)})
					}
				}
			}
		}
	}
	return out
}
