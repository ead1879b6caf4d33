package chat

import "context"

// Progress says how far a running tool call has got, as the tool reports while it runs: an MCP server's
// notifications/progress, for example. A streamed run passes each report on as an [Update] whose Progress is set.
type Progress struct {
	// CallID is the running call's ID.
	CallID string
	// Progress is how much is done, in units the tool chooses; it grows with each report.
	Progress float64
	// Total is how much there is to do, in the same units, or zero when the tool does not know.
	Total float64
	// Message says what the tool is doing, for people; it may be empty.
	Message string
}

type progressKey struct{}

// WithProgress returns a context in which [ReportProgress] hands reports to report. The tool loop of a streamed
// run sets it around its tool calls; report may be called from any goroutine.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress hands p to the reporter that [WithProgress] put in ctx, and reports whether there was one. A run
// that is not streamed has none, and the report is dropped.
func ReportProgress(ctx context.Context, p Progress) bool {
	report, ok := ctx.Value(progressKey{}).(func(Progress))
	if !ok || report == nil {
		return false
	}
	report(p)
	return true
}
