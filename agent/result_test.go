package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/toolset"
)

// A run that cannot start still returns a Result, so reading it after the error check needs no nil check.
func TestRunReturnsAResultWithEveryError(t *testing.T) {
	is := is.New(t)
	host, err := agent.NewHost(&Support{}, agent.Config{Toolsets: []toolset.Source{ticketsToolset()}, Client: &model{}})
	is.NoErr(err)
	res, err := host.Run(context.Background(), agent.Text("Hello?"), agent.RunSettings(json.RawMessage(`{`)))
	is.True(err != nil)
	is.True(res != nil) // a Result beside the error
	is.Equal(res.Text(), "")
	is.Equal(res.Agent, "Support")
	is.True(!res.Waiting())

	var none *agent.Result // and a nil Result of the caller's own reads as empty
	is.Equal(none.Text(), "")
	is.True(!none.Waiting())
}
