package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// retrying asks for a retry when its argument "ok" is false.
func retrying(name string) *toolset.Tool {
	return tool(name, func(_ context.Context, a json.RawMessage) (json.RawMessage, error) {
		if strings.Contains(string(a), `"ok":true`) {
			return json.RawMessage(`"done"`), nil
		}
		return nil, toolset.Retry("pass ok=true")
	})
}

func settings(doc string) agent.RunOption { return agent.RunSettings(json.RawMessage(doc)) }

func TestRetriesPerTool(t *testing.T) {
	bad := func(id string) chat.ToolCall { return tc(id, "r", `{"ok":false}`) }
	good := func(id string) chat.ToolCall { return tc(id, "r", `{"ok":true}`) }
	other := func(id string) chat.ToolCall { return tc(id, "o", `{}`) }
	tests := []struct {
		name    string
		steps   []step
		limit   string
		wantErr bool
	}{
		// A failing and a succeeding call of one tool in the same step count as one retry step.
		{"fail and success in one step count once", []step{call(bad("1"), good("2")), call(bad("3"), good("4")), say("ok")}, `{"max_retries":2,"max_consecutive_errors":10}`, false},
		{"three retry steps pass limit 2", []step{call(bad("1")), call(bad("2"), bad("3")), call(bad("4")), say("never")}, `{"max_retries":2,"max_consecutive_errors":10}`, true},
		// A success-only step resets the count.
		{"success-only step resets", []step{call(bad("1")), call(bad("2")), call(good("3")), call(bad("4")), call(bad("5")), say("ok")}, `{"max_retries":2,"max_consecutive_errors":10}`, false},
		// Steps of another tool in between neither count nor reset.
		{"interleaved steps of another tool", []step{call(bad("1")), call(other("2")), call(bad("3")), call(other("4")), call(bad("5")), say("never")}, `{"max_retries":2,"max_consecutive_errors":10}`, true},
		{"limit 0 ends at the first retry", []step{call(bad("1")), say("never")}, `{"max_retries":0,"max_consecutive_errors":10}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(tt.steps...)
			h := host(m, agent.Config{}, retrying("r"), echo("o"))
			res, err := h.Run(context.Background(), agent.Text("x"), settings(tt.limit))
			if !tt.wantErr {
				is.NoErr(err)
				is.Equal(res.Text(), "ok")
				return
			}
			var re *agent.RetryLimitError
			is.True(errors.As(err, &re))
			is.Equal(re.Tool, "r")
			is.Equal(re.Message, "pass ok=true")
			is.True(strings.Contains(err.Error(), `"r"`))
			is.True(len(m.Requests()) < len(tt.steps)) // the run ended before the last step
		})
	}
}

func TestRetryMessageReachesModel(t *testing.T) {
	is := is.New(t)
	m := script(call(tc("1", "r", `{}`)), say("ok"))
	h := host(m, agent.Config{HideToolErrors: true}, retrying("r"))
	_, err := h.Run(context.Background(), agent.Text("x"))
	is.NoErr(err)
	is.Equal(lastResults(m)["1"].Error, "pass ok=true") // shown even with HideToolErrors
}

func TestConsecutiveFailingRounds(t *testing.T) {
	fail := func(id string) step { return call(tc(id, "f", `{}`)) }
	ok := func(id string) step { return call(tc(id, "o", `{}`)) }
	tests := []struct {
		name      string
		limit     int
		steps     []step
		wantCalls int // model calls made
		wantErr   bool
	}{
		{"three failing rounds end the run", 3, []step{fail("1"), fail("2"), fail("3"), say("never")}, 3, true},
		{"a clean round resets", 3, []step{fail("1"), fail("2"), ok("3"), fail("4"), fail("5"), say("done")}, 6, false},
		{"limit 0 fails at once", 0, []step{fail("1"), say("never")}, 1, true},
		{"two failing rounds pass under limit 3", 3, []step{fail("1"), fail("2"), say("done")}, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(tt.steps...)
			h := host(m, agent.Config{}, failing("f", "backend down"), echo("o"))
			res, err := h.Run(context.Background(), agent.Text("x"), settings(fmt.Sprintf(`{"max_consecutive_errors":%d}`, tt.limit)))
			is.Equal(len(m.Requests()), tt.wantCalls)
			if !tt.wantErr {
				is.NoErr(err)
				is.Equal(res.Text(), "done")
				return
			}
			var fe *agent.ToolFailuresError
			is.True(errors.As(err, &fe))
			is.Equal(fe.Last, "backend down")
			is.Equal(res.New[len(res.New)-1].Role, chat.RoleTool) // the failing results are kept
		})
	}
}

func TestLastIterationOffersNoTools(t *testing.T) {
	is := is.New(t)
	var ran atomic.Int32
	counted := tool("t", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		ran.Add(1)
		return json.RawMessage(`1`), nil
	})
	m := script(call(tc("1", "t", `{}`)), call(tc("2", "t", `{}`)), call(tc("3", "t", `{}`)))
	h := host(m, agent.Config{}, counted)
	res, err := h.Run(context.Background(), agent.Text("x"), settings(`{"max_iterations":3}`))
	is.NoErr(err)
	is.Equal(len(m.Requests()), 3)
	is.Equal(joined(m.Requests()[0].ToolNames()), "t")
	is.Equal(joined(m.Requests()[1].ToolNames()), "t")
	is.Equal(len(m.Requests()[2].ToolNames()), 0) // the last call offers no tools
	is.Equal(len(m.Requests()[1].Options.Tools), 1)
	is.True(m.Requests()[1].Sent != m.Requests()[2].Sent)
	is.Equal(ran.Load(), int32(2)) // the call made anyway on the last iteration is not run
	last := results(res.New)["3"]
	is.True(strings.Contains(last.Error, "not run"))

	// The options of the first calls were not changed by the last one.
	is.Equal(len(m.Requests()[0].Sent.Tools), 1)

	// A fresh run has its whole budget again.
	m2 := script(call(tc("1", "t", `{}`)), say("ok"))
	h2 := host(m2, agent.Config{}, counted)
	_, err = h2.Run(context.Background(), agent.Text("x"), settings(`{"max_iterations":3}`))
	is.NoErr(err)
	is.Equal(joined(m2.Requests()[1].ToolNames()), "t")

	// max_iterations 1 offers no tools at all.
	m3 := script(say("only text"))
	h3 := host(m3, agent.Config{}, counted)
	_, err = h3.Run(context.Background(), agent.Text("x"), settings(`{"max_iterations":1}`))
	is.NoErr(err)
	is.Equal(len(m3.Requests()[0].ToolNames()), 0)
}
