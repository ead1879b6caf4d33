package analysis_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/typeshift-go/typeshift/analysis"
)

// testdata is the module of the analysistest packages. It replaces the typeshift module with this repository, so
// the packages import the real toolset package.
func testdata() string { return filepath.Join(analysistest.TestData(), "src") }

// The diagnostic packages are checked without TSH010 (-generated=false): a package with deliberate errors has no
// generated file to compare, and the generated-file check is tested on its own. The clean package has an input
// field without a description, so it also shows that TSH022 is off by default.
var diagnosticPackages = []string{
	"example.com/tsh003",
	"example.com/tsh004",
	"example.com/tsh007",
	"example.com/tsh008",
	"example.com/tsh009",
	"example.com/tsh014",
	"example.com/tsh015",
	"example.com/tsh017",
	"example.com/tsh018",
	"example.com/tsh019",
	"example.com/tsh020",
	"example.com/tsh021",
	"example.com/tsh025",
	"example.com/tsh030",
	"example.com/clean",
	"example.com/names/base",
	"example.com/names/other",
	"example.com/names/app",
	"example.com/names/relay",
	"example.com/names/deep",
	"example.com/agents/tickets",
	"example.com/agents/tsh023",
	"example.com/agents/tsh024",
	"example.com/agents/chains",
	"example.com/agents/stalepick",
	"example.com/agents/answers",
}

// TestDiagnostics runs every diagnostic package, the cross-package duplicates (app imports base directly, deep
// only through other) and the suggested fixes, which are checked against the .golden files. The package fact
// expectations on the first line of each package check what it exports.
func TestDiagnostics(t *testing.T) {
	t.Parallel()
	a := analysis.NewAnalyzer(false, false, "")
	results := analysistest.RunWithSuggestedFixes(t, testdata(), a, diagnosticPackages...)
	checkAgreement(t, results)
}

func TestFieldDocs(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(), analysis.NewAnalyzer(false, true, ""), "example.com/tsh022")
}

func TestDocListsEveryCode(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	for _, code := range []string{
		"TSH003", "TSH004", "TSH007", "TSH008", "TSH009", "TSH010", "TSH014", "TSH015", "TSH017",
		"TSH018", "TSH019", "TSH020", "TSH021", "TSH022", "TSH023", "TSH024", "TSH026", "TSH027",
	} {
		is.True(strings.Contains(analysis.Analyzer.Doc, code+":") || strings.Contains(analysis.Analyzer.Doc, code+" ("))
	}
	is.True(strings.HasPrefix(analysis.Analyzer.Doc, "typeshift: ")) // the Doc starts with its title line
}

// TestDiagnosticsPage checks that docs/diagnostics.md has a section for every code the analyzer's doc lists, each
// with a wrong and a right example.
func TestDiagnosticsPage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	page, err := os.ReadFile(filepath.Join("..", "docs", "diagnostics.md"))
	is.NoErr(err)
	sections := strings.Split(string(page), "\n### ")
	is.True(len(documented) >= 16) // the doc lists the codes
	for code := range documented {
		found := false
		for _, s := range sections[1:] {
			heading, body, _ := strings.Cut(s, "\n")
			if !strings.Contains(heading, code) {
				continue
			}
			found = true
			if !strings.Contains(body, "Wrong") || !strings.Contains(body, "Right") {
				t.Errorf("the section of %s in docs/diagnostics.md lacks a wrong or a right example", code)
			}
		}
		if !found {
			t.Errorf("docs/diagnostics.md has no section for %s", code)
		}
	}
}
