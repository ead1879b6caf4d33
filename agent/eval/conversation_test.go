package eval_test

import (
	"bytes"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/storage"
)

// Whatever messages a conversation holds, FromMessages never panics, and a case it makes is one ParseCase
// accepts: the file it writes loads as the same expectations.
func FuzzFromMessages(f *testing.F) {
	f.Add([]byte(`[{"role":"user","parts":[{"type":"text","text":"Is ticket 4711 open?"}]},` +
		`{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_ticket","arguments":{"number":4711}}]},` +
		`{"role":"tool","parts":[{"type":"tool_result","call_id":"c1","result":{"open":true}}]},` +
		`{"role":"assistant","parts":[{"type":"text","text":"It is open."}]}]`))
	f.Add([]byte(`[{"role":"user","parts":[{"type":"text","text":"Close 4711"}]},` +
		`{"role":"assistant","parts":[{"type":"approval_request","id":"r1","call":{"id":"c1","name":"close_ticket","arguments":"x"}}]},` +
		`{"role":"tool","parts":[{"type":"tool_result","call_id":"c1","error":"denied"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := chat.UnmarshalMessages(data)
		if err != nil {
			return
		}
		c, err := eval.FromMessages(msgs)
		if err != nil {
			return
		}
		out, err := c.MarshalIndent()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := eval.ParseCase(out)
		if err != nil {
			t.Fatalf("the case made does not load: %v\n%s", err, out)
		}
		if again.Expect.Trajectory == nil || again.Expect.Approvals == nil ||
			len(again.Expect.Trajectory.Calls) != len(c.Expect.Trajectory.Calls) || len(*again.Expect.Approvals) != len(*c.Expect.Approvals) {
			t.Fatalf("the case loads as another: %s", out)
		}
	})
}

// Whatever a conversation's stored entries hold, FromEntries never panics, and a case it makes is one ParseCase
// accepts.
func FuzzFromEntries(f *testing.F) {
	f.Add("input", []byte(`[{"role":"user","parts":[{"type":"text","text":"Close 4711"}]}]`),
		"approval_requests", []byte(`[{"role":"assistant","parts":[{"type":"approval_request","id":"r1","call":{"id":"c1","name":"close_ticket","arguments":{"number":4711}}}]}]`))
	f.Add("summary", []byte(`{"messages":[{"role":"user","parts":[{"type":"text","text":"Hi"}]}]}`),
		"response", []byte(`[{"role":"assistant","parts":[{"type":"text","text":"Hello"}]}]`))
	f.Add("input", []byte(`[{"role":"user"`), "run_end", []byte(`{}`))
	f.Fuzz(func(t *testing.T, type1 string, data1 []byte, type2 string, data2 []byte) {
		c, err := eval.FromEntries([]storage.Entry{
			{Seq: 1, Type: storage.EntryType(type1), Data: data1},
			{Seq: 2, Type: storage.EntryType(type2), Data: data2},
		})
		if err != nil {
			return
		}
		out, err := c.MarshalIndent()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if _, err := eval.ParseCase(out); err != nil {
			t.Fatalf("the case made does not load: %v\n%s", err, out)
		}
	})
}

// Results that read back write the same.
func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`[{"suite":"TestEvals","case":"a","passed":true,"scores":[{"name":"rounds","value":1,"reason":"ok"}],"runs":3,"passed_runs":2}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := eval.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := eval.WriteJSON(&b, rs); err != nil {
			return // a value JSON cannot write (NaN is not among those it reads)
		}
		again, err := eval.ReadJSON(&b)
		if err != nil || len(again) != len(rs) {
			t.Fatalf("results written do not read back: %v", err)
		}
		eval.Compare(rs, again)
	})
}
