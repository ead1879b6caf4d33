package analysis

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"os"
	"path/filepath"

	"golang.org/x/tools/go/analysis"

	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// GeneratedFile is the name of the file the generator writes in each package.
const GeneratedFile = emit.FileName

// checkGeneratedFile reports (TSH010) a generated file that differs from what typeshift generate would leave in
// the package: it is missing, out of date, or left over in a package that declares no toolsets or agents any more.
// It does not generate the file: the generator writes the model's fingerprint (emit.Fingerprint) on the file's
// second line, and the analyzer compares it with the fingerprint of the model it parsed. The emitter reads nothing
// but the model, so equal fingerprints mean the generator would write the file again as it is, apart from hand
// edits below the fingerprint, which CI's go generate and git diff catch. Only when the file is out of date is it
// generated, for the suggested fix that replaces its content; a missing file has no fix, since a fix cannot
// create a file.
//
// Drivers never apply a fix to a generated file, and under -fix print no diagnostics and exit 0: a stale file
// would be left as it is without a word. So under -fix (see applyingFixes) the check writes, or deletes, the
// file itself, as typeshift generate would, and says so on standard error; under -fix -diff it writes nothing
// and says what is out of date.
//
// The caller runs it only when the parser reported no errors: the generator writes nothing until they are fixed.
func checkGeneratedFile(pass *analysis.Pass, r *reporter, loc *locator, pkg *model.Package, fixing fixMode) {
	var gen *ast.File
	var genName string
	for _, f := range pass.Files {
		if name := pass.Fset.File(f.FileStart).Name(); filepath.Base(name) == GeneratedFile {
			gen, genName = f, name
		}
	}
	// The generator writes a file for toolsets and agents, and deletes it otherwise.
	wants := len(pkg.Toolsets) > 0 || len(pkg.Agents) > 0
	if gen == nil && !wants {
		return
	}
	stale := func(msg string, fix []byte) {
		d := parse.Diagnostic{Pos: gen.Package, End: gen.Name.End(), Code: codeStale, Severity: parse.Error, Message: msg}
		if fix != nil {
			d.Fixes = []parse.Fix{{
				Message: "Regenerate " + GeneratedFile,
				Edits:   []parse.Edit{{Pos: gen.FileStart, End: gen.FileEnd, NewText: string(fix)}},
			}}
		}
		r.report(d)
	}
	cannot := func(err error) {
		pos, end := loc.typeName(firstTypeName(pkg))
		r.report(parse.Diagnostic{
			Pos: pos, End: end, Code: codeStale, Severity: parse.Error,
			Message: fmt.Sprintf("the generator cannot write %s for this package: %v", GeneratedFile, err),
		})
	}

	var got string
	var recorded bool
	if gen != nil {
		src, err := pass.ReadFile(genName)
		if err != nil {
			return // the driver keeps the file from us: nothing to compare
		}
		if !bytes.HasPrefix(src, []byte(emit.Header)) {
			stale(GeneratedFile+" was not written by typeshift, which needs the name: rename the file", nil)
			return
		}
		got, recorded = emit.ReadFingerprint(normalizeNewlines(headLines(src)))
	}
	if !wants {
		if fixing.apply(genName, nil) {
			return
		}
		stale(GeneratedFile+" is left over, as the package declares no toolsets and no agents: delete the file, or "+emit.Regenerate, nil)
		return
	}
	if gen == nil {
		if fixing != reportOnly && len(pass.Files) > 0 {
			dir := filepath.Dir(pass.Fset.File(pass.Files[0].FileStart).Name())
			if src, err := emit.File(pkg); err == nil && fixing.apply(filepath.Join(dir, GeneratedFile), src) {
				return
			}
		}
		pos, end := loc.typeName(firstTypeName(pkg))
		r.report(parse.Diagnostic{
			Pos: pos, End: end, Code: codeStale, Severity: parse.Error,
			Message: GeneratedFile + " is missing: " + emit.Regenerate,
		})
		return
	}
	want, err := emit.Fingerprint(pkg)
	if err != nil {
		cannot(err)
		return
	}
	if recorded && got == want {
		return
	}
	// Out of date, which is rare: generate the file for the fix.
	fix, err := emit.File(pkg)
	if err != nil {
		cannot(err)
		return
	}
	if fixing.apply(genName, fix) {
		return
	}
	stale(GeneratedFile+" is out of date: "+emit.Regenerate, fix)
}

// fixMode says what the check does with a generated file it finds stale.
type fixMode int

const (
	// reportOnly reports the file, with the fix a driver would not apply.
	reportOnly fixMode = iota
	// fixFiles writes the file (or deletes a left-over one) and says so on standard error.
	fixFiles
	// fixDiff writes nothing and says on standard error which file is stale, as -fix -diff prints and does not
	// apply.
	fixDiff
)

// applyingFixes returns the mode the driver's flags ask for: go vet -fix and typeshift-vet -fix register -fix
// (and -diff) on the command line, where the analyzer reads them.
func applyingFixes() fixMode {
	on := func(name string) bool {
		f := flag.Lookup(name)
		return f != nil && f.Value.String() == "true"
	}
	switch {
	case !on("fix"):
		return reportOnly
	case on("diff"):
		return fixDiff
	}
	return fixFiles
}

// apply writes src to the file at path (or deletes the file when src is nil) under fixFiles, and reports
// whether the stale file is dealt with, so that no diagnostic is needed. Under fixDiff it prints what it would do.
// A file it cannot write is reported on standard error and left for the diagnostic, which the driver does not
// print under -fix; the message is the only word of it.
func (m fixMode) apply(path string, src []byte) bool {
	rel := path
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, path); err == nil {
			rel = r
		}
	}
	switch m {
	case fixDiff:
		if src == nil {
			fmt.Fprintf(os.Stderr, "typeshift: -fix would delete %s, left over in a package without toolsets or agents\n", rel)
		} else {
			fmt.Fprintf(os.Stderr, "typeshift: -fix would regenerate %s, which is out of date or missing (-diff shows no generated code)\n", rel)
		}
		return true
	case fixFiles:
		var err error
		if src == nil {
			err = os.Remove(path)
		} else {
			err = os.WriteFile(path, src, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "typeshift: -fix cannot bring %s up to date: %v; %s\n", rel, err, emit.Regenerate)
			return false
		}
		if src == nil {
			fmt.Fprintf(os.Stderr, "typeshift: deleted %s, left over in a package without toolsets or agents\n", rel)
		} else {
			fmt.Fprintf(os.Stderr, "typeshift: regenerated %s\n", rel)
		}
		return true
	}
	return false
}

// headLines returns the first two lines of src, where the header and the fingerprint are, so that only they are
// looked at, however large the file.
func headLines(src []byte) []byte {
	end := 0
	for range 2 {
		i := bytes.IndexByte(src[end:], '\n')
		if i < 0 {
			return src
		}
		end += i + 1
	}
	return src[:end]
}

// firstTypeName names the package's first toolset, or its first agent, where a diagnostic about the whole
// generated file is placed when the file is missing.
func firstTypeName(pkg *model.Package) string {
	if len(pkg.Toolsets) > 0 {
		return pkg.Toolsets[0].TypeName
	}
	return pkg.Agents[0].TypeName
}

// normalizeNewlines turns CRLF line endings, which a checkout on Windows may produce, into the generator's LF.
func normalizeNewlines(b []byte) []byte {
	if !bytes.Contains(b, []byte("\r\n")) {
		return b
	}
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
}
