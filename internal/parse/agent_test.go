package parse

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"go/types"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestBrokenAgents runs the parser on agent declarations that do not type-check, as the analyzer may see them
// while the user types: it must report or skip, never panic, and never put such an agent's broken use in the
// model.
func TestBrokenAgents(t *testing.T) {
	fset := token.NewFileSet()
	imp := runtimeImporter(t)
	for _, body := range []string{
		`agent.Use[*T]()`,
		`agent.Use(a)`,
		`agent.Use[*T, int](a)`,
		`agent.Use[int](a)`,
		`agent.Use[*Missing](a)`,
		`agent.Use[*T](a).Include(T.Missing)`,
		`agent.Use[*T](a).Exclude((*T).Search, undefined)`,
		`agent.Use[*T](a).Nope()`,
		`a.WithName()`,
		`a.WithName(1)`,
		`a.WithModel().Configurable()`,
		`a.WithTemperature(0.1).Configurable(1)`,
	} {
		src := `package p

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

type T struct{ toolset.Toolset }

func (t *T) Declare() { t.AddTool(t.Search) }

func (t *T) SourceName() string { return "T" }

func (t *T) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) { return nil, nil }

type In struct {
	Q string ` + "`json:\"q\"`" + `
}

// Search searches.
func (t *T) Search(ctx context.Context, in In) (string, error) { return in.Q, nil }

type A struct{ agent.Agent }

func (a *A) Declare() {
	` + body + `
}
`
		f, err := goparser.ParseFile(fset, "p.go", src, goparser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
			Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
			Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{},
		}
		typeErrors := 0
		conf := types.Config{Importer: imp, Error: func(error) { typeErrors++ }}
		pkg, _ := conf.Check("p", fset, []*ast.File{f}, info)
		if typeErrors == 0 {
			t.Fatalf("%s: expected the snippet not to type-check", body)
		}
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("%s: parser panicked: %v", body, v)
				}
			}()
			m := Package(fset, []*ast.File{f}, pkg, info, Discard)
			for _, a := range m.Agents {
				for _, u := range a.Uses {
					if u.Toolset != "p.T" {
						t.Errorf("%s: a use of a type that is not a toolset reached the model: %+v", body, u)
					}
					for _, m := range append(u.Include, u.Exclude...) {
						if m != "Search" {
							t.Errorf("%s: a pick of something that is not a tool reached the model: %+v", body, u)
						}
					}
				}
			}
		}()
	}
}

// TestAgentModel reads a well-formed agent: its name, its configurable options and its picks as tool names.
func TestAgentModel(t *testing.T) {
	src := `package p

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

type T struct{ toolset.Toolset }

func (t *T) Declare() {
	t.AddTool(t.Search).WithName("find").WithSettings(S{}).Configurable("limit")
	t.AddTool(t.Get)
}

type In struct {
	Q string ` + "`json:\"q\"`" + `
}

type S struct {
	Limit int ` + "`json:\"limit\"`" + `
}

// Search searches.
func (t *T) Search(ctx context.Context, in In, s S) (string, error) { return in.Q, nil }

// Get gets.
func (t *T) Get(ctx context.Context, in In) (string, error) { return in.Q, nil }

type A struct{ agent.Agent }

func (a *A) Declare() {
	a.WithName("helper")
	a.WithTopP(0.5).Configurable()
	a.WithModel("p", "m").Configurable()
	(agent.Use[*T](a)).Exclude((*T).Get)
	agent.Use[*T](a).Include((*T).Search).Exclude((*T).Get)
}
`
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, "p.go", src, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{Importer: runtimeImporter(t)}
	pkg, err := conf.Check("p", fset, []*ast.File{f, generatedStub(t, fset)}, info)
	if err != nil {
		t.Fatal(err)
	}
	var reports []string
	m := Package(fset, []*ast.File{f}, pkg, info, ReporterFunc(func(d Diagnostic) {
		if d.Severity == Error {
			reports = append(reports, d.Code+" "+d.Message)
		}
	}))
	if len(reports) > 0 {
		t.Fatalf("unexpected errors: %v", reports)
	}
	if len(m.Agents) != 1 {
		t.Fatalf("got %d agents, want 1", len(m.Agents))
	}
	a := m.Agents[0]
	check := func(what string, got, want any) {
		t.Helper()
		if gs, ws := fmtAny(got), fmtAny(want); gs != ws {
			t.Errorf("%s = %s, want %s", what, gs, ws)
		}
	}
	check("Name", a.Name, "helper")
	check("Configurable", a.Configurable, []string{"provider", "model", "top_p"})
	check("uses", len(a.Uses), 2)
	check("use 0 excludes", a.Uses[0].ExcludeNames, []string{"get"})
	check("use 0 exclude methods", a.Uses[0].Exclude, []string{"Get"})
	check("use 0 configurable", a.Uses[0].Configurable, "[{find p.T.find}]")
	check("use 1 includes", a.Uses[1].IncludeNames, []string{"find"})
	check("use 1 excludes", a.Uses[1].ExcludeNames, []string{"get"})
	check("toolset", a.Uses[1].Toolset, "p.T")
}

func fmtAny(v any) string { return fmt.Sprint(v) }

var (
	runtimeOnce  sync.Once
	runtimeTypes map[string]*types.Package
	runtimeErr   error
)

// runtimeImporter imports the packages the snippets use from their export data, loaded once: type-checking the
// runtime from source for every snippet would take most of a minute.
func runtimeImporter(t *testing.T) types.Importer {
	t.Helper()
	runtimeOnce.Do(func() {
		paths := []string{"context", AgentPath, ToolsetPath}
		pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, paths...)
		if err != nil {
			runtimeErr = err
			return
		}
		runtimeTypes = map[string]*types.Package{}
		for _, p := range pkgs {
			runtimeTypes[p.PkgPath] = p.Types
		}
	})
	if runtimeErr != nil {
		t.Fatal(runtimeErr)
	}
	return importerFunc(func(path string) (*types.Package, error) {
		if p := runtimeTypes[path]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("snippets may not import %s", path)
	})
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// TestAgentOwnTools reads an agent's own AddTool chains and refuses a name one of its uses offers.
func TestAgentOwnTools(t *testing.T) {
	src := `package p

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

type T struct{ toolset.Toolset }

func (t *T) Declare() {
	t.AddTool(t.Search).WithName("find")
	t.AddTool(t.Get)
}

type In struct {
	Q string ` + "`json:\"q\"`" + `
}

// Search searches.
func (t *T) Search(ctx context.Context, in In) (string, error) { return in.Q, nil }

// Get gets.
func (t *T) Get(ctx context.Context, in In) (string, error) { return in.Q, nil }

type A struct{ agent.Agent }

func (a *A) Declare() {
	agent.Use[*T](a).Exclude((*T).Get)
	a.AddTool(a.Escalate).RequiresApproval()
	a.AddTool(a.Get).ReadOnly()
	a.Agent.AddTool(a.Find).WithName("find")
}

// Find finds.
func (a *A) Find(ctx context.Context) string { return "" }

// Escalate escalates.
func (a *A) Escalate(ctx context.Context, in In) (string, error) { return in.Q, nil }

// Get gets, under the name the use leaves free.
func (a *A) Get(ctx context.Context) string { return "" }
`
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, "p.go", src, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{Importer: runtimeImporter(t)}
	pkg, err := conf.Check("p", fset, []*ast.File{f, generatedStub(t, fset)}, info)
	if err != nil {
		t.Fatal(err)
	}
	var reports []string
	m := Package(fset, []*ast.File{f}, pkg, info, ReporterFunc(func(d Diagnostic) {
		if d.Severity == Error {
			reports = append(reports, fmt.Sprintf("%d %s %s", fset.Position(d.Pos).Line, d.Code, d.Message))
		}
	}))
	if len(reports) != 1 || !strings.HasPrefix(reports[0], "33 TSH007 ") || !strings.Contains(reports[0], "offered by the agent's use of T") {
		t.Fatalf("reports = %q, want one TSH007 on line 33 naming T", reports)
	}
	if len(m.Agents) != 0 {
		t.Fatalf("got %d agents, want none: a refused own tool refuses the agent", len(m.Agents))
	}

	// Without the clash the agent is read, its own tools in chain order.
	src = strings.Replace(src, `a.Agent.AddTool(a.Find).WithName("find")`, `a.Agent.AddTool(a.Find).WithName("lookup")`, 1)
	f, err = goparser.ParseFile(fset, "p.go", src, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info = &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits: map[ast.Node]types.Object{}, Instances: map[*ast.Ident]types.Instance{},
	}
	pkg, err = conf.Check("p", fset, []*ast.File{f, generatedStub(t, fset)}, info)
	if err != nil {
		t.Fatal(err)
	}
	reports = nil
	m = Package(fset, []*ast.File{f}, pkg, info, ReporterFunc(func(d Diagnostic) {
		if d.Severity == Error {
			reports = append(reports, d.Code+" "+d.Message)
		}
	}))
	if len(reports) > 0 || len(m.Agents) != 1 {
		t.Fatalf("reports = %q, agents = %d; want none and 1", reports, len(m.Agents))
	}
	var got []string
	for _, tool := range m.Agents[0].Tools {
		got = append(got, fmt.Sprintf("%s:%s:%v:%v", tool.Name, tool.Method, tool.ReadOnly, tool.RequiresApproval))
	}
	if want := "[escalate:Escalate:false:true get:Get:true:false lookup:Find:false:false]"; fmtAny(got) != want {
		t.Errorf("tools = %s, want %s", fmtAny(got), want)
	}
}

// generatedStub parses the part of T's generated file that makes *T a toolset.Source. The parser reads a package
// without its generated file, so the stub is type-checked with the package but not passed to Package.
func generatedStub(t *testing.T, fset *token.FileSet) *ast.File {
	t.Helper()
	const src = `package p

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

func (t *T) SourceName() string { return "T" }

func (t *T) Tools(context.Context, *toolset.Run) ([]*toolset.Tool, error) { return nil, nil }
`
	f, err := goparser.ParseFile(fset, "typeshift_gen.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
