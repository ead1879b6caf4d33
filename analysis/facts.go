package analysis

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// toolsFact lists a package's toolsets and their tools. The analyzer exports it for every package that declares
// toolsets, so that a package importing it can check its own tool names against them, and an agent can check
// its picks against a toolset of another package, without reading that package's source.
type toolsFact struct {
	Toolsets []factToolset
}

// factToolset is one toolset in a [toolsFact].
type factToolset struct {
	// Type is the toolset's type name, unqualified.
	Type string
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

// String lists the tools as toolset{name, ...}, which analysistest matches against package fact expectations.
func (f *toolsFact) String() string {
	parts := make([]string, len(f.Toolsets))
	for i, ts := range f.Toolsets {
		names := make([]string, len(ts.Tools))
		for j, t := range ts.Tools {
			names[j] = t.Name
		}
		parts[i] = ts.Type + "{" + strings.Join(names, ", ") + "}"
	}
	return "tools " + strings.Join(parts, " ")
}

func newToolsFact(pkg *model.Package) *toolsFact {
	f := &toolsFact{}
	for _, ts := range pkg.Toolsets {
		ft := factToolset{Type: ts.TypeName}
		for _, t := range ts.Tools {
			ft.Tools = append(ft.Tools, factTool{Name: t.Name, Method: t.Method})
		}
		f.Toolsets = append(f.Toolsets, ft)
	}
	return f
}

// owner says where a tool name is taken: a toolset of an imported package.
type owner struct {
	pkgPath, toolset, method string
}

// importedTools maps each tool name of the packages this one imports, directly or not, to the toolsets that
// declare it, sorted so that the first is stable.
func importedTools(pass *analysis.Pass) map[string][]owner {
	names := map[string][]owner{}
	for _, pf := range pass.AllPackageFacts() {
		f, ok := pf.Fact.(*toolsFact)
		if !ok || pf.Package == pass.Pkg || pf.Package.Path() == pass.Pkg.Path() {
			continue
		}
		for _, ts := range f.Toolsets {
			for _, t := range ts.Tools {
				names[t.Name] = append(names[t.Name], owner{pf.Package.Path(), ts.Type, t.Method})
			}
		}
	}
	for _, owners := range names {
		sort.Slice(owners, func(i, j int) bool {
			if owners[i].pkgPath != owners[j].pkgPath {
				return owners[i].pkgPath < owners[j].pkgPath
			}
			return owners[i].toolset < owners[j].toolset
		})
	}
	return names
}

// checkImportedNames reports (TSH007) each tool of the package whose name a toolset of an imported package
// already uses. Duplicates within the package are the parser's to report.
func checkImportedNames(pass *analysis.Pass, r *reporter, loc *locator, pkg *model.Package) {
	if len(pkg.Toolsets) == 0 {
		return
	}
	imported := importedTools(pass)
	if len(imported) == 0 {
		return
	}
	for _, ts := range pkg.Toolsets {
		for _, t := range ts.Tools {
			owners := imported[t.Name]
			if len(owners) == 0 {
				continue
			}
			o := owners[0]
			pos, end := loc.toolName(ts.TypeName, t.Method)
			tool := ts.TypeName + "." + t.Method
			if t.Func {
				tool = "function " + t.Method + " of " + ts.TypeName
			}
			r.report(parse.Diagnostic{
				Pos: pos, End: end, Code: codeDuplicate, Severity: parse.Error,
				Message: fmt.Sprintf("tool name %q of %s is already used by %s.%s in %s: name the tool with WithName",
					t.Name, tool, o.toolset, o.method, o.pkgPath),
			})
		}
	}
}
