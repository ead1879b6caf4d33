package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/answertest"
	"github.com/typeshift-go/typeshift/storage"
)

// TestAnswerAfterHandoff: a run handed from an agent that answers with text to one with an answer type ends with
// the typed answer of the agent that answered, asked in the run's UseAnswerMode; the next run of the
// conversation, started on the first agent, goes to the typed agent and takes its own run's mode. On the memory
// store and Postgres.
func TestAnswerAfterHandoff(t *testing.T) {
	stores(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		ctx := context.Background()
		triageModel := chattest.NewScript(answerReply(agent.AnswerTool, goodVerdict), answerReply(agent.AnswerPrompted, assigned))
		triage := triageHost(t, triageModel, agent.AnswerNative, 2, agent.Config{Store: store})
		name := "handoff_to_triage"
		frontModel := chattest.NewScript(chattest.Calls(chattest.Call("h1", name, `{"reason":"a ticket"}`)))
		front := namedHost(t, "frontdesk", frontModel, agent.Config{Store: store, Handoffs: []agent.Handoff{{To: triage}}})

		res, err := front.Run(ctx, inConv("handed-answer", agent.Text("It works now."), agent.UseAnswerMode(agent.AnswerTool))...)
		is.NoErr(err)
		is.Equal(res.Agent, "Triage")
		v, err := agent.AnswerOf[answertest.Verdict](res)
		is.NoErr(err)
		is.Equal(v.Decision, "close")
		is.Equal(string(res.Answer), goodVerdict)
		// The run's mode reached the agent it was handed to: the answer tool, not the native format it declares.
		asked := triageModel.Requests()[0]
		is.Equal(asked.Options.ResponseFormat, nil)
		is.True(strings.Contains(strings.Join(asked.ToolNames(), ","), agent.AnswerToolName))

		// Resumed: the conversation goes to triage, which answers in this run's mode.
		res, err = front.Run(ctx, inConv("handed-answer", agent.Text("Now the database is down."), agent.UseAnswerMode(agent.AnswerPrompted))...)
		is.NoErr(err)
		is.Equal(res.Agent, "Triage")
		is.Equal(string(res.Answer), assigned)
		v, err = agent.AnswerOf[answertest.Verdict](res)
		is.NoErr(err)
		is.Equal(*v.Assignee, "dba")
		asked = triageModel.Requests()[1]
		is.Equal(asked.Options.ResponseFormat, nil)
		is.True(strings.Contains(asked.Options.Instructions, `"reasons"`))
		is.Equal(len(frontModel.Requests()), 1)
		stored, err := front.LoadConversation(ctx, tenant, "handed-answer")
		is.NoErr(err)
		checkHistory(t, stored.Messages)
		is.Equal(runEnds(t, store, "handed-answer"), []string{"Triage", "Triage"})
	})
}
