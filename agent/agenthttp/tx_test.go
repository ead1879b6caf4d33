package agenthttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/internal/streambench"
)

// adkTransactions is what Google's Agent Development Kit for Go commits on Postgres for the same one-tool turn: the
// most a run of this library may send.
const adkTransactions = 13

// longAnswer is the model's answer after the tool's result: 220 words, streamed a word a delta.
var longAnswer = strings.TrimSpace(strings.Repeat("Ticket 4711 about the printer is open and waiting for a technician. ", 20))

// searchThenAnswer searches the tickets when the last message is the user's, and answers with longAnswer once it
// has the result.
var searchThenAnswer = chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
	if msgs[len(msgs)-1].Role == chat.RoleTool {
		return chattest.Text(longAnswer), nil
	}
	return chattest.Calls(chattest.Call("call-search", "search_tickets", `{"query":"printer"}`)), nil
})

// TestRunTransactions counts the Postgres transactions of one HTTP run that calls one tool and answers with 220
// words, asked for as a JSON
// answer with nobody watching: a conversation's first run, and a turn of an existing conversation, which must
// commit no more than adkTransactions. Everything the process sends on the store's pool, and on the connections
// the store opens from its configuration, is counted, until the store has been quiet for 200 ms after the answer.
func TestRunTransactions(t *testing.T) {
	pg := streambench.OpenPostgres(t, &streambench.PGOptions{AsyncCommit: true})
	e := newEnv(t, pg.Store, func(cfg *agent.Config, _ *agenthttp.Options) { cfg.Client = searchThenAnswer })
	var id string
	cases := []struct {
		name   string
		path   func() string
		status int
	}{
		{"first run", func() string { return "/conversations" }, http.StatusCreated},
		{"turn", func() string { return "/conversations/" + id + "/runs" }, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			before := pg.Counter.Settle(200*time.Millisecond, 5*time.Second)
			resp := e.do(req{method: "POST", path: c.path(), token: tokenA, body: map[string]any{"text": "search printer"},
				header: map[string]string{"Accept": "application/json"}})
			is.Equal(resp.status, c.status)
			var res runResult
			resp.json(t, &res)
			is.Equal(res.Text, longAnswer) // the tool ran and the model answered
			id = res.ConversationID
			got := pg.Counter.Settle(200*time.Millisecond, 5*time.Second).Sub(before)
			t.Logf("%s: %d transactions, %d statements", c.name, got.Tx, got.Stmts)
			if c.name != "turn" {
				return
			}
			is.True(got.Tx <= adkTransactions) // no more transactions than ADK for Go commits for the same turn
		})
	}
}
