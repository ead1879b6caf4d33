package streambench

import (
	"context"
	"iter"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// epoch is the origin of stamps: a monotonic clock reading, so that stamps compare within the process whatever
// the wall clock does.
var epoch = time.Now()

// now returns the time since epoch.
func now() time.Duration { return time.Since(epoch) }

// Paced is a [chat.Client] that answers with Tokens text deltas, one every Interval (back to back when Interval is
// 0), then an update with the usage and the finish reason. A delta's text is a stamp, "@" and the nanoseconds
// since the process's epoch, then a space: whoever reads the text later, whole or coalesced, finds with [Delays]
// how long each delta took to reach it. Deltas keep to a schedule from the stream's start, as a provider's do,
// so a late delta does not push back the ones after it.
//
// When the context carries a [Probe] (see [WithProbe]), the stream records the moment it yields its last update.
type Paced struct {
	// Tokens is how many text deltas a response has.
	Tokens int
	// Interval is the time between two deltas; 20 ms is 50 tokens a second.
	Interval time.Duration
}

// Stream yields the deltas on their schedule, then the usage and the finish reason.
func (p Paced) Stream(ctx context.Context, _ []chat.Message, _ *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		start := time.Now()
		var timer *time.Timer
		for i := range p.Tokens {
			if p.Interval > 0 && i > 0 {
				wait := time.Until(start.Add(time.Duration(i) * p.Interval))
				if wait > 0 {
					if timer == nil {
						timer = time.NewTimer(wait)
						defer timer.Stop()
					} else {
						timer.Reset(wait)
					}
					select {
					case <-ctx.Done():
						yield(chat.Update{}, ctx.Err())
						return
					case <-timer.C:
					}
				}
			}
			if !yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: Stamp()}}}, nil) {
				return
			}
		}
		if pr := probeFrom(ctx); pr != nil {
			pr.last.Store(int64(now()))
		}
		yield(chat.Update{Role: chat.RoleAssistant, Parts: []chat.Part{chat.UsagePart{Usage: p.usage()}},
			FinishReason: chat.FinishStop}, nil)
	}
}

// Respond waits as long as the stream would take, then returns the whole text.
func (p Paced) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	var b strings.Builder
	for u, err := range p.Stream(ctx, msgs, opts) {
		if err != nil {
			return nil, err
		}
		for _, part := range u.Parts {
			if t, ok := part.(chat.Text); ok {
				b.WriteString(t.Text)
			}
		}
	}
	return &chat.Response{Messages: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: b.String()}}}},
		Usage: p.usage(), FinishReason: chat.FinishStop}, nil
}

func (p Paced) usage() chat.Usage {
	return chat.Usage{InputTokens: 10, OutputTokens: int64(p.Tokens), TotalTokens: 10 + int64(p.Tokens)}
}

// Stamp returns a delta's text stamped with the present moment.
func Stamp() string {
	return "@" + strconv.FormatInt(int64(now()), 10) + " "
}

// Delays returns, for each stamp in text, how long ago it was made, and appends them to into. Text that is not a
// stamp is skipped.
func Delays(into []time.Duration, text string) []time.Duration {
	t := now()
	for {
		i := strings.IndexByte(text, '@')
		if i < 0 {
			return into
		}
		text = text[i+1:]
		j := 0
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		if j == 0 {
			continue
		}
		if ns, err := strconv.ParseInt(text[:j], 10, 64); err == nil {
			into = append(into, t-time.Duration(ns))
		}
		text = text[j:]
	}
}

// Stamps counts the stamps in text.
func Stamps(text string) int {
	n := 0
	for {
		i := strings.IndexByte(text, '@')
		if i < 0 || i+1 >= len(text) {
			return n
		}
		if c := text[i+1]; c >= '0' && c <= '9' {
			n++
		}
		text = text[i+1:]
	}
}

// A Probe records when a [Paced] stream yielded its last update. Put it in a run's context with [WithProbe]; the
// context reaches the model through the run.
type Probe struct{ last atomic.Int64 }

// Since returns how long ago the stream yielded its last update, and false when it has not.
func (p *Probe) Since() (time.Duration, bool) {
	last := p.last.Load()
	if last == 0 {
		return 0, false
	}
	return now() - time.Duration(last), true
}

type probeKey struct{}

// WithProbe returns ctx carrying p.
func WithProbe(ctx context.Context, p *Probe) context.Context {
	return context.WithValue(ctx, probeKey{}, p)
}

func probeFrom(ctx context.Context) *Probe {
	p, _ := ctx.Value(probeKey{}).(*Probe)
	return p
}
