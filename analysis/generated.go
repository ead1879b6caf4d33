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
// the package: it is missing, out of date, or left over in a package that declares no toolsets or agents any more. It
// generates the file in memory from the same model, so it agrees with the generator byte for byte. When the file
// exists, the suggested fix replaces its content; a missing file has no fix, since a fix cannot create a file.
//
// The caller runs it only when the parser reported no errors: the generator writes nothing until they are fixed.
// The cache spares generating the file again while the declarations and the tool stay the same.
func checkGeneratedFile(pass *analysis.Pass, r *reporter, loc *locator, pkg *model.Package, cache genCache) {
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

	var got []byte
	if gen != nil {
		var err error
		if got, err = pass.ReadFile(genName); err != nil {
			return // the driver keeps the file from us: nothing to compare
		}
		got = normalizeNewlines(got)
		if !bytes.HasPrefix(got, []byte(emit.Header)) {
			stale(GeneratedFile+" was not written by typeshift, which needs the name: rename the file", nil)
			return
		}
	}
	if !wants {
		stale(GeneratedFile+" is left over, as the package declares no toolsets and no agents: run go generate or delete the file", nil)
		return
	}

	var key string
	if gen != nil {
		key = cache.key(pkg)
		if cache.upToDate(key, got) {
			return
		}
	}
	want, err := emit.File(pkg)
	if err != nil {
		pos, end := loc.typeName(firstTypeName(pkg))
		r.report(parse.Diagnostic{
			Pos: pos, End: end, Code: codeStale, Severity: parse.Error,
			Message: fmt.Sprintf("the generator cannot write %s for this package: %v", GeneratedFile, err),
		})
		return
	}
	cache.store(key, want)
	switch {
	case gen == nil:
		pos, end := loc.typeName(firstTypeName(pkg))
		r.report(parse.Diagnostic{
			Pos: pos, End: end, Code: codeStale, Severity: parse.Error,
			Message: GeneratedFile + " is missing: run go generate, with a //go:generate line that runs typeshift generate",
		})
	case !bytes.Equal(got, want):
		stale(GeneratedFile+" is out of date: run go generate", want)
	}
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
