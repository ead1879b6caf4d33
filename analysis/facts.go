package analysis

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/typeshift-go/typeshift/internal/model"
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
// ones its imports' facts list, each once, sorted by package and type.
func newToolsFact(pass *analysis.Pass, pkg *model.Package) *toolsFact {
	f := &toolsFact{}
	for _, ts := range pkg.Toolsets {
		ft := factToolset{Pkg: pkg.Path, Type: ts.TypeName}
		for _, t := range ts.Tools {
			ft.Tools = append(ft.Tools, factTool{Name: t.Name, Method: t.Method})
		}
		f.Toolsets = append(f.Toolsets, ft)
	}
	own := len(f.Toolsets)
	seen := map[string]bool{}
	for _, pf := range pass.AllPackageFacts() {
		imported, ok := pf.Fact.(*toolsFact)
		if !ok || pf.Package.Path() == pkg.Path {
			continue
		}
		for _, ts := range imported.Toolsets {
			if k := ts.Pkg + "." + ts.Type; ts.Pkg != pkg.Path && !seen[k] {
				seen[k] = true
				f.Toolsets = append(f.Toolsets, ts)
			}
		}
	}
	rest := f.Toolsets[own:]
	sort.Slice(rest, func(i, j int) bool {
		if rest[i].Pkg != rest[j].Pkg {
			return rest[i].Pkg < rest[j].Pkg
		}
		return rest[i].Type < rest[j].Type
	})
	return f
}

// checkImportedNames reports (TSH007) each tool of the package whose name a toolset of an imported package
// already uses. Duplicates within the package are the parser's to report.
func checkImportedNames(r *reporter, loc *locator, pkg *model.Package, fact *toolsFact) {
	imported := map[string]factToolset{} // tool name -> the first imported toolset that has it
	names := map[string]string{}         // tool name -> method
	for _, ts := range fact.Toolsets {
		if ts.Pkg == pkg.Path {
			continue
		}
		for _, t := range ts.Tools {
			if _, ok := imported[t.Name]; !ok {
				imported[t.Name], names[t.Name] = ts, t.Method
			}
		}
	}
	for _, ts := range pkg.Toolsets {
		for _, t := range ts.Tools {
			o, ok := imported[t.Name]
			if !ok {
				continue
			}
			pos, end := loc.toolName(ts.TypeName, t.Method)
			tool := ts.TypeName + "." + t.Method
			if t.Func {
				tool = "function " + t.Method + " of " + ts.TypeName
			}
			r.report(parse.Diagnostic{
				Pos: pos, End: end, Code: codeDuplicate, Severity: parse.Error,
				Message: fmt.Sprintf("tool name %q of %s is already used by %s.%s in %s: name the tool with WithName",
					t.Name, tool, o.Type, names[t.Name], o.Pkg),
			})
		}
	}
}
