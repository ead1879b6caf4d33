// Package archtest holds tests of the project's shape: rules that span packages.
package archtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// runtimeRoots are the packages that run tools and agents. Design decision D1: they find, describe, bind and
// call tools without reflection, so none of them may import reflect directly.
var runtimeRoots = []string{"toolset", "agent", "storage"}

func TestRuntimeDoesNotImportReflect(t *testing.T) {
	is := is.New(t)
	const module = "github.com/typeshift-go/typeshift/"
	args := []string{"list", "-json=ImportPath,Imports"}
	for _, r := range runtimeRoots {
		args = append(args, "../../"+r+"/...")
	}
	out, err := exec.Command("go", args...).Output()
	is.NoErr(err) // go list over the runtime packages
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		is.NoErr(dec.Decode(&p))
		if !strings.HasPrefix(p.ImportPath, module) || strings.Contains(p.ImportPath, "/testdata/") {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if imp == "reflect" {
				t.Errorf("%s imports reflect; the runtime must not (decision D1)", p.ImportPath)
			}
		}
	}
	is.True(checked > 0) // the runtime packages were found
}
