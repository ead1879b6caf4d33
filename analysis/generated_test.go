package analysis_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/typeshift-go/typeshift/analysis"
	"github.com/typeshift-go/typeshift/internal/emit"
)

// TestGeneratedFile checks TSH010: a missing generated file, a stale one (whose fix must be exactly what the
// generator writes), one left over in a package without toolsets, a file of that name that the generator did not
// write, and a missing file in a package with an error, where TSH010 waits.
func TestGeneratedFile(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	results := analysistest.Run(t, testdata(), analysis.NewAnalyzer(true, false, ""),
		"example.com/gen/missing", "example.com/gen/stale", "example.com/gen/leftover", "example.com/gen/foreign",
		"example.com/gen/waits")

	var fix, want string
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if r.Pass.Pkg.Path() == "example.com/gen/stale" {
				src, err := emit.File(parsePass(r.Pass).model)
				is.NoErr(err)
				want = string(src)
				is.Equal(len(d.SuggestedFixes), 1)
				is.Equal(len(d.SuggestedFixes[0].TextEdits), 1)
				fix = string(d.SuggestedFixes[0].TextEdits[0].NewText)
			} else if d.Category == "TSH010" {
				is.Equal(len(d.SuggestedFixes), 0) // only a stale file has a fix
			}
		}
	}
	is.True(want != "")
	is.Equal(fix, want) // the fix writes what the generator writes
}

// TestGeneratedFileUpToDate copies the clean package into a module of its own, writes its generated file as the
// generator does, and checks that the analyzer then reports nothing at all.
func TestGeneratedFileUpToDate(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	root, err := filepath.Abs(filepath.Join("..")) // the repository, which the module replaces typeshift with
	is.NoErr(err)
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(testdata(), "go.mod"))
	is.NoErr(err)
	is.NoErr(os.WriteFile(filepath.Join(dir, "go.mod"), []byte(strings.Replace(string(gomod), "=> ../../..", "=> "+root, 1)), 0o644))
	is.NoErr(os.MkdirAll(filepath.Join(dir, "clean"), 0o755))
	src, err := os.ReadFile(filepath.Join(testdata(), "clean", "clean.go"))
	is.NoErr(err)
	is.NoErr(os.WriteFile(filepath.Join(dir, "clean", "clean.go"), src, 0o644))

	gen := generate(t, load(t, dir, "example.com/clean")[0])
	is.NoErr(os.WriteFile(filepath.Join(dir, "clean", analysis.GeneratedFile), gen, 0o644))

	analysistest.Run(t, dir, analysis.NewAnalyzer(true, false, ""), "example.com/clean")
}
