package analysis

import goanalysis "golang.org/x/tools/go/analysis"

// NewAnalyzer returns an analyzer configured as the flags would, for tests that run in parallel.
func NewAnalyzer(generated, fieldDocs bool, skip string) *goanalysis.Analyzer {
	return newAnalyzer(&config{generated: generated, fieldDocs: fieldDocs, skip: skip})
}
