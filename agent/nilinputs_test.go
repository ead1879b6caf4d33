package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// Nil values a caller can pass through the API give errors, not panics.
func TestNilInputs(t *testing.T) {
	ctx := context.Background()

	t.Run("nil agent", func(t *testing.T) {
		is := is.New(t)
		h, err := agent.NewHost(nil, agent.Config{})
		is.True(h == nil)
		is.True(err != nil && strings.Contains(err.Error(), "nil"))
	})

	t.Run("nil pointer agent", func(t *testing.T) {
		is := is.New(t)
		var a *plain
		h, err := agent.NewHost(a, agent.Config{})
		is.True(h == nil)
		is.True(err != nil && strings.Contains(err.Error(), "nil *agent_test.plain"))
	})

	t.Run("nil host as a tool", func(t *testing.T) {
		is := is.New(t)
		is.True(agent.AsTool(nil) == nil)
		tools := agent.SubAgents(nil)
		is.Equal(len(tools), 1)
		h := host(script(say("unused")), agent.Config{Tools: []toolset.Source{tools}})
		_, err := h.Run(ctx, agent.Text("hi"))
		is.True(err != nil && strings.Contains(err.Error(), "nil tool"))
	})

	t.Run("nil settings store", func(t *testing.T) {
		is := is.New(t)
		doc, err := agent.StoredSettings(nil).Settings(ctx, "tenant", "kind")
		is.NoErr(err)
		is.True(doc == nil)
	})

	t.Run("nil run option", func(t *testing.T) {
		is := is.New(t)
		h := host(script(say("hello")), agent.Config{})
		res, err := h.Run(ctx, nil, agent.Text("hi"), nil)
		is.NoErr(err)
		is.Equal(res.Messages[len(res.Messages)-1].Parts[0].(chat.Text).Text, "hello")
	})
}
