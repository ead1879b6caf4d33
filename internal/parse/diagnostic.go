// Package parse reads toolset and agent declarations from type-checked Go files into models. The generator and
// the analyzer both use it: the analyzer passes a Reporter that reports, the generator one that collects, and
// what does not parse is skipped (design decision D2).
package parse

import "go/token"

// Severity orders diagnostics.
type Severity int

const (
	Error Severity = iota
	Warning
	Info
)

// A Diagnostic is one problem found in a declaration.
type Diagnostic struct {
	// Pos and End delimit the offending syntax: the call, the argument or the field.
	Pos, End token.Pos
	// Code is the stable TSH code, such as "TSH008".
	Code string
	// Severity says how serious it is.
	Severity Severity
	// Message says what is wrong and what to do, lower-case, without a trailing period.
	Message string
	// Fixes are mechanical fixes, when there is an obvious one.
	Fixes []Fix
}

// A Fix is a suggested fix made of text edits.
type Fix struct {
	Message string
	Edits   []Edit
}

// An Edit replaces the text between Pos and End with NewText.
type Edit struct {
	Pos, End token.Pos
	NewText  string
}

// A Reporter receives diagnostics.
type Reporter interface {
	Report(Diagnostic)
}

// ReporterFunc adapts a function to a Reporter.
type ReporterFunc func(Diagnostic)

// Report calls f.
func (f ReporterFunc) Report(d Diagnostic) { f(d) }

// Discard is a Reporter that drops every diagnostic.
var Discard Reporter = ReporterFunc(func(Diagnostic) {})
