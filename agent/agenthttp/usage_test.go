package agenthttp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

// A stored run's end records its usage, so that a client reading the conversation later shows it per run.
func TestRunEndUsage(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		res := e.create(tokenA, "search printer")
		is.True(res.Usage.TotalTokens > 0)
		resp := e.do(req{method: "GET", path: "/conversations/" + res.ConversationID, token: tokenA})
		is.Equal(resp.status, http.StatusOK)
		var conv struct {
			Entries []struct {
				Type string          `json:"type"`
				Data json.RawMessage `json:"data"`
			} `json:"entries"`
		}
		resp.json(t, &conv)
		last := conv.Entries[len(conv.Entries)-1]
		is.Equal(last.Type, "run_end")
		var end struct {
			Usage struct {
				InputTokens  int64 `json:"input_tokens"`
				OutputTokens int64 `json:"output_tokens"`
				TotalTokens  int64 `json:"total_tokens"`
			} `json:"usage"`
		}
		is.NoErr(json.Unmarshal(last.Data, &end))
		is.Equal(end.Usage.TotalTokens, res.Usage.TotalTokens) // the run's two model calls together
		is.Equal(end.Usage.InputTokens+end.Usage.OutputTokens, end.Usage.TotalTokens)
	})
}
