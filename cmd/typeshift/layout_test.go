package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The layout test: modules of several packages, with agents and toolsets in different arrangements and with the
// declaration mistakes that span packages, generated from scratch in every order of their packages. Each either
// generates in one pass and then builds, vets and analyzes clean, or fails with exactly the diagnostics listed,
// which are also exactly those the analyzer reports on the same tree.

// layout is one module of the layout test.
type layout struct {
	name  string
	files map[string]string
	// want lists the diagnostics, as the generator prints them; none means the module generates.
	want []string
	// illTyped lists the packages that, without the generated file the run refused to write, do not
	// compile, so that go vet reports compile errors for them and not the analyzer's diagnostics.
	illTyped []string
}

const layoutHead = `import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
IMPORTS)

var _ = agent.Use[toolset.List]

var _ context.Context

// In is a tool's input.
type In struct {
	// Q is the query.
	Q string ` + "`json:\"q\"`" + `
}
`

// src makes a file of package name with the common imports and declarations, then body. The imports body
// starts with, in an import declaration of its own, join the common ones.
func src(name, body string) string {
	imports := ""
	if rest, ok := strings.CutPrefix(body, "\nimport "); ok {
		decl, after, _ := strings.Cut(rest, "\n\n")
		decl = strings.TrimSuffix(strings.TrimPrefix(decl, "("), ")")
		imports, body = "\n"+strings.TrimSpace(decl)+"\n", "\n"+after
	}
	return "package " + name + "\n\n" + strings.Replace(layoutHead, "IMPORTS", imports, 1) + body
}

var layouts = []layout{
	{
		name: "agent before its toolsets, and an agent of a toolset's own package",
		files: map[string]string{
			"aa/aa.go": src("aa", `
import "example.com/lay/zz"

// Clerk uses a toolset of a package that sorts after this one.
type Clerk struct{ agent.Agent }

func (a *Clerk) Declare() { agent.Use[*zz.Tickets](a).Exclude((*zz.Tickets).Close) }
`),
			"zz/zz.go": src("zz", `
// Tickets holds tools.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Find)
	t.AddTool(t.Close)
}

// Find finds.
func (t *Tickets) Find(ctx context.Context, in In) (string, error) { return in.Q, nil }

// Close closes.
func (t *Tickets) Close(ctx context.Context, in In) error { return nil }

// Desk uses its own package's toolset.
type Desk struct{ agent.Agent }

func (a *Desk) Declare() { agent.Use[*Tickets](a).Include((*Tickets).Find) }
`),
		},
	},
	{
		name: "a toolset embedded through an alias, used through an alias",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Base is the toolset base under another name.
type Base = toolset.Toolset

// Notes holds tools.
type Notes struct{ Base }

func (n *Notes) Declare() { n.AddTool(n.Note) }

// Note notes.
func (n *Notes) Note(ctx context.Context, in In) error { return nil }
`),
			"app/app.go": src("app", `
import "example.com/lay/kit"

// Jotter is the kit's toolset under another name.
type Jotter = kit.Notes

// Scribe uses the toolset through the alias.
type Scribe struct{ agent.Agent }

func (a *Scribe) Declare() { agent.Use[*Jotter](a).Include((*Jotter).Note) }
`),
		},
	},
	{
		name: "toolset.Call taken by value",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Calls holds a tool.
type Calls struct{ toolset.Toolset }

func (c *Calls) Declare() { c.AddTool(c.Echo) }

// Echo echoes.
func (c *Calls) Echo(ctx context.Context, in In, call toolset.Call) string { return in.Q }
`),
		},
		want: []string{
			"kit/kit.go:23:39: TSH004: Echo cannot be a tool: parameter call takes toolset.Call by value; take *toolset.Call, as the last parameter",
		},
	},
	{
		name: "a Declare method with a value receiver",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Copy holds a tool, declared on a copy.
type Copy struct{ toolset.Toolset }

func (c Copy) Declare() { c.AddTool(c.Echo) }

// Echo echoes.
func (c Copy) Echo(ctx context.Context, in In) string { return in.Q }
`),
		},
		want: []string{
			"kit/kit.go:23:6: TSH014: Declare of Copy has a value receiver, so what it declares is lost with the copy: use a pointer receiver, func (x *Copy) Declare()",
		},
	},
	{
		name: "a field of an imported type that cannot be a tool's input is reported in the package of the tool",
		files: map[string]string{
			"base/base.go": `package base

// Query is an input of another package.
type Query struct {
	// Events cannot be JSON.
	Events chan int ` + "`json:\"events\"`" + `
}
`,
			"app/app.go": src("app", `
import "example.com/lay/base"

// Watch holds a tool.
type Watch struct{ toolset.Toolset }

func (w *Watch) Declare() { w.AddTool(w.Follow) }

// Follow follows.
func (w *Watch) Follow(ctx context.Context, in base.Query) string { return "" }
`),
		},
		want: []string{"app/app.go:25:39: TSH004: the channel chan int at base.Query.Events has no JSON form (declared at base.go:6)"},
	},
	{
		name: "a bad jsonschema tag of an imported type is reported at the AddTool argument, with the tag's line",
		files: map[string]string{
			"base/base.go": `package base

// Query is an input of another package.
type Query struct {
	// Limit has a misspelt key.
	Limit int ` + "`json:\"limit\" jsonschema:\"minimun=1\"`" + `
}
`,
			"app/app.go": src("app", `
import "example.com/lay/base"

// Watch holds a tool.
type Watch struct{ toolset.Toolset }

func (w *Watch) Declare() { w.AddTool(w.Follow) }

// Follow follows.
func (w *Watch) Follow(ctx context.Context, in base.Query) string { return "" }
`),
		},
		want: []string{"app/app.go:25:39: TSH021: jsonschema tag of base.Query.Limit: unknown key \"minimun\"; did you mean minimum?; known keys: description, title, enum, default, example, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, minItems, maxItems, required, omitempty (declared at base.go:6)"},
	},
	{
		name: "a method registered twice",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Twice holds a tool twice.
type Twice struct{ toolset.Toolset }

func (t *Twice) Declare() {
	t.AddTool(t.Echo)
	t.AddTool(t.Echo).WithName("echo_again")
}

// Echo echoes.
func (t *Twice) Echo(ctx context.Context, in In) string { return in.Q }
`),
		},
		want: []string{
			"kit/kit.go:25:12: TSH030: Twice.Echo is already the tool \"echo\": a method is one tool, under one name; remove this AddTool, or to offer it under a second name too, add a method that calls Echo",
		},
	},
	{
		name: "generated names that run together, and a user type named like a generated one",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Ticket holds a tool.
type Ticket struct{ toolset.Toolset }

func (t *Ticket) Declare() { t.AddTool(t.SearchX) }

// SearchX searches.
func (t *Ticket) SearchX(ctx context.Context, in In) string { return in.Q }

// TicketSearch holds another.
type TicketSearch struct{ toolset.Toolset }

func (t *TicketSearch) Declare() { t.AddTool(t.X).WithName("x") }

// X is x.
func (t *TicketSearch) X(ctx context.Context, in In) string { return in.Q }
`),
			"app/app.go": src("app", `
// Support answers.
type Support struct{ agent.Agent }

func (a *Support) Declare() { a.WithSeed(1).Configurable() }

// SupportSettings is the user's own.
type SupportSettings struct{ Tone string }
`),
		},
		want: []string{
			"app/app.go:26:6: TSH030: SupportSettings is declared here and by the generated code, for the settings of agent Support: rename this declaration",
			"kit/kit.go:31:46: TSH030: the generated code would declare TicketSearchXID twice, for the tool Ticket.SearchX and for the tool TicketSearch.X: rename one of them",
		},
	},
	{
		name: "tool names clashing across packages",
		files: map[string]string{
			"base/base.go": src("base", `
// Tickets holds a tool.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() { t.AddTool(t.Search) }

// Search searches.
func (t *Tickets) Search(ctx context.Context, in In) string { return in.Q }
`),
			"app/app.go": src("app", `
import "example.com/lay/base"

// Archive holds a tool named like one of base.
type Archive struct{ toolset.Toolset }

func (t *Archive) Declare() { t.AddTool(t.Search) }

// Search searches the archive.
func (t *Archive) Search(ctx context.Context, in In) string { return in.Q }

// Both uses both.
type Both struct{ agent.Agent }

func (a *Both) Declare() {
	agent.Use[*base.Tickets](a)
	agent.Use[*Archive](a)
}
`),
		},
		illTyped: []string{"app"},
		want: []string{
			`app/app.go:25:41: TSH007: tool name "search" of Archive.Search is already used by Tickets.Search in example.com/lay/base: name the tool with WithName`,
		},
	},
	{
		name: "two sibling packages whose tools clash in one agent",
		files: map[string]string{
			"left/left.go": src("left", `
// Tickets holds a tool.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() { t.AddTool(t.Search) }

// Search searches.
func (t *Tickets) Search(ctx context.Context, in In) string { return in.Q }
`),
			"right/right.go": src("right", `
// Orders holds a tool of the same name.
type Orders struct{ toolset.Toolset }

func (t *Orders) Declare() { t.AddTool(t.Search) }

// Search searches.
func (t *Orders) Search(ctx context.Context, in In) string { return in.Q }
`),
			"app/app.go": src("app", `
import (
	"example.com/lay/left"
	"example.com/lay/right"
)

// Both uses both.
type Both struct{ agent.Agent }

func (a *Both) Declare() {
	agent.Use[*left.Tickets](a)
	agent.Use[*right.Orders](a)
}
`),
		},
		want: []string{
			`app/app.go:28:2: TSH007: the tool name "search" is offered by both left.Tickets and right.Orders: an agent's tool names must be unique; exclude the tool from one of the uses, or rename it with WithName`,
		},
	},
	{
		name: "a pick of a tool that no longer exists",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Tickets holds a tool; Reopen is a method that is no longer one.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() { t.AddTool(t.Search) }

// Search searches.
func (t *Tickets) Search(ctx context.Context, in In) string { return in.Q }

// Reopen was a tool.
func (t *Tickets) Reopen(ctx context.Context, in In) string { return in.Q }
`),
			"app/app.go": src("app", `
import "example.com/lay/kit"

// Clerk picks it.
type Clerk struct{ agent.Agent }

func (a *Clerk) Declare() { agent.Use[*kit.Tickets](a).Exclude((*kit.Tickets).Reopen) }
`),
		},
		want: []string{
			"app/app.go:25:64: TSH024: Reopen is not a tool of *kit.Tickets: pick a method that its Declare adds with AddTool",
		},
	},
	{
		name: "a pick of a tool with an error of its own is not reported again",
		files: map[string]string{
			"kit/kit.go": src("kit", `
// Tickets holds two tools of one name.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Search)
	t.AddTool(t.Find).WithName("search")
}

// Search searches.
func (t *Tickets) Search(ctx context.Context, in In) string { return in.Q }

// Find finds.
func (t *Tickets) Find(ctx context.Context, in In) string { return in.Q }
`),
			"app/app.go": src("app", `
import "example.com/lay/kit"

// Clerk picks the tool in error.
type Clerk struct{ agent.Agent }

func (a *Clerk) Declare() { agent.Use[*kit.Tickets](a).Exclude((*kit.Tickets).Find) }
`),
		},
		want: []string{
			`kit/kit.go:25:29: TSH007: the tool name "search" is already used by Tickets.Search: tool names must be unique; name one with WithName`,
		},
	},
}

// tshLine matches a diagnostic line of the generator or of go vet.
var tshLine = regexp.MustCompile(`^\S+\.go:\d+:\d+: TSH\d{3}: `)

func TestLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules")
	}
	bin := buildGenerator(t)
	vet := buildVet(t)
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			var pkgs []string
			for f := range l.files {
				pkgs = append(pkgs, "./"+filepath.Dir(f))
			}
			slices.Sort(pkgs)
			pkgs = slices.Compact(pkgs)

			// One run over the module.
			dir := newModule(t, "example.com/lay", clone(l.files))
			out, err := generate(dir, bin, "./...")
			if (err != nil) != (len(l.want) > 0) {
				t.Fatalf("generate ./...: %v\n%s", err, out)
			}
			got := diagnostics(out)
			if !slices.Equal(got, l.want) {
				t.Fatalf("generate ./... reports\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(l.want, "\n"))
			}
			if len(l.want) == 0 {
				run(t, dir, "./...", "go", "vet", "./...")
			}
			// The analyzer agrees on the tree the run left.
			analyzed := diagnostics(vetOutput(t, vet, dir))
			expected := slices.DeleteFunc(slices.Clone(l.want), func(w string) bool {
				return slices.Contains(l.illTyped, filepath.Dir(w[:strings.Index(w, ":")]))
			})
			if !slices.Equal(analyzed, expected) {
				t.Errorf("the analyzer reports\n%s\nwant\n%s", strings.Join(analyzed, "\n"), strings.Join(expected, "\n"))
			}
			want := generatedFiles(t, dir)

			// One pass over the packages, one run each, in every order.
			for _, order := range permutations(pkgs) {
				dir := newModule(t, "example.com/lay", clone(l.files))
				var got []string
				for _, p := range order {
					out, _ := generate(dir, bin, p)
					got = append(got, diagnostics(out)...)
				}
				slices.Sort(got)
				if !slices.Equal(got, l.want) {
					t.Errorf("order %v reports\n%s\nwant\n%s", order, strings.Join(got, "\n"), strings.Join(l.want, "\n"))
				}
				if files := generatedFiles(t, dir); !maps(files, want) {
					t.Errorf("order %v generates other files than one run over the module", order)
				}
			}
		})
	}
}

// generate runs the generator in the module and returns what it printed.
func generate(dir, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(context.Background(), bin, append([]string{"generate"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// vetOutput runs go vet with the analyzer in the module and returns what it printed.
func vetOutput(t *testing.T, vet, dir string) string {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), "go", "vet", "-vettool="+vet, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// diagnostics returns the TSH diagnostic lines of an output, sorted.
func diagnostics(out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if tshLine.MatchString(line) {
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return lines
}

// generatedFiles maps the module's generated files to their contents.
func generatedFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "typeshift_gen.go" {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// permutations returns every order of xs.
func permutations(xs []string) [][]string {
	if len(xs) <= 1 {
		return [][]string{slices.Clone(xs)}
	}
	var out [][]string
	for i := range xs {
		rest := append(slices.Clone(xs[:i]), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{xs[i]}, p...))
		}
	}
	return out
}

// buildVet builds the analyzer's vet tool into a temporary directory.
func buildVet(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "typeshift-vet")
	cmd := exec.Command("go", "build", "-o", bin, "../typeshift-vet")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the vet tool: %v\n%s", err, out)
	}
	return bin
}
