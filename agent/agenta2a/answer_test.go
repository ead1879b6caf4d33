package agenta2a_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/answertest"
	"github.com/typeshift-go/typeshift/storage"
)

// triageVerdict is the answer the triage agent's model gives.
const triageVerdict = `{"decision":"close","priority":4,"reasons":["It works again."]}`

// newTriageEnv serves the triage agent, whose answer is a Verdict, over A2A on store.
func newTriageEnv(t *testing.T, store storage.Store) *env {
	t.Helper()
	model := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return chattest.Text(triageVerdict), nil
	})
	host, err := agent.NewHost(&answertest.Triage{Mode: agent.AnswerNative}, agent.Config{Client: model, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h, err := agenta2a.New(host, agenta2a.Options{Authenticate: authenticate, Store: store,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/a2a/", http.StripPrefix("/a2a", h))
	e := &env{t: t, store: store, host: host, srv: httptest.NewServer(mux)}
	t.Cleanup(e.srv.Close)
	return e
}

// checkAnswerArtifact checks that an answer artifact holds the answer's JSON text, then its value as a data part
// with the answer type's name.
func checkAnswerArtifact(t *testing.T, art *a2a.Artifact) {
	t.Helper()
	is := is.New(t)
	is.Equal(len(art.Parts), 2)
	is.Equal(art.Parts[0].(a2a.TextPart).Text, triageVerdict) // the answer as the model wrote it, for text readers
	data, ok := art.Parts[1].(a2a.DataPart)
	is.True(ok) // the value, for clients that read data
	is.Equal(data.Metadata[agenta2a.MetaAnswerType], "Verdict")
	got, err := json.Marshal(data.Data)
	is.NoErr(err)
	var v answertest.Verdict
	is.NoErr(json.Unmarshal(got, &v))
	is.Equal(v.Decision, "close")
	is.Equal(v.Priority, 4)
	is.Equal(v.Reasons, []string{"It works again."})
}

// A task of an agent with a typed answer completes with the answer as a data part of its answer artifact:
// sent whole, read again, and streamed.
func TestTypedAnswerArtifact(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newTriageEnv(t, s)
		c := e.client(tokenA)
		task := send(t, c, "", a2a.TextPart{Text: "The printer works again."})
		is.Equal(task.Status.State, a2a.TaskStateCompleted)
		is.Equal(len(task.Artifacts), 1)
		checkAnswerArtifact(t, task.Artifacts[0])
		got, err := c.GetTask(context.Background(), &a2a.TaskQueryParams{ID: task.ID})
		is.NoErr(err)
		checkAnswerArtifact(t, got.Artifacts[0])

		var last *a2a.Artifact
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "And the scanner?"})
		msg.ContextID = task.ContextID
		for ev, err := range c.SendStreamingMessage(context.Background(), &a2a.MessageSendParams{Message: msg}) {
			is.NoErr(err)
			if u, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok && u.LastChunk {
				last = u.Artifact
			}
		}
		is.True(last != nil)
		checkAnswerArtifact(t, last)
	})
}
