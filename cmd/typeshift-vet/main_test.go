package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// repoRoot is the module root, two directories up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// buildVet builds typeshift-vet into a temporary directory.
func buildVet(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds typeshift-vet and runs go vet; skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "typeshift-vet")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// module writes a module that uses this repository's typeshift, with the given files, and returns its directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/broken\n\ngo 1.26.0\n\nrequire github.com/typeshift-go/typeshift v0.0.0\n\n" +
		"replace github.com/typeshift-go/typeshift => " + repoRoot(t) + "\n"
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs a command in dir without network or workspace, and
// returns its combined output and exit code.
func run(t *testing.T, dir string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	return "", -1
}

const broken = `package broken

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type Input struct {
	// ID names the ticket.
	ID string ` + "`json:\"id\"`" + `
}

// Tickets is declared with mistakes.
type Tickets struct{ toolset.Toolset }

func (t *Tickets) Declare() {
	t.AddTool(t.Get).WithName("GetTicket")
	t.AddTool(t.Undocumented)
	for range 2 {
		t.AddTool(t.InLoop)
	}
}

// Get reads a ticket.
func (t *Tickets) Get(ctx context.Context, in Input) error { return nil }

func (t *Tickets) Undocumented(ctx context.Context, in Input) error { return nil }

// InLoop is registered in a loop.
func (t *Tickets) InLoop(ctx context.Context, in Input) error { return nil }
`

// wantBroken are the diagnostics of the broken package, in the order go vet prints them.
var wantBroken = []string{
	`broken.go:18:28: TSH008: tool name "GetTicket" is not lower_snake_case: use "get_ticket"`,
	`broken.go:19:2: TSH009: tool undocumented has no description: write a doc comment on Undocumented or call WithDescription; the model reads it to decide when to call the tool`,
	`broken.go:21:3: TSH014: call AddTool directly in Declare, one statement per tool, not in a loop, condition or function literal: the generator reads the chains without running them`,
}

// diagnostics returns the lines of out that report a diagnostic, with the directory part of each path dropped.
func diagnostics(out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, ": TSH") {
			continue
		}
		lines = append(lines, filepath.Base(line[:strings.Index(line, ".go:")])+line[strings.Index(line, ".go:"):])
	}
	return lines
}

func TestGoVet(t *testing.T) {
	is := is.New(t)
	bin := buildVet(t)
	dir := module(t, map[string]string{"broken.go": broken})
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "./...")
	is.Equal(code, 1)                                  // go vet fails on diagnostics
	is.Equal(out, strings.Join(wantBroken, "\n")+"\n") // go vet prints exactly the diagnostics, relative to the directory
}

func TestStandalone(t *testing.T) {
	is := is.New(t)
	bin := buildVet(t)
	dir := module(t, map[string]string{"broken.go": broken})
	out, code := run(t, dir, bin, "./...")
	is.True(code != 0) // diagnostics make the standalone mode fail too
	is.Equal(diagnostics(out), wantBroken)

	// -fix applies the suggested fix of TSH008 to the file.
	_, _ = run(t, dir, bin, "-fix", "./...")
	fixed, err := os.ReadFile(filepath.Join(dir, "broken.go"))
	is.NoErr(err)
	is.True(bytes.Contains(fixed, []byte(`WithName("get_ticket")`)))
}

// TestGoVetSkipFlag passes -skip through go vet to the analyzer.
func TestGoVetSkipFlag(t *testing.T) {
	is := is.New(t)
	bin := buildVet(t)
	dir := module(t, map[string]string{"broken.go": broken})
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-skip=TSH009,TSH014", "./...")
	is.Equal(code, 1)
	is.Equal(diagnostics(out), wantBroken[:1])
}

// TestExamples runs typeshift-vet through go vet over the repository's examples, which must be clean. CI runs the
// same command.
func TestExamples(t *testing.T) {
	is := is.New(t)
	root := repoRoot(t)
	examples := filepath.Join(root, "examples")
	if !declaresToolsets(t, examples) {
		t.Skip("examples/ declares no toolsets yet: nothing for typeshift-vet to check")
	}
	bin := buildVet(t)
	out, code := run(t, root, "go", "vet", "-vettool="+bin, "./examples/...")
	is.Equal(out, "")
	is.Equal(code, 0)
}

// declaresToolsets reports whether any Go file under dir embeds toolset.Toolset.
func declaresToolsets(t *testing.T, dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || found || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte("toolset.Toolset\n")) {
			found = true
		}
		return nil
	})
	return found
}

// TestGoTool checks the go tool form: a tool directive in the user's go.mod, then go vet with the path that
// go tool -n prints.
func TestGoTool(t *testing.T) {
	is := is.New(t)
	if testing.Short() {
		t.Skip("builds typeshift-vet and runs go vet; skipped in -short mode")
	}
	sum, err := os.ReadFile(filepath.Join(repoRoot(t), "go.sum"))
	is.NoErr(err)
	dir := module(t, map[string]string{"broken.go": broken, "go.sum": string(sum)})
	_, code := run(t, dir, "go", "get", "-tool", "github.com/typeshift-go/typeshift/cmd/typeshift-vet")
	is.Equal(code, 0) // go get -tool
	path, code := run(t, dir, "go", "tool", "-n", "typeshift-vet")
	is.Equal(code, 0) // go tool -n
	out, code := run(t, dir, "go", "vet", "-vettool="+strings.TrimSpace(path), "./...")
	is.Equal(code, 1)
	is.Equal(out, strings.Join(wantBroken, "\n")+"\n")
}

// TestGoVetFacts checks that tool names cross packages through go vet's fact files, which carry only the facts of
// direct imports: app imports base only through mid, which declares no toolsets, and reuses one of base's names.
func TestGoVetFacts(t *testing.T) {
	is := is.New(t)
	bin := buildVet(t)
	const header = "import (\n\t\"context\"\n\n\t\"github.com/typeshift-go/typeshift/toolset\"\n)\n\n" +
		"type Input struct {\n\t// ID names the ticket.\n\tID string `json:\"id\"`\n}\n\n"
	dir := module(t, map[string]string{
		"base/base.go": "package base\n\n" + header +
			"// Tickets reads tickets.\ntype Tickets struct{ toolset.Toolset }\n\n" +
			"func (t *Tickets) Declare() { t.AddTool(t.Search) }\n\n" +
			"// Search searches tickets.\nfunc (t *Tickets) Search(ctx context.Context, in Input) error { return nil }\n",
		"mid/mid.go": "package mid\n\nimport \"example.com/broken/base\"\n\n// Live are the live tickets.\nvar Live *base.Tickets\n",
		"app/app.go": "package app\n\n" + strings.Replace(header, "\"context\"\n", "\"context\"\n\n\t\"example.com/broken/mid\"\n", 1) +
			"// Archive reads old tickets.\ntype Archive struct{ toolset.Toolset }\n\n" +
			"func (a *Archive) Declare() { a.AddTool(a.Search) }\n\n" +
			"// Search searches old tickets.\nfunc (a *Archive) Search(ctx context.Context, in Input) error { return nil }\n\n" +
			"var _ = mid.Live\n",
	})
	out, code := run(t, dir, "go", "vet", "-vettool="+bin, "-generated=false", "./...")
	is.Equal(code, 1)
	is.Equal(out, `app/app.go:19:41: TSH007: tool name "search" of Archive.Search is already used by Tickets.Search in example.com/broken/base: name the tool with WithName`+"\n")
}

const notes = `package notes

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

// Notes keeps notes.
type Notes struct{ toolset.Toolset }

func (n *Notes) Declare() { n.AddTool(n.AddNote) }

// AddInput is a note.
type AddInput struct {
	// Text is the note.
	Text string ` + "`json:\"text\"`" + `
}

// AddNote keeps a note.
func (n *Notes) AddNote(ctx context.Context, in AddInput) (string, error) { return in.Text, nil }
`

// TestFixStale checks that -fix brings a missing or stale generated file up to date, through go vet and on its
// own: drivers apply no fix to a generated file and, under -fix, print no diagnostic and exit 0, which would leave
// the file stale without a word.
func TestFixStale(t *testing.T) {
	bin := buildVet(t)
	for _, tc := range []struct {
		name string
		vet  func(dir string, args ...string) (string, int)
	}{
		{"go vet", func(dir string, args ...string) (string, int) {
			return run(t, dir, "go", append([]string{"vet", "-vettool=" + bin}, append(args, "./...")...)...)
		}},
		{"standalone", func(dir string, args ...string) (string, int) {
			return run(t, dir, bin, append(args, "./...")...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			dir := module(t, map[string]string{"notes.go": notes})
			gen := filepath.Join(dir, "typeshift_gen.go")

			out, code := tc.vet(dir)
			is.True(code != 0) // a missing file fails
			is.True(strings.Contains(out, "typeshift_gen.go is missing: run go tool typeshift generate ./..."))

			out, code = tc.vet(dir, "-fix")
			is.Equal(code, 0)
			is.True(strings.Contains(out, "typeshift: regenerated typeshift_gen.go")) // -fix says what it wrote
			_, err := os.Stat(gen)
			is.NoErr(err) // -fix wrote the missing file

			src, err := os.ReadFile(filepath.Join(dir, "notes.go"))
			is.NoErr(err)
			is.NoErr(os.WriteFile(filepath.Join(dir, "notes.go"), bytes.Replace(src, []byte("// AddNote keeps a note."), []byte("// AddNote keeps a note for good."), 1), 0o644))
			out, code = tc.vet(dir)
			is.True(code != 0) // a stale file fails
			is.True(strings.Contains(out, "typeshift_gen.go is out of date: run go tool typeshift generate ./..."))

			out, code = tc.vet(dir, "-fix", "-diff")
			is.True(strings.Contains(out, "-fix would regenerate typeshift_gen.go")) // -diff writes nothing, and says so
			b, err := os.ReadFile(gen)
			is.NoErr(err)
			is.True(!bytes.Contains(b, []byte("a note for good")))

			out, code = tc.vet(dir, "-fix")
			is.Equal(code, 0)
			is.True(strings.Contains(out, "typeshift: regenerated typeshift_gen.go"))
			b, err = os.ReadFile(gen)
			is.NoErr(err)
			is.True(bytes.Contains(b, []byte("a note for good"))) // -fix regenerated the stale file

			out, code = tc.vet(dir)
			is.Equal(code, 0) // and it is fresh
			is.Equal(out, "")
		})
	}
}
