package analysis_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/typeshift-go/typeshift/analysis"
	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// documented are the codes the analyzer's doc lists.
var documented = func() map[string]bool {
	codes := map[string]bool{}
	for _, c := range regexp.MustCompile(`(?m)^(TSH\d{3})[: ]`).FindAllStringSubmatch(analysis.Analyzer.Doc, -1) {
		codes[c[1]] = true
	}
	return codes
}()

// checkAgreement checks that the generator and the analyzer agree on the packages of an analysistest run:
//
//   - every problem the parser finds has a documented code and a position in the package;
//   - every error the parser finds (the generator refuses to write a package with one) is a diagnostic of the
//     analyzer, at the same position and with the same code;
//   - a package the analyzer finds clean parses without errors and generates: emit.File succeeds and writes Go.
func checkAgreement(t *testing.T, results []*analysistest.Result) {
	t.Helper()
	for _, r := range results {
		pass := r.Pass
		path := pass.Pkg.Path()
		got := map[string]bool{}
		for _, d := range r.Diagnostics {
			got[d.Category+"@"+pass.Fset.Position(d.Pos).String()] = true
		}
		p := parsePass(pass)
		for _, d := range p.diags {
			if !documented[d.Code] {
				t.Errorf("%s: the parser reports %q, which the analyzer's doc does not list: %s", path, d.Code, d.Message)
			}
			if !d.Pos.IsValid() || !inFiles(pass.Fset, pass.Files, d.Pos) {
				t.Errorf("%s: %s has no position in the package: %s", path, d.Code, d.Message)
			}
			if d.Severity == parse.Error && !got[d.Code+"@"+pass.Fset.Position(d.Pos).String()] {
				t.Errorf("%s: the generator's error %s at %s is not reported by the analyzer", path, d.Code, pass.Fset.Position(d.Pos))
			}
		}
		if len(r.Diagnostics) > 0 {
			continue
		}
		for _, d := range p.diags {
			t.Errorf("%s: the analyzer finds the package clean, but the parser reports %s: %s", path, d.Code, d.Message)
		}
		if len(p.model.Toolsets) == 0 {
			continue
		}
		src, err := emit.File(p.model)
		if err != nil {
			t.Errorf("%s: the analyzer finds the package clean, but the generator fails: %v", path, err)
			continue
		}
		if !strings.HasPrefix(string(src), emit.Header) {
			t.Errorf("%s: the generated file does not start with the header", path)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), analysis.GeneratedFile, src, 0); err != nil {
			t.Errorf("%s: the generated file is not Go: %v", path, err)
		}
	}
}

// inFiles reports whether pos lies in one of files.
func inFiles(fset *token.FileSet, files []*ast.File, pos token.Pos) bool {
	f := fset.File(pos)
	for _, file := range files {
		if fset.File(file.FileStart) == f {
			return true
		}
	}
	return false
}
