// Package evalsuite is an eval suite that typeshift eval's tests run: a model whose answer the environment
// variable EVALSUITE_ANSWER sets, so that a test can make a case fail between two runs.
package evalsuite

import (
	"context"
	"os"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/eval"
)

type Greeter struct{ agent.Agent }

func (a *Greeter) Declare() { a.WithInstructions("Greet.") }

func (a *Greeter) TypeshiftDeclaration() agent.Declaration { return agent.Declaration{Name: "Greeter"} }

func TestEvals(t *testing.T) {
	cases, err := eval.Load(os.DirFS("."), "cases")
	if err != nil {
		t.Fatal(err)
	}
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text(os.Getenv("EVALSUITE_ANSWER")), nil
	})
	eval.RunCases(t, cases, func(t *testing.T, _ *eval.Case) *agent.Host {
		host, err := agent.NewHost(&Greeter{}, agent.Config{Client: model})
		if err != nil {
			t.Fatal(err)
		}
		return host
	}, nil)
}
