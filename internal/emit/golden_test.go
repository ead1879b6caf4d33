package emit_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/tools/go/packages"

	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/parse"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/src")

// fixtures lists the fixture packages: each directory of testdata/src.
func fixtures(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// load loads the fixtures as the generate command does: a stale generated file is blanked first so it cannot
// break type checking.
func load(t *testing.T, names []string) map[string]*packages.Package {
	t.Helper()
	overlay := map[string][]byte{}
	var patterns []string
	for _, name := range names {
		dir, _ := filepath.Abs(filepath.Join("testdata", "src", name))
		patterns = append(patterns, "./testdata/src/"+name)
		overlay[filepath.Join(dir, emit.FileName)] = []byte("package " + name + "\n")
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

// diagnostics formats what the parser reports about a fixture, one per line, in source order.
func diagnostics(p *packages.Package, ds []parse.Diagnostic) []byte {
	var b bytes.Buffer
	for _, d := range ds {
		pos := p.Fset.Position(d.Pos)
		level := ""
		if d.Severity == parse.Warning {
			level = "warning: "
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s %s%s\n", filepath.Base(pos.Filename), pos.Line, pos.Column, d.Code, level, d.Message)
		for _, f := range d.Fixes {
			for _, e := range f.Edits {
				fmt.Fprintf(&b, "\tfix: %s: replace %d:%d with %s\n", f.Message, p.Fset.Position(e.Pos).Line, p.Fset.Position(e.Pos).Column, e.NewText)
			}
		}
	}
	return b.Bytes()
}

// TestGolden generates every fixture and compares the generated file and the diagnostics with the files
// checked in next to it: typeshift_gen.go and diagnostics.golden.
func TestGolden(t *testing.T) {
	names := fixtures(t)
	pkgs := load(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			p := pkgs[name]
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

			hasErrors := slices.ContainsFunc(ds, func(d parse.Diagnostic) bool { return d.Severity == parse.Error })
			genPath := filepath.Join(dir, emit.FileName)
			if hasErrors || len(m.Toolsets) == 0 {
				if *update {
					os.Remove(genPath)
				}
				_, err := os.Stat(genPath)
				is.True(os.IsNotExist(err)) // a package with errors or without toolsets has no generated file
				return
			}
			src, err := emit.File(m)
			is.NoErr(err)
			again, err := emit.File(m)
			is.NoErr(err)
			is.Equal(string(src), string(again)) // generation is deterministic
			compare(t, genPath, src)
		})
	}
}

// compare checks got against the golden file at path, or rewrites it with -update. An empty result means no
// file.
func compare(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			os.Remove(path)
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go test ./internal/emit -update\n%s", path, diffLines(string(want), string(got)))
	}
}

// diffLines shows the first lines where want and got differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant: %s\ngot:  %s", i+1, a, b)
		}
	}
	return ""
}

// TestGeneratedCodeRuns builds the fixtures with their generated files and runs their tests, which call the
// generated tools with good and bad arguments and compare the results with encoding/json.
func TestGeneratedCodeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixtures with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	var patterns []string
	for _, name := range fixtures(t) {
		if _, err := os.Stat(filepath.Join("testdata", "src", name, emit.FileName)); err == nil {
			patterns = append(patterns, "./testdata/src/"+name+"/...")
		}
	}
	for _, args := range [][]string{append([]string{"vet"}, patterns...), append([]string{"test", "-count=1"}, patterns...)} {
		out, err := exec.Command(goCmd, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", args[0], err, out)
		}
	}
}
