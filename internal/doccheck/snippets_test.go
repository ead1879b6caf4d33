package doccheck

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// snippet is one Go code block of a page.
type snippet struct {
	page string
	line int // of the opening fence
	src  string
	// fragment marks a snippet its page says does not compile.
	fragment bool
}

// known maps the package names snippets use to their import paths.
var known = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "log": "log", "os": "os", "time": "time",
	"json": "encoding/json", "strings": "strings", "http": "net/http", "slog": "log/slog", "iter": "iter",
	"signal": "os/signal", "io": "io", "slices": "slices", "sync": "sync", "flag": "flag",
	"agent":       "github.com/typeshift-go/typeshift/agent",
	"chat":        "github.com/typeshift-go/typeshift/agent/chat",
	"chattest":    "github.com/typeshift-go/typeshift/agent/chattest",
	"openai":      "github.com/typeshift-go/typeshift/agent/openai",
	"telemetry":   "github.com/typeshift-go/typeshift/agent/telemetry",
	"mcp":         "github.com/typeshift-go/typeshift/mcp",
	"toolset":     "github.com/typeshift-go/typeshift/toolset",
	"tooljson":    "github.com/typeshift-go/typeshift/toolset/tooljson",
	"storage":     "github.com/typeshift-go/typeshift/storage",
	"memory":      "github.com/typeshift-go/typeshift/storage/memory",
	"postgres":    "github.com/typeshift-go/typeshift/storage/postgres",
	"storetest":   "github.com/typeshift-go/typeshift/storage/storetest",
	"tickets":     "github.com/typeshift-go/typeshift/examples/tickets",
	"pgxpool":     "github.com/jackc/pgx/v5/pgxpool",
	"sdktrace":    "go.opentelemetry.io/otel/sdk/trace",
	"tracetest":   "go.opentelemetry.io/otel/sdk/trace/tracetest",
	"testing":     "testing",
	"filepath":    "path/filepath",
	"eval":        "github.com/typeshift-go/typeshift/agent/eval",
	"cassette":    "github.com/typeshift-go/typeshift/agent/cassette",
	"sdkmetric":   "go.opentelemetry.io/otel/sdk/metric",
	"otel":        "go.opentelemetry.io/otel",
	"mcpsdk":      "github.com/modelcontextprotocol/go-sdk/mcp",
	"option":      "github.com/openai/openai-go/v3/option",
	"openaisdk":   "github.com/openai/openai-go/v3",
	"compaction":  "github.com/typeshift-go/typeshift/agent/compaction",
	"approval":    "github.com/typeshift-go/typeshift/agent/approval",
	"handoff":     "github.com/typeshift-go/typeshift/agent/handoff",
	"background":  "github.com/typeshift-go/typeshift/agent/background",
	"openaitest":  "github.com/typeshift-go/typeshift/agent/openai/openaitest",
	"analysis":    "github.com/typeshift-go/typeshift/analysis",
	"agenthttp":   "github.com/typeshift-go/typeshift/agent/agenthttp",
	"agenta2a":    "github.com/typeshift-go/typeshift/agent/agenta2a",
	"a2a":         "github.com/a2aproject/a2a-go/a2a",
	"devui":       "github.com/typeshift-go/typeshift/agent/agenthttp/devui",
	"evalhttp":    "github.com/typeshift-go/typeshift/agent/eval/evalhttp",
	"unitchecker": "golang.org/x/tools/go/analysis/unitchecker",
	"budget":      "github.com/typeshift-go/typeshift/agent/budget",
}

// forgiven reports a type error a fragment may have: a name the page defines elsewhere, or what is unused.
func forgiven(msg string) bool {
	if name, ok := strings.CutPrefix(msg, "undefined: "); ok {
		return !strings.Contains(name, ".") // a package's member that does not exist is a mistake
	}
	for _, s := range []string{"declared and not used", "imported and not used", "and not used", "is not used",
		"missing return", "too many return values", "not enough return values", "no result values expected",
		"label ", "could not import"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func TestSnippetsCompile(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	problems, n, checked := check(t, root, pages)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d snippets, %d checked", n, checked)
}

// TestCheckCatchesAcrossSnippets runs the checker on two pages, one declaring a variable and the other using it
// as another type, as docs/providers.md's var providers chat.Providers and an agent.Config{Providers: providers}
// of another page once did; a use that fits, and a name two pages declare differently, are left alone.
func TestCheckCatchesAcrossSnippets(t *testing.T) {
	dir := t.TempDir()
	declares := filepath.Join(dir, "declares.md")
	uses := filepath.Join(dir, "uses.md")
	write := func(path, src string) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(declares, "# Declares\n\n```go\nvar providers chat.Providers\n\nvar store storage.Store\n```\n\n"+
		"```go\nvar store *memory.Store\n```\n")
	write(uses, "# Uses\n\n```go\nhost, err := agent.NewHost(nil, agent.Config{Providers: providers})\n```\n\n"+
		"```go\nhost, err := agent.NewHost(nil, agent.Config{Providers: &providers, Store: store})\n```\n")
	problems, _, _ := check(t, filepath.Join("..", ".."), []string{declares, uses})
	if len(problems) != 1 || !strings.Contains(problems[0], "uses.md:3: with the pages' declaration of providers") ||
		!strings.Contains(problems[0], "cannot use providers") {
		t.Fatalf("problems:\n%s\nwant one, at uses.md:3, about providers", strings.Join(problems, "\n"))
	}
}

// TestCheckCatches runs the checker on a page with the mistakes it exists for: a value where a pointer is
// wanted, a method that is never defined, a snippet that is not Go; and a marked fragment that is left alone.
func TestCheckCatches(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	src := "# A page\n\n```go\nvar providers chat.Providers\nhost, err := agent.NewHost(nil, agent.Config{Providers: providers})\n```\n\n" +
		"```go\ntype T struct{ toolset.Toolset }\n\nfunc (t *T) Declare() { t.AddTool(t.Missing) }\n```\n\n" +
		"```go\nthis is not Go\n```\n\n" +
		"```go\nres, err := host.Run(ctx, agent.NoSuchOption())\n```\n\n" +
		"<!-- fragment -->\n```go\nneither is this, but it says so\n```\n"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	problems, n, checked := check(t, filepath.Join("..", ".."), []string{page})
	if n != 5 || checked != 4 {
		t.Errorf("%d snippets, %d checked; want 5 and 4", n, checked)
	}
	want := []string{"cannot use providers", "t.Missing undefined", "does not parse", "undefined: agent.NoSuchOption"}
	if len(problems) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(problems, "\n"), len(want))
	}
	for _, w := range want {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, w) }) {
			t.Errorf("no problem says %q:\n%s", w, strings.Join(problems, "\n"))
		}
	}
}

// check type-checks the snippets of pages and returns the problems, the number of snippets and how many were
// checked (those not marked as fragments).
func check(t *testing.T, root string, pages []string) (problems []string, n, checked int) {
	t.Helper()
	var all []snippet
	for _, p := range pages {
		all = append(all, readSnippets(t, p)...)
	}
	type parsed struct {
		s *snippet
		f *ast.File
	}
	var files []parsed
	fset := token.NewFileSet()
	paths := map[string]bool{}
	for i := range all {
		s := &all[i]
		if s.fragment {
			continue
		}
		checked++
		f, err := parseSnippet(fset, s)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: the snippet does not parse as a file, declarations or statements (mark it <!-- fragment --> if it is not Go): %v", s.page, s.line, err))
			continue
		}
		for _, imp := range f.Imports {
			paths[strings.Trim(imp.Path.Value, `"`)] = true
		}
		files = append(files, parsed{s, f})
	}
	imp := loadImports(t, root, paths)
	// The first pass checks each snippet alone, and records the variables the pages declare by type (var
	// providers chat.Providers) and the names each fragment leaves to the rest of the pages.
	glossary := map[string]types.Type{}
	ambiguous := map[string]bool{}
	undefined := make([][]string, len(files))
	for i, p := range files {
		var found []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			msg := err.(types.Error).Msg
			if strings.HasPrefix(p.f.Name.Name, "snippet") && forgiven(msg) {
				if name, ok := strings.CutPrefix(msg, "undefined: "); ok && !slices.Contains(found, name) {
					found = append(found, name)
				}
				return
			}
			problems = append(problems, fmt.Sprintf("%s:%d: %v", p.s.page, p.s.line, err))
		}}
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
		conf.Check("snippet", fset, []*ast.File{p.f}, info)
		undefined[i] = found
		for name, typ := range declaredByType(p.f, info) {
			if prev, ok := glossary[name]; ok && !types.Identical(prev, typ) {
				ambiguous[name] = true
			}
			glossary[name] = typ
		}
	}
	// The second pass checks again each fragment that uses a variable another snippet declares, with that
	// declaration in a file beside it: Providers: providers beside var providers chat.Providers is a mistake no
	// snippet shows alone.
	for i, p := range files {
		var names []string
		for _, name := range undefined[i] {
			if _, ok := glossary[name]; ok && !ambiguous[name] {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			continue
		}
		var decls, imports strings.Builder
		aliases := map[string]string{}
		qualify := func(pkg *types.Package) string {
			if a, ok := aliases[pkg.Path()]; ok {
				return a
			}
			a := fmt.Sprintf("pkg%d", len(aliases))
			aliases[pkg.Path()] = a
			fmt.Fprintf(&imports, "import %s %q\n", a, pkg.Path())
			return a
		}
		for _, name := range names {
			fmt.Fprintf(&decls, "var %s %s\n", name, types.TypeString(glossary[name], qualify))
		}
		src := "package " + p.f.Name.Name + "\n" + imports.String() + decls.String()
		defs, err := parser.ParseFile(fset, "declarations", src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("the declarations for %s:%d do not parse: %v\n%s", p.s.page, p.s.line, err, src)
		}
		conf := types.Config{Importer: imp, Error: func(err error) {
			if forgiven(err.(types.Error).Msg) {
				return
			}
			problems = append(problems, fmt.Sprintf("%s:%d: with the pages' declaration of %s: %v",
				p.s.page, p.s.line, strings.Join(names, ", "), err))
		}}
		conf.Check("snippet", fset, []*ast.File{p.f, defs}, nil)
	}
	return problems, len(all), checked
}

// declaredByType returns the package-level variables a snippet declares with a type and no value, such as
// var providers chat.Providers: the names other snippets of the pages may use.
func declaredByType(f *ast.File, info *types.Info) map[string]types.Type {
	out := map[string]types.Type{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Type == nil || len(vs.Values) > 0 {
				continue
			}
			for _, id := range vs.Names {
				if v, ok := info.Defs[id].(*types.Var); ok && v.Type() != types.Typ[types.Invalid] {
					out[id.Name] = v.Type()
				}
			}
		}
	}
	return out
}

// readSnippets returns the Go code blocks of a page.
func readSnippets(t *testing.T, page string) []snippet {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rel, err := filepath.Rel(filepath.Join("..", ".."), page)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(page)
	}
	var out []snippet
	var cur *snippet
	var before []string // the non-blank lines before a fence, most recent last
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```go"):
			cur = &snippet{page: rel, line: n, fragment: saysFragment(before)}
		case cur != nil && strings.HasPrefix(line, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.src += line + "\n"
		case strings.TrimSpace(line) != "":
			before = append(before, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// saysFragment reports whether the text before a fence marks its snippet as one that does not compile.
func saysFragment(before []string) bool {
	if len(before) == 0 {
		return false
	}
	last := strings.TrimSpace(before[len(before)-1])
	// A file of docs/getting-started.md is built by .ci/getting-started.sh, in the module the page makes.
	return last == "<!-- fragment -->" || strings.HasSuffix(last, "(a fragment):") || strings.Contains(last, "Wrong:") ||
		strings.HasPrefix(last, "<!-- file: ")
}

// parseSnippet parses a snippet as a file, as declarations or as the statements of a function, adding the
// imports of the package names it qualifies with and does not declare. A wrapped snippet's package is named
// snippet, so that the type check forgives it what a fragment may lack.
func parseSnippet(fset *token.FileSet, s *snippet) (*ast.File, error) {
	name := fmt.Sprintf("%s:%d", s.page, s.line)
	if strings.HasPrefix(strings.TrimSpace(s.src), "package ") {
		return parser.ParseFile(fset, name, s.src, parser.SkipObjectResolution)
	}
	// An elided body, { ... }, is a body.
	s.src = strings.ReplaceAll(s.src, "{ ... }", "{ panic(0) }")
	f, err := parser.ParseFile(fset, name, "package snippet\n"+s.src, parser.SkipObjectResolution)
	if err != nil {
		// Statements, or declarations followed by statements: the first line that is not a declaration starts
		// the body of a function.
		decls, stmts := "", s.src
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 && list[0].Pos.Line >= 2 {
			lines := strings.SplitAfter(s.src, "\n")
			cut := list[0].Pos.Line - 2 // the snippet's lines start on the file's second
			decls, stmts = strings.Join(lines[:cut], ""), strings.Join(lines[cut:], "")
		}
		s.src = decls + "func _() {\n" + stmts + "\n}\n"
		var err2 error
		f, err2 = parser.ParseFile(fset, name, "package snippet\n"+s.src, parser.SkipObjectResolution)
		if err2 != nil {
			return nil, err2
		}
	}
	if len(f.Imports) > 0 {
		return f, nil // it says what it imports
	}
	declared := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Obj == nil {
			_ = id
		}
		switch x := n.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					declared[id.Name] = true
				}
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				declared[id.Name] = true
			}
		case *ast.Field:
			for _, id := range x.Names {
				declared[id.Name] = true
			}
		case *ast.FuncDecl:
			declared[x.Name.Name] = true
		case *ast.TypeSpec:
			declared[x.Name.Name] = true
		}
		return true
	})
	var need []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && !declared[id.Name] && known[id.Name] != "" && !slices.Contains(need, id.Name) {
				need = append(need, id.Name)
			}
		}
		return true
	})
	if len(need) == 0 {
		return f, nil
	}
	slices.Sort(need)
	var imports strings.Builder
	for _, n := range need {
		fmt.Fprintf(&imports, "import %s %q\n", n, known[n])
	}
	body := strings.TrimPrefix(string(mustSource(fset, f, s)), "package snippet\n")
	return parser.ParseFile(fset, name, "package snippet\n"+imports.String()+body, parser.SkipObjectResolution)
}

// mustSource returns the text a snippet was parsed from, as parseSnippet wrapped it.
func mustSource(_ *token.FileSet, _ *ast.File, s *snippet) []byte {
	return []byte("package snippet\n" + s.src)
}

// loadImports loads the packages the snippets import, from export data, and returns an importer of them.
func loadImports(t *testing.T, root string, paths map[string]bool) types.Importer {
	t.Helper()
	var list []string
	for p := range paths {
		list = append(list, p)
	}
	slices.Sort(list)
	cfg := &packages.Config{Dir: root, Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports}
	pkgs, err := packages.Load(cfg, list...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	for _, p := range pkgs {
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	}
	return importerFunc(func(path string) (*types.Package, error) {
		if p, ok := byPath[path]; ok {
			return p, nil
		}
		return nil, fmt.Errorf("could not import %s", path)
	})
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
