package cassette_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
	openaisdk "github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/cassette"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/answertest"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// answerRun is what a run of an agent with a typed answer gave: its result's answer and value, and the answer
// updates of its stream, in order.
type answerRun struct {
	answer  string
	value   answertest.Verdict
	updates []string // "partial <json>" or "final <json>"
}

// runTriage runs the triage agent once, streamed, through the OpenAI SDK whose HTTP client is rec's, against
// baseURL.
func runTriage(t *testing.T, rec *cassette.Recorder, baseURL string) answerRun {
	t.Helper()
	out, err := runTriageIn(t, rec, baseURL, agent.AnswerAuto)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runTriageIn is runTriage with the agent's answer mode, returning the run's error.
func runTriageIn(t *testing.T, rec *cassette.Recorder, baseURL string, mode agent.AnswerMode) (answerRun, error) {
	t.Helper()
	var providers chat.Providers
	providers.Register("openai", openai.Factory(openaisdk.WithBaseURL(baseURL), openaisdk.WithAPIKey(secretKey),
		openaisdk.WithHTTPClient(rec.Client()), openaisdk.WithMaxRetries(0)))
	host, err := agent.NewHost(&answertest.Triage{Provider: "openai", Mode: mode, Retries: 2}, agent.Config{Providers: &providers})
	if err != nil {
		t.Fatal(err)
	}
	var res agent.Result
	var out answerRun
	for u, err := range host.RunStream(t.Context(), agent.Text("The database is down and nobody can log in."), agent.ResultInto(&res)) {
		if err != nil {
			return out, err
		}
		if u.Answer != nil {
			out.updates = append(out.updates, map[bool]string{false: "partial ", true: "final "}[u.Answer.Final]+string(u.Answer.Value))
		}
	}
	out.answer = string(res.Answer)
	out.value, err = agent.AnswerOf[answertest.Verdict](&res)
	return out, err
}

// A run with a typed answer is recorded through the OpenAI SDK (native structured output, the first answer
// refused by the agent's validator and sent back, the second accepted), then replayed with the server gone: the
// run asks the same, and its answer, its decoded value and its streamed partial values come back the same.
func TestRecordThenReplayTypedAnswer(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "answer.txt")
	const unassigned = `{"decision":"escalate","priority":1,"reasons":["The database is down."],"assignee":null}`
	const assigned = `{"decision":"escalate","priority":1,"reasons":["The database is down."],"assignee":"dba-on-call"}`
	srv := openaitest.NewServer(openaitest.Reply{Text: unassigned}, openaitest.Reply{Text: assigned})
	var recorded answerRun
	t.Run("record", func(t *testing.T) {
		rec := cassette.New(t, path, &cassette.Options{Mode: cassette.Record})
		recorded = runTriage(t, rec, srv.URL)
	})
	is.Equal(len(srv.Requests()), 2) // the refused answer, then the accepted one
	srv.Close()
	is.Equal(recorded.answer, assigned)
	is.Equal(*recorded.value.Assignee, "dba-on-call")
	is.Equal(recorded.updates[len(recorded.updates)-1], "final "+assigned)
	is.True(len(recorded.updates) > 2) // partial values streamed before the answer was accepted

	data, err := os.ReadFile(path)
	is.NoErr(err)
	is.True(strings.Contains(string(data), `"response_format"`))              // the request asked for the answer type
	is.True(strings.Contains(string(data), answertest.ErrNoAssignee.Error())) // and the refusal went back to the model

	t.Run("replay", func(t *testing.T) {
		is := is.New(t)
		rec := cassette.New(t, path, &cassette.Options{Mode: cassette.Replay})
		replayed := runTriage(t, rec, srv.URL)
		is.NoErr(rec.Err())
		is.Equal(replayed.answer, recorded.answer)
		is.Equal(replayed.value.Decision, recorded.value.Decision)
		is.Equal(*replayed.value.Assignee, *recorded.value.Assignee)
		is.Equal(replayed.updates, recorded.updates)
	})

	// The recorded requests are the judge: the same agent asking for its answer with the answer tool instead of
	// structured output misses the recording.
	t.Run("another mode misses", func(t *testing.T) {
		is := is.New(t)
		c := &capture{TB: t}
		rec := cassette.New(c, path, &cassette.Options{Mode: cassette.Replay, AllowUnused: true})
		_, err := runTriageIn(t, rec, srv.URL, agent.AnswerTool)
		is.True(errors.Is(err, cassette.ErrMiss))
		is.True(len(c.errors) > 0)
		is.True(strings.Contains(strings.Join(c.errors, "\n"), "final_result"))
	})
}
