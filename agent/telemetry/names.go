package telemetry

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// The span kinds as start options, made once: an option made per span would be allocated per span.
var (
	kindInternal = trace.WithSpanKind(trace.SpanKindInternal)
	kindClient   = trace.WithSpanKind(trace.SpanKindClient)
)

// maxNames bounds the span-name cache; past it, names are built for each span.
const maxNames = 1024

// names caches span names such as "execute_tool search_tickets" by operation and subject: a run makes the same
// few names over and over, and building one allocates.
type names struct {
	m    sync.Map // nameKey -> string
	size atomic.Int64
}

type nameKey struct{ op, subject string }

// of returns op, or op and subject joined by a space when subject is not empty.
func (n *names) of(op, subject string) string {
	if subject == "" {
		return op
	}
	key := nameKey{op, subject}
	if v, ok := n.m.Load(key); ok {
		return v.(string)
	}
	name := op + " " + subject
	if n.size.Add(1) <= maxNames {
		n.m.Store(key, name)
	}
	return name
}

// finishAttrs holds the gen_ai.response.finish_reasons attribute of each common finish reason: a string-slice
// attribute allocates its array when made, and the values never change.
var finishAttrs = map[chat.FinishReason]attribute.KeyValue{
	chat.FinishStop:          FinishReasons.StringSlice([]string{string(chat.FinishStop)}),
	chat.FinishLength:        FinishReasons.StringSlice([]string{string(chat.FinishLength)}),
	chat.FinishToolCalls:     FinishReasons.StringSlice([]string{string(chat.FinishToolCalls)}),
	chat.FinishContentFilter: FinishReasons.StringSlice([]string{string(chat.FinishContentFilter)}),
}

// finishAttr returns the finish-reasons attribute of r.
func finishAttr(r chat.FinishReason) attribute.KeyValue {
	if kv, ok := finishAttrs[r]; ok {
		return kv
	}
	return FinishReasons.StringSlice([]string{string(r)})
}
