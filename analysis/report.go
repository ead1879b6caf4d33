package analysis

import (
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/typeshift-go/typeshift/internal/parse"
)

// The codes of the diagnostics the analyzer finds itself; the parser's codes are in its own reports.
const (
	codeStale    = "TSH010"
	codeFieldDoc = "TSH022"
)

// reporter turns findings into analysis diagnostics: the code first in the message and as the category, the
// position kept, and the codes named by -skip dropped.
type reporter struct {
	pass *analysis.Pass
	skip map[string]bool
	// hadErrors records an error-level diagnostic from the parser, reported or skipped.
	hadErrors bool
	// seen drops a second report of the same code at the same place, which a shared input type can cause.
	seen map[seenKey]bool
}

type seenKey struct {
	pos  token.Pos
	code string
}

func newReporter(pass *analysis.Pass, skip string) *reporter {
	r := &reporter{pass: pass, skip: map[string]bool{}, seen: map[seenKey]bool{}}
	for _, c := range strings.Split(skip, ",") {
		if c = strings.ToUpper(strings.TrimSpace(c)); c != "" {
			r.skip[c] = true
		}
	}
	return r
}

// parsed receives the parser's diagnostics.
func (r *reporter) parsed(d parse.Diagnostic) {
	if d.Severity == parse.Error {
		r.hadErrors = true
	}
	r.report(d)
}

// report reports d unless its code is skipped. A diagnostic without a position goes to the package clause of the
// first file, so that it is never lost.
func (r *reporter) report(d parse.Diagnostic) {
	if r.skip[d.Code] {
		return
	}
	if !d.Pos.IsValid() {
		d.Pos, d.End = r.pass.Files[0].Package, token.NoPos
	}
	k := seenKey{d.Pos, d.Code}
	if r.seen[k] {
		return
	}
	r.seen[k] = true
	r.pass.Report(convert(d))
}

// convert makes an analysis diagnostic of a parser diagnostic.
func convert(d parse.Diagnostic) analysis.Diagnostic {
	out := analysis.Diagnostic{
		Pos:      d.Pos,
		End:      d.End,
		Category: d.Code,
		Message:  d.Code + ": " + d.Message,
		URL:      "#" + strings.ToLower(d.Code),
	}
	for _, f := range d.Fixes {
		fix := analysis.SuggestedFix{Message: f.Message}
		for _, e := range f.Edits {
			fix.TextEdits = append(fix.TextEdits, analysis.TextEdit{Pos: e.Pos, End: e.End, NewText: []byte(e.NewText)})
		}
		out.SuggestedFixes = append(out.SuggestedFixes, fix)
	}
	return out
}
