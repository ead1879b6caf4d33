package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/internal/emit"
)

// The bootstrap test: a module whose hand-written code uses generated names is brought back to a clean build by
// one run of the generator, whatever state its generated files are in.

// sameUse is a module whose packages use generated names: a toolset package whose own code calls Tools and
// whose agent uses its own toolset, and an agent package, generated after the toolset's package sorts, whose
// hand-written code uses the agent's Settings type.
var sameUse = map[string]string{
	"loans/loans.go": `package loans

import (
	"context"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// Loans holds the loan tools.
type Loans struct{ toolset.Toolset }

func (l *Loans) Declare() {
	l.AddTool(l.GetLoan).ReadOnly()
	l.AddTool(l.CloseLoan).RequiresApproval()
}

// LoanInput names a loan.
type LoanInput struct {
	// ID is the loan's number.
	ID string ` + "`json:\"id\"`" + `
}

// GetLoan reads a loan.
func (l *Loans) GetLoan(ctx context.Context, in LoanInput) (string, error) { return in.ID, nil }

// CloseLoan closes a loan.
func (l *Loans) CloseLoan(ctx context.Context, in LoanInput) error { return nil }

// Source uses the generated Tools method.
func Source(l *Loans) toolset.Source { return l }

// Desk answers from this package's own toolset.
type Desk struct{ agent.Agent }

func (a *Desk) Declare() {
	a.WithModel("openai", "gpt-4.1-mini").Configurable()
	agent.Use[*Loans](a)
}

// Extra is an agent that no hand-written code uses.
type Extra struct{ agent.Agent }

func (a *Extra) Declare() { agent.Use[*Loans](a).Include((*Loans).GetLoan) }

// DeskModel uses the generated settings type.
func DeskModel(s DeskSettings) string {
	if s.Model == nil {
		return ""
	}
	return *s.Model
}
`,
	"aa/clerk.go": `package aa

import (
	"example.com/boot/loans"
	"github.com/typeshift-go/typeshift/agent"
)

// Clerk answers from a toolset of a package generated after this one.
type Clerk struct{ agent.Agent }

func (a *Clerk) Declare() {
	a.WithSeed(1).Configurable()
	agent.Use[*loans.Loans](a).Exclude((*loans.Loans).CloseLoan)
}

// Seeded uses the generated settings type.
func Seeded() ClerkSettings { s := int64(2); return ClerkSettings{Seed: &s} }
`,
}

// mutation is one change a developer makes, after which one run of the generator must bring the module back.
type mutation struct {
	name string
	// edit changes the module in dir.
	edit func(t *testing.T, dir string)
}

func TestBootstrap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules")
	}
	bin := buildGenerator(t)
	t.Run("same-package-names", func(t *testing.T) {
		t.Parallel()
		dir := newModule(t, "example.com/boot", sameUse)
		bootstrap(t, bin, dir, []mutation{
			{"signature", func(t *testing.T, dir string) {
				replaceIn(t, dir, "loans/loans.go", "LoanInput", "LoanRef")
			}},
			{"agent removed", func(t *testing.T, dir string) {
				replaceIn(t, dir, "loans/loans.go", "type Extra struct{ agent.Agent }", "type Extra struct{}")
				replaceIn(t, dir, "loans/loans.go", "func (a *Extra) Declare() { agent.Use[*Loans](a).Include((*Loans).GetLoan) }", "")
			}},
			{"tool renamed", func(t *testing.T, dir string) {
				replaceIn(t, dir, "loans/loans.go", "l.AddTool(l.GetLoan).ReadOnly()", `l.AddTool(l.GetLoan).WithName("read_loan").ReadOnly()`)
			}},
			{"method renamed", func(t *testing.T, dir string) {
				replaceIn(t, dir, "loans/loans.go", "GetLoan", "FetchLoan")
			}},
		})
	})
	// A change the generated file depends on and the generator has not seen: the build fails, and its first
	// error is in the generated file and names the fix.
	for _, stale := range []struct {
		name     string
		old, new string
	}{
		{"a stale file names its fix", "CloseLoan(ctx context.Context, in LoanInput) error",
			"CloseLoan(ctx context.Context, in LoanInput, reason string) error"},
		{"an input field added names its fix", "ID string `json:\"id\"`",
			"ID string `json:\"id\"`\n\tMinAmount int `json:\"min_amount\"`"},
		{"an input tag changed names its fix", "ID string `json:\"id\"`", "ID string `json:\"loan_id\"`"},
	} {
		t.Run(stale.name, func(t *testing.T) {
			t.Parallel()
			dir := newModule(t, "example.com/boot", clone(sameUse))
			run(t, dir, "from scratch", bin, "generate", "./...")
			replaceIn(t, dir, "loans/loans.go", stale.old, stale.new)
			cmd := exec.Command("go", "build", "./...")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatal("a stale generated file compiles")
			}
			var first string
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, ".go:") {
					first = line
					break
				}
			}
			if !strings.HasPrefix(first, "loans/typeshift_gen.go:") || !strings.Contains(first, "in argument to "+emit.StaleCheck) {
				t.Errorf("the first compile error is %q, want one in the generated file that names %s\n%s", first, emit.StaleCheck, out)
			}
		})
	}
	t.Run("examples", func(t *testing.T) {
		t.Parallel()
		files := map[string]string{}
		root := filepath.Join("..", "..", "examples")
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			src, err := os.ReadFile(path)
			if err != nil || bytes.Contains(src, []byte(`"github.com/typeshift-go/typeshift/internal/`)) {
				return err // a test of the module's internals cannot move to another module
			}
			files[rel] = strings.ReplaceAll(string(src), "github.com/typeshift-go/typeshift/examples/", "example.com/examples/")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		dir := newModule(t, "example.com/examples", files)
		bootstrap(t, bin, dir, []mutation{
			{"signature", func(t *testing.T, dir string) {
				replaceIn(t, dir, "tickets/tickets.go", "SearchInput", "SearchQuery")
			}},
			{"tool renamed", func(t *testing.T, dir string) {
				replaceIn(t, dir, "tickets/tickets.go", "t.AddTool(t.GetTicket).", `t.AddTool(t.GetTicket).WithName("read_ticket").`)
			}},
			{"agent's option removed", func(t *testing.T, dir string) {
				replaceIn(t, dir, "support/support.go", "a.WithSeed(1).Configurable()", "a.WithSeed(1)")
				replaceIn(t, dir, "support/main.go", "SupportSettings{Seed: &o.seed}", "SupportSettings{}")
			}},
		})
	})
}

// bootstrap deletes the module's generated files and generates them with one run, then applies each mutation
// and generates again with one run; after every run the module must build and vet clean and be fresh.
func bootstrap(t *testing.T, bin, dir string, mutations []mutation) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "typeshift_gen.go" {
			err = os.Remove(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The first run is go generate's, through the packages' go:generate directives where they have them.
	run(t, dir, "from scratch", "go", "generate", "./...")
	regenerate(t, bin, dir, "from scratch")
	for _, m := range mutations {
		m.edit(t, dir)
		regenerate(t, bin, dir, m.name)
	}
}

// regenerate runs the generator once and checks that the module builds, vets and is fresh.
func regenerate(t *testing.T, bin, dir, step string) {
	t.Helper()
	run(t, dir, step, bin, "generate", "./...")
	run(t, dir, step, "go", "vet", "./...")
	run(t, dir, step, bin, "generate", "-check", "./...")
}

// run runs a command in dir and fails the test with its output when it fails.
func run(t *testing.T, dir, step string, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %s %s: %v\n%s", step, name, strings.Join(args, " "), err, out.String())
	}
}

// buildGenerator builds this command into a temporary directory.
func buildGenerator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "typeshift")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the generator: %v\n%s", err, out)
	}
	return bin
}

// newModule writes a module that requires this checkout of Typeshift, with this module's requirements and
// sums so that it builds offline.
func newModule(t *testing.T, path string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(checkout, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := strings.Replace(string(mod), "module github.com/typeshift-go/typeshift",
		"module "+path+"\n\nrequire github.com/typeshift-go/typeshift v0.0.0\n\nreplace github.com/typeshift-go/typeshift => "+checkout, 1)
	files["go.mod"], files["go.sum"] = gomod, string(sum)
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// replaceIn replaces every old with new in a file of the module, and fails when there is none.
func replaceIn(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(old)) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(p, bytes.ReplaceAll(src, []byte(old), []byte(new)), 0o644); err != nil {
		t.Fatal(err)
	}
}
