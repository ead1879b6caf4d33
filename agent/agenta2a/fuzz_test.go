package agenta2a_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenta2a"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/examples/tickets"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// FuzzRequests sends arbitrary bodies to the JSON-RPC endpoint: every answer is HTTP 200 with a JSON-RPC response
// holding a result or an error, never a 5xx, a panic or a hang.
func FuzzRequests(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hello"}]}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"message/send","params":{"message":{"role":"user","taskId":"a~3","parts":[{"kind":"data","data":{"approval":{"requestId":"r","approved":true,"arguments":{"a":1}}}}]}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"role":"user","contextId":"c","parts":[{"kind":"file","file":{"bytes":"aGk=","mimeType":"image/png"}}]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"abc~12","historyLength":-1}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"id":""}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tasks/pushNotificationConfig/set","params":{}}`,
		`[]`, `null`, `{"jsonrpc":"2.0"}`,
	} {
		f.Add(s)
	}
	store := memory.New()
	host, err := agent.NewHost(&desk{}, agent.Config{
		Toolsets: []toolset.Source{&tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}},
		Client:   chattest.FuncModel((&model{release: make(chan struct{}), waiting: make(chan struct{}, 1)}).respond),
		Store:    store,
	})
	if err != nil {
		f.Fatal(err)
	}
	h, err := agenta2a.New(host, agenta2a.Options{Authenticate: authenticate, Store: store, RunTimeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if strings.Contains(body, `message/stream`) || strings.Contains(body, `tasks/resubscribe`) {
			return // streams are driven by the clients' tests; a fuzzed one may follow a run for its whole timeout
		}
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+tokenA)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || (resp.Result == nil && resp.Error == nil) {
			t.Fatalf("not a JSON-RPC response for %q: %s", body, w.Body)
		}
	})
}
