package emit_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/tools/go/packages"

	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// agentFixtures are the packages below testdata/src/agents, which TestGolden does not visit: a toolset of
// another package that the agents fixture uses, and agents the parser refuses.
var agentFixtures = []string{"agents/helpdesk", "agents/bad"}

// TestGoldenAgentPackages generates the agent fixtures' packages as TestGolden does the others.
func TestGoldenAgentPackages(t *testing.T) {
	pkgs := loadAgentFixtures(t)
	for _, name := range agentFixtures {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			p := pkgs[filepath.Base(name)]
			for _, e := range p.Errors {
				if !strings.Contains(e.Msg, "method Tools") {
					t.Fatalf("fixture does not type-check: %v", e)
				}
			}
			var ds []parse.Diagnostic
			m := parse.Package(p.Fset, p.Syntax, p.Types, p.TypesInfo, parse.ReporterFunc(func(d parse.Diagnostic) {
				ds = append(ds, d)
			}))
			slices.SortStableFunc(ds, func(a, b parse.Diagnostic) int { return int(a.Pos - b.Pos) })
			dir := filepath.Join("testdata", "src", name)
			compare(t, filepath.Join(dir, "diagnostics.golden"), diagnostics(p, ds))
			genPath := filepath.Join(dir, emit.FileName)
			hasErrors := slices.ContainsFunc(ds, func(d parse.Diagnostic) bool { return d.Severity == parse.Error })
			if hasErrors || len(m.Toolsets)+len(m.Agents) == 0 {
				if *update {
					os.Remove(genPath)
				}
				_, err := os.Stat(genPath)
				is.True(os.IsNotExist(err))
				is.Equal(len(m.Agents), 0) // no agent the parser refused reaches the model
				return
			}
			src, err := emit.File(m)
			is.NoErr(err)
			compare(t, genPath, src)
		})
	}
}

// loadAgentFixtures loads the agent fixtures' packages with their generated files blanked, as load does.
func loadAgentFixtures(t *testing.T) map[string]*packages.Package {
	t.Helper()
	overlay := map[string][]byte{}
	var patterns []string
	for _, name := range agentFixtures {
		dir, _ := filepath.Abs(filepath.Join("testdata", "src", name))
		patterns = append(patterns, "./testdata/src/"+name)
		overlay[filepath.Join(dir, emit.FileName)] = []byte("package " + filepath.Base(name) + "\n")
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports,
		Overlay: overlay,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*packages.Package{}
	for _, p := range pkgs {
		out[filepath.Base(p.PkgPath)] = p
	}
	return out
}
