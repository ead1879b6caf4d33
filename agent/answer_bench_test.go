package agent_test

import (
	"context"
	"testing"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/answertest"
)

// BenchmarkTypedAnswer runs the triage agent side by side over a model that answers at once: with a text answer
// (an agent without an answer type, the baseline), and with the answer in each mode, decoded and validated, whole
// and streamed. What the answer stage costs a run is the difference.
func BenchmarkTypedAnswer(b *testing.B) {
	cases := []struct {
		name string
		mode agent.AnswerMode
		a    agent.Declarer
	}{
		{"text", "", &plain{}},
		{"native", agent.AnswerNative, nil},
		{"tool", agent.AnswerTool, nil},
		{"prompted", agent.AnswerPrompted, nil},
	}
	for _, c := range cases {
		model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
			return answerReply(c.mode, assigned), nil
		})
		a := c.a
		if a == nil {
			a = &answertest.Triage{Mode: c.mode}
		}
		h, err := agent.NewHost(a, agent.Config{Client: model})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Run(context.Background(), agent.Text("The database is down.")); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/stream", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, err := range h.RunStream(context.Background(), agent.Text("The database is down.")) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
