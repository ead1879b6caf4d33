package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

func TestRunText(t *testing.T) {
	is := is.New(t)
	m := script(say("Hello."))
	h := host(m, agent.Config{})
	res, err := h.Run(context.Background(), agent.Text("Hi"))
	is.NoErr(err)
	is.Equal(res.Text(), "Hello.")
	is.Equal(len(res.Messages), 2)
	is.Equal(res.Messages[0].Text(), "Hi")
	is.Equal(res.New[0].AuthorName, "tester") // author names on the agent's messages
	is.Equal(m.Requests()[0].Options.Instructions, "Be brief.")
	is.Equal(res.Usage, oneUsage)
	is.Equal(res.FinishReason, chat.FinishStop)

	// The next run continues from Result.Messages.
	m2 := script(say("Again."))
	h2 := host(m2, agent.Config{})
	res2, err := h2.Run(context.Background(), agent.Messages(res.Messages), agent.Text("More"))
	is.NoErr(err)
	is.Equal(len(m2.Requests()[0].Messages), 3)
	is.Equal(len(res2.Messages), 4)
	is.Equal(len(res2.New), 1)
}

func TestToolLoopRunsCalls(t *testing.T) {
	is := is.New(t)
	m := script(
		call(tc("c1", "add", `{"n":1}`), tc("c2", "add", `{"n":2}`)),
		say("3 and 4"),
	)
	h := host(m, agent.Config{}, decoding("add"))
	res, err := h.Run(context.Background(), agent.Text("go"))
	is.NoErr(err)
	is.Equal(res.Text(), "3 and 4")
	got := lastResults(m)
	is.Equal(string(got["c1"].Result), "2")
	is.Equal(string(got["c2"].Result), "4")
	is.Equal(res.Usage.TotalTokens, 2*oneUsage.TotalTokens)
	// input, assistant calls, tool results, assistant text
	is.Equal(len(res.Messages), 4)
	is.Equal(res.Messages[2].Role, chat.RoleTool)
	is.Equal(res.Messages[2].AuthorName, "tester")
}

func TestProviders(t *testing.T) {
	is := is.New(t)
	m := script(say("from m2"))
	var asked []string
	providers := chat.NewProviders(map[string]chat.ProviderFactory{
		"test": func(model string) (chat.Client, error) { asked = append(asked, model); return m, nil },
	})
	h, err := agent.NewHost(&configurable{}, agent.Config{Providers: providers})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("x"), agent.RunSettings(json.RawMessage(`{"model":"m2"}`)))
	is.NoErr(err)
	is.Equal(res.Text(), "from m2")
	is.Equal(asked, []string{"m2"})

	_, err = h.Run(context.Background(), agent.Text("x"), agent.RunSettings(json.RawMessage(`{"provider":"nope"}`)))
	var up *chat.UnknownProviderError
	is.True(errors.As(err, &up))

	_, err = agent.NewHost(&plain{}, agent.Config{})
	is.True(errors.Is(err, agent.ErrNoClient))
}

func TestModelErrorEndsRun(t *testing.T) {
	is := is.New(t)
	boom := errors.New("provider down")
	m := script(call(tc("c1", "echo", `{}`)), func([]chat.Message, *chat.Options) (*chat.Response, error) { return nil, boom })
	h := host(m, agent.Config{}, echo("echo"))
	res, err := h.Run(context.Background(), agent.Text("x"))
	is.True(errors.Is(err, boom))
	is.True(res != nil)
	is.Equal(len(res.New), 2) // the call and its result were kept
}
