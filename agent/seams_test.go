package agent_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// counting is a decorator that counts the model calls it sees and what they were sent.
type counting struct {
	next  chat.Client
	calls *atomic.Int32
	tag   string
	log   *[]string
}

func (c *counting) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	c.calls.Add(1)
	*c.log = append(*c.log, c.tag)
	return c.next.Respond(ctx, msgs, opts)
}

func (c *counting) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	c.calls.Add(1)
	*c.log = append(*c.log, c.tag)
	return c.next.Stream(ctx, msgs, opts)
}

func TestInnerAndInstrumentSeeEveryModelCall(t *testing.T) {
	is := is.New(t)
	var inner, instrumented, outer atomic.Int32
	var log []string
	cfg := agent.Config{
		Middleware: []chat.Middleware{func(next chat.Client) chat.Client {
			return &counting{next: next, calls: &outer, tag: "run", log: &log}
		}},
		Inner: []chat.Middleware{func(next chat.Client) chat.Client {
			return &counting{next: next, calls: &inner, tag: "inner", log: &log}
		}},
		Instrument: func(next chat.Client) chat.Client {
			return &counting{next: next, calls: &instrumented, tag: "provider", log: &log}
		},
	}
	m := script(call(tc("1", "echo", `{}`)), call(tc("2", "echo", `{}`)), say("ok"))
	_, err := host(m, cfg, echo("echo")).Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(outer.Load(), int32(1)) // run middleware: once around the run
	is.Equal(inner.Load(), int32(3)) // below the tool loop: every model call
	is.Equal(instrumented.Load(), int32(3))
	is.Equal(strings.Join(log, " "), "run inner provider inner provider inner provider")
}

func TestFailingCallBesideApprovalRequest(t *testing.T) {
	is := is.New(t)
	var runs atomic.Int32
	m := script(call(tc("1", "close_ticket", `{"number":1}`), tc("2", "nope", `{}`), tc("3", "f", `{}`)))
	h := host(m, agent.Config{}, closer(&runs), failing("f", "broken"))
	res, err := h.Run(context.Background(), agent.Text("x"), settings(`{"max_consecutive_errors":1}`))
	var fe *agent.ToolFailuresError
	is.True(errors.As(err, &fe))
	is.Equal(fe.Last, "broken") // the last failure, not the request's empty slot
	got := results(res.New)
	is.Equal(len(got), 2) // the failing calls are answered; the request has no result
	is.True(strings.HasPrefix(got["2"].Error, `unknown tool "nope"`))
	is.Equal(got["3"].Error, "broken")
	is.Equal(len(requests(res.New)), 1)
}
