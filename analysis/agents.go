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

// checkAgents reports (TSH024) an agent's pick of a method that a toolset of another package no longer declares
// as a tool. The parser reports every other TSH023 and TSH024, and drops the uses it reports from the model; but
// it sees another package only through its types, so it takes a pick for a tool when that package's generated
// code declares the tool's identity constant (model.IDConst). A generated file that is out of date still declares
// the constant of a tool that Declare no longer adds, and the agent would then offer a tool that no longer exists
// once the file is generated again. The package's fact lists the toolset's tools as its source declares them.
//
// The diagnostic points at the agent's type name, because models carry no positions.
func checkAgents(r *reporter, loc *locator, pkg *model.Package, fact *toolsFact) {
	if len(pkg.Agents) == 0 {
		return
	}
	for _, p := range agentProblems(pkg, knownToolsets(pkg, fact)) {
		pos, end := loc.typeName(p.agent)
		r.report(parse.Diagnostic{Pos: pos, End: end, Code: p.code, Severity: parse.Error, Message: p.message})
	}
}

// knownToolsets maps each toolset of the packages the package imports, by qualified name
// ("example.com/x.Tickets"), to its tools' method names. The package's own toolsets are left out: the parser
// checks picks of them against their models.
func knownToolsets(pkg *model.Package, fact *toolsFact) map[string]map[string]bool {
	known := map[string]map[string]bool{}
	for _, ts := range fact.Toolsets {
		if ts.Pkg == pkg.Path {
			continue
		}
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

// agentProblems checks each agent's picks of toolsets of other packages against those toolsets' tools. A toolset
// that is not known (its package exported no fact) is not checked.
func agentProblems(pkg *model.Package, known map[string]map[string]bool) []agentProblem {
	var out []agentProblem
	for _, a := range pkg.Agents {
		for _, u := range a.Uses {
			name := strings.TrimPrefix(u.Toolset, "*")
			methods, ok := known[name]
			if !ok {
				continue
			}
			for _, picks := range [][]string{u.Include, u.Exclude} {
				for _, m := range picks {
					if !methods[m] {
						pkgPath := name[:strings.LastIndex(name, ".")]
						out = append(out, agentProblem{a.TypeName, codeUnknownPick, fmt.Sprintf(
							"agent %s picks %s.%s, which is no longer a tool: the generated code of %s is out of date; run go generate there, then pick one of the toolset's tools",
							a.TypeName, name, m, pkgPath)})
					}
				}
			}
		}
	}
	return out
}
