package providerkit_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
)

// FuzzParseRetryAfter checks that no Retry-After value reads as a negative wait.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "7", "0.5", "-1", "1e9", "NaN", "Inf", "Wed, 21 Oct 2015 07:28:00 GMT", "soon"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := providerkit.ParseRetryAfter(v, now); d < 0 {
			t.Errorf("ParseRetryAfter(%q) = %s", v, d)
		}
	})
}

// FuzzMerge checks that a merge either fails with a conflict (or on JSON that is not JSON) and leaves the body
// as it was, or keeps every value of the body and adds every key of extra.
func FuzzMerge(f *testing.F) {
	f.Add(`{"a":1,"g":{"t":0.5}}`, `{"g":{"k":true}}`)
	f.Add(`{"a":1}`, `{"a":2}`)
	f.Add(`{"a":{"b":{"c":1}}}`, `{"a":{"b":{"d":[1]}},"e":null}`)
	f.Fuzz(func(t *testing.T, bodyJSON, extraJSON string) {
		v, err := providerkit.Decode([]byte(bodyJSON))
		body, ok := v.(map[string]any)
		if err != nil || !ok {
			return
		}
		var extra map[string]json.RawMessage
		if json.Unmarshal([]byte(extraJSON), &extra) != nil {
			return
		}
		before, _ := json.Marshal(body)
		err = providerkit.Merge("p", body, extra)
		after, _ := json.Marshal(body)
		if err != nil {
			if !errors.Is(err, chat.ErrInvalidRequest) {
				t.Fatalf("error %v is not chat.ErrInvalidRequest", err)
			}
			if string(before) != string(after) {
				t.Fatalf("a failed merge changed the body: %s, then %s", before, after)
			}
			return
		}
		var was map[string]any
		_ = json.Unmarshal(before, &was)
		var is map[string]any
		_ = json.Unmarshal(after, &is)
		if !keeps(is, was) {
			t.Fatalf("merging %s into %s lost a value: %s", extraJSON, before, after)
		}
		for k := range extra {
			if _, ok := is[k]; !ok {
				t.Fatalf("merging %s into %s left out %q: %s", extraJSON, before, k, after)
			}
		}
	})
}

// keeps reports whether every value of was is in is, objects compared key by key.
func keeps(is, was map[string]any) bool {
	for k, w := range was {
		v, ok := is[k]
		if !ok {
			return false
		}
		wm, wok := w.(map[string]any)
		vm, vok := v.(map[string]any)
		if wok && vok {
			if !keeps(vm, wm) {
				return false
			}
			continue
		}
		a, _ := json.Marshal(w)
		b, _ := json.Marshal(v)
		if string(a) != string(b) {
			return false
		}
	}
	return true
}
