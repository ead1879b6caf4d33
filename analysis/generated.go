package analysis

import (
	"bytes"
	"fmt"
	"go/ast"
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
// The caller runs it only when the parser reported no errors: the generator writes nothing until they are fixed.
func checkGeneratedFile(pass *analysis.Pass, r *reporter, loc *locator, pkg *model.Package) {
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
		stale(GeneratedFile+" is left over, as the package declares no toolsets and no agents: run go generate or delete the file", nil)
		return
	}
	if gen == nil {
		pos, end := loc.typeName(firstTypeName(pkg))
		r.report(parse.Diagnostic{
			Pos: pos, End: end, Code: codeStale, Severity: parse.Error,
			Message: GeneratedFile + " is missing: run go generate, with a //go:generate line that runs typeshift generate",
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
	stale(GeneratedFile+" is out of date: run go generate", fix)
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
