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

// cleanModule copies the clean package into a module of its own and writes its generated file as the generator
// does. It returns the module's directory.
func cleanModule(t *testing.T) string {
	t.Helper()
	is := is.New(t)
	root, err := filepath.Abs("..") // the repository, which the module replaces typeshift with
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
	return dir
}

// TestGeneratedFileUpToDate checks that the analyzer reports nothing at all on a package whose generated file is
// what the generator writes.
func TestGeneratedFileUpToDate(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, cleanModule(t), analysis.NewAnalyzer(true, false, ""), "example.com/clean")
}

// TestGeneratedFileFingerprint checks that TSH010 goes by the fingerprint line: a file whose fingerprint is not the
// model's, or that has none, is out of date, and its fix is the generated file; a file with the right fingerprint
// is not generated again, so an edit below the fingerprint passes (CI's go generate and git diff catch it).
func TestGeneratedFileFingerprint(t *testing.T) {
	t.Parallel()
	dir := cleanModule(t)
	genPath := filepath.Join(dir, "clean", analysis.GeneratedFile)
	gen, err := os.ReadFile(genPath)
	if err != nil {
		t.Fatal(err)
	}
	header, body, _ := strings.Cut(string(gen), "\npackage clean\n")
	fp, ok := emit.ReadFingerprint(gen)
	if !ok {
		t.Fatal("the generated file has no fingerprint")
	}
	want := "package clean // want `TSH010: typeshift_gen.go is out of date: run go tool typeshift generate \\./\\.\\.\\. at the module's root \\(go run github\\.com/typeshift-go/typeshift/cmd/typeshift generate`\n"
	tests := []struct {
		name, src string
		stale     bool
	}{
		{"other fingerprint", strings.Replace(header, fp, strings.Repeat("0", len(fp)), 1) + "\n" + want + body, true},
		{"no fingerprint", emit.Header + "\n\n" + want + body, true},
		{"empty fingerprint", emit.Header + "\n" + emit.FingerprintPrefix + "\n\n" + want + body, true},
		{"edited below the fingerprint", header + "\npackage clean\n" + body + "\n// edited by hand\n", false},
		{"CRLF line endings", strings.ReplaceAll(string(gen), "\n", "\r\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.NoErr(os.WriteFile(genPath, []byte(tt.src), 0o644))
			results := analysistest.Run(t, dir, analysis.NewAnalyzer(true, false, ""), "example.com/clean")
			var fixes []string
			for _, r := range results {
				for _, d := range r.Diagnostics {
					for _, f := range d.SuggestedFixes {
						fixes = append(fixes, string(f.TextEdits[0].NewText))
					}
				}
			}
			if tt.stale {
				is.Equal(fixes, []string{string(gen)}) // the fix writes what the generator writes
			} else {
				is.Equal(len(fixes), 0)
			}
		})
	}
}
