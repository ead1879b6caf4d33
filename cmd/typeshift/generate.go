package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
	verbose := flags.Bool("v", false, "print each file written and the time taken")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: typeshift generate [-check] [-v] [-tags list] [packages]")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errReported
	}
	g := &generator{check: *check, tags: *tags, verbose: *verbose, stdout: os.Stdout, stderr: os.Stderr}
	return g.run(ctx, flags.Args())
}

// generator writes the generated files of a set of packages.
type generator struct {
	// dir is the directory the patterns are relative to; "" is the current one.
	dir   string
	check bool
	tags  string
	// verbose prints each file written and the time taken; progress is set when that is printed.
	verbose  bool
	progress bool
	// root is the main module's directory, which printed paths are relative to.
	root string
	// readOnly holds the packages that are read for their toolsets but not written.
	readOnly map[string]bool
	stdout   io.Writer
	stderr   io.Writer
}

// problem is one diagnostic with its resolved position.
type problem struct {
	pos token.Position
	d   parse.Diagnostic
}

// run loads, parses and writes every package the patterns name. It prints every problem and returns errReported
// when there is one.
//
// A package is read from its own files without its generated file, and type errors are tolerated: hand-written
// code that uses generated names (Tools, an agent's Settings type) does not type-check before the first
// generation, nor after a change that the generated file has not caught up with. Packages are parsed imports
// first, each with the toolsets of the packages it imports as their parsers read them, so that an agent's picks
// are checked against its toolsets' Declare methods and not against their generated files, which may be missing
// or stale. One run is enough, whatever the order of the patterns.
func (g *generator) run(ctx context.Context, patterns []string) error {
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	start := time.Now()
	g.readOnly = map[string]bool{}
	pkgs, err := g.load(ctx, patterns)
	if err != nil {
		return err
	}
	named := len(pkgs) - len(g.readOnly)
	g.progress = g.verbose || named >= largeModule
	if g.progress {
		fmt.Fprintf(g.stderr, "typeshift: loaded %d packages in %s\n", named, since(start))
	}
	failed := false
	var stale []string
	parsed := map[string][]parse.Toolset{} // import path -> the toolsets its parser read
	generated := map[string][]parse.Toolset{}
	files, written := 0, 0
	brokenDeps := false // a package read but not written has errors that its own run reports
	for _, pkg := range dependencyOrder(pkgs) {
		if g.readOnly[pkg.PkgPath] {
			if !loadable(pkg) {
				continue
			}
			errs := false
			r := parse.ReporterFunc(func(d parse.Diagnostic) { errs = errs || d.Severity == parse.Error })
			opts := parse.Options{Imported: importedToolsets(pkg.Types, parsed, generated)}
			parsed[pkg.PkgPath] = parse.Read(pkg.Fset, sourceSyntax(pkg), pkg.Types, pkg.TypesInfo, r, opts).Toolsets
			brokenDeps = brokenDeps || errs
			continue
		}
		if !g.loaded(pkg) {
			failed = true
			continue
		}
		var problems []problem
		r := parse.ReporterFunc(func(d parse.Diagnostic) {
			problems = append(problems, problem{pos: pkg.Fset.Position(d.Pos), d: d})
		})
		opts := parse.Options{Imported: importedToolsets(pkg.Types, parsed, generated)}
		res := parse.Read(pkg.Fset, sourceSyntax(pkg), pkg.Types, pkg.TypesInfo, r, opts)
		parsed[pkg.PkgPath] = res.Toolsets
		slices.SortStableFunc(problems, func(a, b problem) int {
			return cmp.Or(cmp.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Offset, b.pos.Offset))
		})
		errs := 0
		for _, p := range problems {
			if p.d.Severity == parse.Error {
				errs++
			}
			fmt.Fprintf(g.stderr, "%s: %s: %s\n", g.rel(p.pos), p.d.Code, p.d.Message)
		}
		if errs > 0 || len(res.Deferred) > 0 {
			// A deferred package waits for an error reported in another package; it says so only when that
			// package is not one of this run's.
			if errs == 0 && brokenDeps {
				fmt.Fprintf(g.stderr, "%s: not generated: it picks %s, which has errors in its own package; run typeshift generate there\n",
					pkg.PkgPath, strings.Join(res.Deferred, ", "))
			}
			failed = true
			continue
		}
		dir := packageDir(pkg)
		if dir == "" {
			continue
		}
		m := res.Package
		if len(m.Toolsets) > 0 || len(m.Agents) > 0 {
			files++
		}
		path := filepath.Join(dir, emit.FileName)
		changed, err := g.write(path, m)
		if err != nil {
			fmt.Fprintf(g.stderr, "%s: %v\n", pkg.PkgPath, err)
			failed = true
			continue
		}
		if changed {
			written++
			stale = append(stale, g.relPath(path))
			if g.verbose {
				fmt.Fprintf(g.stderr, "typeshift: %s\n", g.relPath(path))
			}
		}
	}
	if g.progress {
		verb := "written"
		if g.check {
			verb = "out of date"
		}
		fmt.Fprintf(g.stderr, "typeshift: %d packages, %d generated files, %d %s, in %s\n",
			named, files, written, verb, since(start))
	}
	if g.check && len(stale) > 0 {
		for _, s := range stale {
			fmt.Fprintf(g.stderr, "%s is out of date: %s\n", s, emit.Regenerate)
		}
		failed = true
	}
	if failed {
		return errReported
	}
	return nil
}

// largeModule is the number of packages from which generate reports its progress without -v.
const largeModule = 25

// since formats the time since start for progress lines.
func since(start time.Time) string {
	return time.Since(start).Round(time.Millisecond).String()
}

// sourceSyntax returns the files the parser reads: all but the generated file, which the run rewrites and which
// must not decide what it says. The analyzer reads the same files.
func sourceSyntax(pkg *packages.Package) []*ast.File {
	files := make([]*ast.File, 0, len(pkg.Syntax))
	for _, f := range pkg.Syntax {
		if filepath.Base(pkg.Fset.File(f.FileStart).Name()) != emit.FileName {
			files = append(files, f)
		}
	}
	return files
}

// dependencyOrder returns the packages so that each comes after the packages of the list it imports, and
// otherwise in import path order.
func dependencyOrder(pkgs []*packages.Package) []*packages.Package {
	in := map[string]*packages.Package{}
	for _, p := range pkgs {
		in[p.ID] = p
	}
	out := make([]*packages.Package, 0, len(pkgs))
	done := map[string]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if done[p.ID] {
			return
		}
		done[p.ID] = true
		paths := make([]string, 0, len(p.Imports))
		for path := range p.Imports {
			paths = append(paths, path)
		}
		slices.Sort(paths)
		for _, path := range paths {
			if dep, ok := in[p.Imports[path].ID]; ok {
				visit(dep)
			}
		}
		out = append(out, p)
	}
	for _, p := range pkgs {
		visit(p)
	}
	return out
}

// importedToolsets lists the toolsets of every package pkg imports, directly or not: for a package of this run
// as its parser read it, for any other from its generated file's identity constants (cached in generated).
func importedToolsets(pkg *types.Package, parsed, generated map[string][]parse.Toolset) []parse.Toolset {
	var out []parse.Toolset
	seen := map[string]bool{pkg.Path(): true}
	var walk func(p *types.Package)
	walk = func(p *types.Package) {
		for _, imp := range p.Imports() {
			if seen[imp.Path()] {
				continue
			}
			seen[imp.Path()] = true
			if ts, ok := parsed[imp.Path()]; ok {
				out = append(out, ts...)
			} else {
				ts, ok := generated[imp.Path()]
				if !ok {
					ts = parse.GeneratedToolsets(imp)
					generated[imp.Path()] = ts
				}
				out = append(out, ts...)
			}
			walk(imp)
		}
	}
	walk(pkg)
	slices.SortStableFunc(out, func(a, b parse.Toolset) int { return cmp.Or(cmp.Compare(a.Pkg, b.Pkg), cmp.Compare(a.Type, b.Type)) })
	return out
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

// load loads the packages with their syntax and types. Type errors are left to the parser to tolerate; a
// generated file that does not even parse, or that declares a name the package now declares itself, is blanked
// and the packages are loaded again, so that a broken generated file cannot stand in the way of regenerating it.
func (g *generator) load(ctx context.Context, patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Context: ctx,
		Dir:     g.dir,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
	}
	if g.tags != "" {
		cfg.BuildFlags = []string{"-tags=" + g.tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load packages: %w", err)
	}
	if len(pkgs) == 0 {
		// go list found nothing to read, which a go.mod that needs go mod tidy also gives: say so instead of
		// generating nothing and succeeding.
		return nil, fmt.Errorf("load packages: no package matches %s; run go list %s to see why (a go.mod that needs go mod tidy, say)",
			strings.Join(patterns, " "), strings.Join(patterns, " "))
	}
	overlay := map[string][]byte{}
	reload := false
	for _, pkg := range pkgs {
		for _, f := range pkg.GoFiles {
			if filepath.Base(f) == emit.FileName && pkg.Name != "" {
				overlay[f] = []byte("package " + pkg.Name + "\n")
				reload = reload || generatedInTheWay(pkg, f)
			}
		}
	}
	if reload {
		cfg.Overlay = overlay
		if pkgs, err = packages.Load(cfg, patterns...); err != nil {
			return nil, fmt.Errorf("load packages: %w", err)
		}
	}
	// The packages of the module that the named ones import are read too, but not written: an agent's picks are
	// checked against its toolsets' sources even when their packages are generated by another run, later.
	if extra := moduleImports(pkgs); len(extra) > 0 {
		for _, p := range extra {
			g.readOnly[p] = true
		}
		if pkgs, err = packages.Load(cfg, append(slices.Clone(patterns), extra...)...); err != nil {
			return nil, fmt.Errorf("load packages: %w", err)
		}
	}
	slices.SortFunc(pkgs, func(a, b *packages.Package) int { return cmp.Compare(a.PkgPath, b.PkgPath) })
	for _, pkg := range pkgs {
		if pkg.Module != nil && pkg.Module.Main && g.root == "" {
			g.root = pkg.Module.Dir
		}
	}
	return pkgs, nil
}

// moduleImports returns the import paths of the packages of the main module that the loaded packages import,
// directly or not, and that are not loaded themselves.
func moduleImports(pkgs []*packages.Package) []string {
	roots := map[string]bool{}
	for _, p := range pkgs {
		roots[p.PkgPath] = true
	}
	seen := map[string]bool{}
	var out []string
	var walk func(p *packages.Package)
	walk = func(p *packages.Package) {
		for _, imp := range p.Imports {
			if seen[imp.PkgPath] || imp.Module == nil || !imp.Module.Main {
				continue
			}
			seen[imp.PkgPath] = true
			if !roots[imp.PkgPath] {
				out = append(out, imp.PkgPath)
			}
			walk(imp)
		}
	}
	for _, p := range pkgs {
		walk(p)
	}
	slices.Sort(out)
	return out
}

// generatedInTheWay reports whether the generated file at path keeps its package from being read: it does not
// parse, or a declaration of it clashes with one of the package's own.
func generatedInTheWay(pkg *packages.Package, path string) bool {
	for _, e := range pkg.Errors {
		file, _, _ := strings.Cut(e.Pos, ":")
		switch {
		case e.Kind == packages.ParseError && filepath.Clean(file) == filepath.Clean(path):
			return true
		case e.Kind == packages.TypeError && strings.Contains(e.Msg, "redeclared"):
			return true
		}
	}
	return false
}

// loaded prints the errors that keep a package from being read and reports whether it can be parsed. Type
// errors are not among them: until the generated file is written, code that uses what it declares does not
// type-check, and the parser reads declarations, not bodies. The compiler reports the others after generation.
func (g *generator) loaded(pkg *packages.Package) bool {
	ok := true
	for _, e := range pkg.Errors {
		if !tolerated(e) {
			fmt.Fprintln(g.stderr, g.relPos(e.Pos)+e.Msg)
			ok = false
		}
	}
	return ok && pkg.Types != nil && pkg.TypesInfo != nil
}

// loadable is loaded without printing.
func loadable(pkg *packages.Package) bool {
	for _, e := range pkg.Errors {
		if !tolerated(e) {
			return false
		}
	}
	return pkg.Types != nil && pkg.TypesInfo != nil
}

// tolerated reports whether a load error leaves the package readable: a type error, or the compiler's errors
// that go list passes on, headed by "# path", when it compiles the packages for their export data (the type
// check from source finds the same errors).
func tolerated(e packages.Error) bool {
	return e.Kind == packages.TypeError || e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ")
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

// relPath returns path relative to the main module's root when it lies below it, as go vet prints it, and
// relative to the working directory otherwise when that is shorter.
func (g *generator) relPath(path string) string {
	if g.root != "" {
		if r, err := filepath.Rel(g.root, path); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	base := g.dir
	if base == "" {
		base, _ = os.Getwd()
	}
	if r, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
