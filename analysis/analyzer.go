package analysis

import (
	_ "embed"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/typeshift-go/typeshift/internal/parse"
)

//go:embed doc.go
var docSource string

// Analyzer reports toolset and agent declarations that the typeshift generator cannot read, generated code that is
// out of date, and what would go wrong at run time. Its flags are -generated, -fielddocs and -skip.
var Analyzer = newAnalyzer(&flags)

// config holds what the flags set.
type config struct {
	// generated turns on TSH010, the check of the generated file.
	generated bool
	// fieldDocs turns on TSH022, the information about undocumented input fields.
	fieldDocs bool
	// skip lists codes not to report, comma-separated.
	skip string
	// fixing, when not reportOnly, overrides what the driver's -fix and -diff flags say (see applyingFixes).
	fixing fixMode
}

// flags is the configuration of Analyzer, set by its flags.
var flags = config{generated: true}

func init() {
	Analyzer.Flags.BoolVar(&flags.generated, "generated", true,
		"report ("+codeStale+") a "+GeneratedFile+" that is missing or out of date")
	Analyzer.Flags.BoolVar(&flags.fieldDocs, "fielddocs", false,
		"report ("+codeFieldDoc+") input fields without a description")
	Analyzer.Flags.StringVar(&flags.skip, "skip", "",
		"comma-separated diagnostic codes not to report, such as TSH009")
}

// newAnalyzer returns an analyzer that reads its configuration from cfg when it runs. Tests make analyzers with
// configurations of their own, so that they can run in parallel.
func newAnalyzer(cfg *config) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:      "typeshift",
		Doc:       analyzerDoc(docSource),
		URL:       "https://github.com/typeshift-go/typeshift/blob/main/docs/diagnostics.md",
		Run:       func(pass *analysis.Pass) (any, error) { return run(pass, cfg) },
		FactTypes: []analysis.Fact{new(toolsFact)},
	}
}

// analyzerDoc returns the part of doc.go's package comment from its "# Analyzer typeshift" heading on: a title line,
// then the list of diagnostics, as go vet -help shows it.
func analyzerDoc(src string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || f.Doc == nil {
		return "typeshift: check toolset and agent declarations for the typeshift generator"
	}
	text := f.Doc.Text()
	const heading = "# Analyzer typeshift\n"
	if i := strings.Index(text, heading); i >= 0 {
		text = text[i+len(heading):]
	}
	return strings.TrimSpace(text)
}

// run parses the package as the generator does, with the toolsets of the imported packages that their facts list,
// reporting what the parser reports; exports the package's tools as a fact; and then checks field descriptions
// and the generated file.
func run(pass *analysis.Pass, cfg *config) (any, error) {
	files := sourceFiles(pass)
	if len(files) == 0 {
		return nil, nil
	}
	r := newReporter(pass, cfg.skip)
	imported := importedToolsets(pass)
	res := parse.Read(pass.Fset, files, pass.Pkg, pass.TypesInfo, parse.ReporterFunc(r.parsed), parse.Options{Imported: imported})
	pkg := res.Package
	loc := newLocator(pass, files)

	fact := newToolsFact(res.Toolsets, imported)
	if len(fact.Toolsets) > 0 {
		pass.ExportPackageFact(fact)
	}
	if cfg.fieldDocs {
		checkFieldDocs(r, loc, pkg)
	}
	if cfg.generated && !r.hadErrors {
		fixing := cfg.fixing
		if fixing == reportOnly {
			fixing = applyingFixes()
		}
		checkGeneratedFile(pass, r, loc, pkg, fixing)
	}
	return nil, nil
}

// sourceFiles returns the files the generator reads: every file but the tests and the generated file. Test files
// are left out so that go vet, which checks a package together with its tests, sees what go generate sees; the
// generated file is left out because the generator reads the package without it.
func sourceFiles(pass *analysis.Pass) []*ast.File {
	files := make([]*ast.File, 0, len(pass.Files))
	for _, f := range pass.Files {
		name := pass.Fset.File(f.FileStart).Name()
		if strings.HasSuffix(name, "_test.go") || filepath.Base(name) == GeneratedFile {
			continue
		}
		files = append(files, f)
	}
	return files
}
