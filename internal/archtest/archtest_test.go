package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// runtimeRoots are the packages that run tools and agents. Design decision D1: they find, describe, bind and
// call tools without reflection, so none of their non-test files may import reflect directly. The files are
// read in-process so that go test's cache notices when they change.
var runtimeRoots = []string{"toolset", "agent", "storage"}

func TestRuntimeDoesNotImportReflect(t *testing.T) {
	is := is.New(t)
	fset := token.NewFileSet()
	checked := 0
	for _, root := range runtimeRoots {
		err := filepath.WalkDir(filepath.Join("..", "..", root), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "reflect" {
					t.Errorf("%s imports reflect; the runtime must not (decision D1)", path)
				}
			}
			return nil
		})
		is.NoErr(err) // walking the runtime packages
	}
	is.True(checked > 0) // the runtime packages were found
}
