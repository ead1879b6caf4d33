// Command typeshift-vet checks typeshift toolset and agent declarations: it reports what the generator cannot read,
// generated code that is out of date, and what would fail at run time, with the TSH codes listed in the analysis
// package and in docs/diagnostics.md.
//
// Run it through go vet, which checks each package with its dependencies' facts and caches the results:
//
//	go install github.com/typeshift-go/typeshift/cmd/typeshift-vet
//	go vet -vettool=$(go env GOPATH)/bin/typeshift-vet ./...
//
// With a tool directive in go.mod (go get -tool github.com/typeshift-go/typeshift/cmd/typeshift-vet):
//
//	go vet -vettool=$(go tool -n typeshift-vet) ./...
//
// Or on its own, where it loads the packages itself and can apply the suggested fixes (-fix, -diff):
//
//	typeshift-vet ./...
//
// Flags: -generated=false skips the check of typeshift_gen.go (TSH010); -fielddocs reports input fields without a
// description (TSH022); -skip=TSH009,... drops the listed codes.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/typeshift-go/typeshift/analysis"
)

// singlechecker.Main serves both modes: given the single *.cfg argument that go vet passes, it runs as a
// unitchecker; given package patterns, it loads and checks them itself.
func main() { singlechecker.Main(analysis.Analyzer) }
