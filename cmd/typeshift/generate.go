package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// runGenerate is the generate command.
func runGenerate(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("generate", flag.ContinueOnError)
	check := flags.Bool("check", false, "write nothing; fail if a generated file is missing or out of date")
	tags := flags.String("tags", "", "comma-separated build tags to load the packages with")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: typeshift generate [-check] [-tags list] [packages]")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errReported
	}
	g := &generator{check: *check, tags: *tags, stdout: os.Stdout, stderr: os.Stderr}
	return g.run(ctx, flags.Args())
}

// generator writes the generated files of a set of packages.
type generator struct {
	// dir is the directory the patterns are relative to; "" is the current one.
	dir    string
	check  bool
	tags   string
	stdout io.Writer
	stderr io.Writer
}

// problem is one diagnostic with its resolved position.
type problem struct {
	pos token.Position
	d   parse.Diagnostic
}

// run loads, parses and writes every package the patterns name. It prints every problem and returns errReported
// when there is one.
func (g *generator) run(ctx context.Context, patterns []string) error {
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	pkgs, err := g.load(ctx, patterns)
	if err != nil {
		return err
	}
	failed := false
	var stale []string
	for _, pkg := range pkgs {
		if !g.loaded(pkg) {
			failed = true
			continue
		}
		var problems []problem
		r := parse.ReporterFunc(func(d parse.Diagnostic) {
			problems = append(problems, problem{pos: pkg.Fset.Position(d.Pos), d: d})
		})
		m := parse.Package(pkg.Fset, pkg.Syntax, pkg.Types, pkg.TypesInfo, r)
		slices.SortStableFunc(problems, func(a, b problem) int {
			return cmp.Or(cmp.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Offset, b.pos.Offset))
		})
		errs := 0
		for _, p := range problems {
			level := ""
			if p.d.Severity == parse.Warning {
				level = "warning: "
			} else {
				errs++
			}
			fmt.Fprintf(g.stderr, "%s: %s %s%s\n", g.rel(p.pos), p.d.Code, level, p.d.Message)
		}
		if errs > 0 {
			failed = true
			continue
		}
		dir := packageDir(pkg)
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, emit.FileName)
		changed, err := g.write(path, m)
		if err != nil {
			fmt.Fprintf(g.stderr, "%s: %v\n", pkg.PkgPath, err)
			failed = true
			continue
		}
		if changed {
			stale = append(stale, g.relPath(path))
		}
	}
	if g.check && len(stale) > 0 {
		for _, s := range stale {
			fmt.Fprintf(g.stderr, "%s is out of date: run go generate\n", s)
		}
		failed = true
	}
	if failed {
		return errReported
	}
	return nil
}

// write brings the generated file at path up to date with the model: it writes it, or deletes a generated
// file when the package declares no toolset and no agent. It reports whether the file changed (or, with check, would).
func (g *generator) write(path string, pkg *model.Package) (bool, error) {
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if len(pkg.Toolsets) == 0 && len(pkg.Agents) == 0 {
		if !exists || !bytes.HasPrefix(old, []byte(emit.Header)) {
			return false, nil
		}
		if g.check {
			return true, nil
		}
		return true, os.Remove(path)
	}
	src, err := emit.File(pkg)
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(old, src) {
		return false, nil
	}
	if exists && !bytes.HasPrefix(old, []byte(emit.Header)) {
		return false, fmt.Errorf("%s exists and was not written by typeshift: rename it", g.relPath(path))
	}
	if g.check {
		return true, nil
	}
	return true, os.WriteFile(path, src, 0o644)
}

// load loads the packages with their syntax and types. When a package fails to type-check and has a generated
// file, the packages are loaded again with the generated files blanked, so that a stale generated file cannot
// stand in the way of regenerating it.
func (g *generator) load(ctx context.Context, patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Context: ctx,
		Dir:     g.dir,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
	}
	if g.tags != "" {
		cfg.BuildFlags = []string{"-tags=" + g.tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load packages: %w", err)
	}
	overlay := map[string][]byte{}
	reload := false
	for _, pkg := range pkgs {
		for _, f := range pkg.GoFiles {
			if filepath.Base(f) == emit.FileName && pkg.Name != "" {
				overlay[f] = []byte("package " + pkg.Name + "\n")
				reload = reload || len(pkg.Errors) > 0
			}
		}
	}
	if reload {
		cfg.Overlay = overlay
		if pkgs, err = packages.Load(cfg, patterns...); err != nil {
			return nil, fmt.Errorf("load packages: %w", err)
		}
	}
	slices.SortFunc(pkgs, func(a, b *packages.Package) int { return cmp.Compare(a.PkgPath, b.PkgPath) })
	return pkgs, nil
}

// loaded prints a package's load errors and reports whether it can be parsed. Type errors that only the
// missing generated methods cause are expected and ignored.
func (g *generator) loaded(pkg *packages.Package) bool {
	ok := true
	for _, e := range pkg.Errors {
		if e.Kind == packages.TypeError && missingGenerated(e.Msg) {
			continue
		}
		fmt.Fprintln(g.stderr, g.relPos(e.Pos)+e.Msg)
		ok = false
	}
	return ok && pkg.Types != nil && pkg.TypesInfo != nil
}

// missingGenerated reports whether a type error comes from code that uses the generated methods before they
// exist.
func missingGenerated(msg string) bool {
	for _, s := range []string{"method Tools", "method SourceName", "Tools undefined", "SourceName undefined",
		"method TypeshiftDeclaration", "TypeshiftDeclaration undefined"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// packageDir is the directory of a package's sources.
func packageDir(pkg *packages.Package) string {
	for _, f := range pkg.GoFiles {
		return filepath.Dir(f)
	}
	return ""
}

// rel formats a position with a path relative to the working directory when that is shorter.
func (g *generator) rel(p token.Position) string {
	return fmt.Sprintf("%s:%d:%d", g.relPath(p.Filename), p.Line, p.Column)
}

// relPos shortens the path in a "file:line:col" position.
func (g *generator) relPos(pos string) string {
	if pos == "" || pos == "-" {
		return ""
	}
	file, rest, _ := strings.Cut(pos, ":")
	return g.relPath(file) + ":" + rest + ": "
}

// relPath returns path relative to the working directory when it lies below it.
func (g *generator) relPath(path string) string {
	base := g.dir
	if base == "" {
		base, _ = os.Getwd()
	}
	if r, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
