package analysis

import (
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/typeshift-go/typeshift/internal/parse"
)

// toolsFact lists the toolsets a package declares and those of every package it imports, directly or not, with
// their tools. go vet hands a package only the package facts of its direct imports, so each package relays what
// its imports told it: that is how a duplicate name is found however deep the import graph goes, and how an agent
// can check its picks against a toolset of another package without reading that package's source. A package that
// neither declares nor imports toolsets exports no fact.
type toolsFact struct {
	Toolsets []factToolset
}

// factToolset is one toolset in a [toolsFact].
type factToolset struct {
	// Pkg is the import path of the toolset's package and Type its type name.
	Pkg, Type string
	// Tools are the toolset's tools in declaration order.
	Tools []factTool
	// Failed lists the methods Declare adds whose tools have errors of their own (parse.Toolset.Failed).
	Failed []string `json:",omitempty"`
}

// factTool is one tool in a [factToolset].
type factTool struct {
	// Name is the tool's name and Method its Go method (or function) name.
	Name, Method string
}

// AFact marks toolsFact as an analysis fact.
func (*toolsFact) AFact() {}

// String lists the toolsets as pkg.Type{name, ...}: the package's own first, then the imported ones by path.
// analysistest matches it against package fact expectations.
func (f *toolsFact) String() string {
	parts := make([]string, len(f.Toolsets))
	for i, ts := range f.Toolsets {
		names := make([]string, len(ts.Tools))
		for j, t := range ts.Tools {
			names[j] = t.Name
		}
		parts[i] = ts.Pkg + "." + ts.Type + "{" + strings.Join(names, ", ") + "}"
	}
	return "tools " + strings.Join(parts, " ")
}

// newToolsFact returns the fact the package exports: its own toolsets, in declaration order, then the imported
// ones, each once, sorted by package and type.
func newToolsFact(own, imported []parse.Toolset) *toolsFact {
	f := &toolsFact{}
	for _, ts := range own {
		f.Toolsets = append(f.Toolsets, factOf(ts))
	}
	for _, ts := range imported {
		f.Toolsets = append(f.Toolsets, factOf(ts))
	}
	return f
}

// factOf converts the parser's listing of a toolset.
func factOf(ts parse.Toolset) factToolset {
	ft := factToolset{Pkg: ts.Pkg, Type: ts.Type, Failed: ts.Failed}
	for _, t := range ts.Tools {
		ft.Tools = append(ft.Tools, factTool{Name: t.Name, Method: t.Method})
	}
	return ft
}

// importedToolsets lists the toolsets that the facts of the package's imports relay, each once, sorted by
// package and type: every toolset of a package it imports, directly or not.
func importedToolsets(pass *analysis.Pass) []parse.Toolset {
	var out []parse.Toolset
	seen := map[string]bool{}
	for _, pf := range pass.AllPackageFacts() {
		imported, ok := pf.Fact.(*toolsFact)
		if !ok || pf.Package.Path() == pass.Pkg.Path() {
			continue
		}
		for _, ts := range imported.Toolsets {
			if k := ts.Pkg + "." + ts.Type; ts.Pkg != pass.Pkg.Path() && !seen[k] {
				seen[k] = true
				pt := parse.Toolset{Pkg: ts.Pkg, Type: ts.Type, Failed: ts.Failed}
				for _, t := range ts.Tools {
					pt.Tools = append(pt.Tools, parse.ToolRef{Name: t.Name, Method: t.Method})
				}
				out = append(out, pt)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pkg != out[j].Pkg {
			return out[i].Pkg < out[j].Pkg
		}
		return out[i].Type < out[j].Type
	})
	return out
}
