package devui_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
)

// verdict is the answer type of triageDesk.
type verdict struct {
	Decision string   `json:"decision"`
	Priority int      `json:"priority"`
	Reasons  []string `json:"reasons"`
}

// verdictJSON is the model's answer to "triage ...".
const verdictJSON = `{"decision":"close","priority":2,"reasons":["The printer works again.","<b>No</b> reply needed."]}`

// triageDesk is desk answering with a verdict. Its TypeshiftAnswerType stands for the generated one.
type triageDesk struct{ desk }

func (a *triageDesk) Declare() {
	a.desk.Declare()
	agent.Returns[verdict](a)
	a.WithAnswerMode(agent.AnswerNative) // the model's text is the answer, whose partial values stream
}

func (a *triageDesk) TypeshiftAnswerType() agent.AnswerType {
	return agent.AnswerType{Name: "Verdict", Description: "Verdict is what happens to a ticket.",
		Schema: json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string"},"priority":{"type":"integer"},` +
			`"reasons":{"type":"array","items":{"type":"string"}}},"required":["decision","priority","reasons"]}`),
		Decode: func(data []byte) (any, error) {
			var v verdict
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
			return v, nil
		}}
}

// An agent that answers with a typed value: the tools panel names its answer type; the answer shows as a table of
// its fields while it streams (from the run's answer events, in the tab that runs it and in one that follows the
// conversation), then accepted, and again from the stored conversation, in place of its JSON text; markup in a
// field is text.
func TestTypedAnswer(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnvWith(t, s, true)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))
		p.waitText(`#tools li[data-answer="Verdict"]`, "Answers with Verdict")
		p.sendAndWait("hello")
		q := newPage(t, "b", p) // a tab that follows the conversation: it shows the run's events, and never reloads
		q.open(e.ui("tenant-a", conversationID(p)))
		q.waitText(`#watch-state`, "following")
		p.do(func() {
			p.send("slow triage 4711")
			<-e.model.waiting
			p.waitText(`#transcript .item.answer[data-final="false"] .answer-type`, "streaming")
			p.waitText(`#transcript .item.answer tr[data-field="decision"] td`, "close")
			is.Equal(p.count(`#transcript .item.answer tr`), 1) // the fields complete so far
			q.waitText(`#transcript .item.answer[data-final="false"] tr[data-field="decision"] td`, "close")
			e.model.free()
		})
		q.waitText(`#transcript .item.answer[data-final="true"] tr[data-field="priority"] td`, "2")
		q.waitText(`#timeline .live`, "answer accepted: Verdict")
		is.Equal(q.count(`#transcript .item.answer`), 1)
		is.True(!strings.Contains(q.text(`#transcript`), `{"decision"`)) // the streamed JSON text gave way to the card
		p.waitText(`#transcript .item.answer[data-final="true"] .answer-type`, "Verdict")
		p.waitText(`#transcript .item.answer[data-final="true"] .answer-type`, "accepted")
		p.waitText(`#transcript .item.answer tr[data-field="decision"] td`, "close")
		p.waitText(`#transcript .item.answer tr[data-field="priority"] td`, "2")
		p.waitText(`#transcript .item.answer tr[data-field="reasons"] td pre`, "<b>No</b> reply needed.")
		is.Equal(p.count(`#transcript .item.answer`), 1)
		is.Equal(p.count(`#transcript .item.answer b`), 0)               // a field's markup is text
		is.True(!strings.Contains(p.text(`#transcript`), `{"decision"`)) // the card, not the JSON text
	})
}

// The reasoning of a run shows while the model streams it, folded, before the run's text; stored, it shows once.
func TestLiveReasoning(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memoryStore())
	p := newPage(t, "a", nil)
	p.open(e.ui("tenant-a", ""))
	p.do(func() {
		p.send("slow think")
		<-e.model.waiting
		p.waitText(`#transcript .item.reasoning details`, "Pondering the printer.")
		p.waitText(`#timeline .live`, "reasoning")
		is.True(!eval[bool](p, `document.querySelector('#transcript .item.reasoning details').open`))
		e.model.free()
	})
	p.waitText(`#transcript .item.assistant`, "Streaming slowly and done.")
	is.Equal(p.count(`#transcript .item.reasoning`), 1)
	is.True(!strings.Contains(p.text(`#transcript`), "sig-slow"))
}
