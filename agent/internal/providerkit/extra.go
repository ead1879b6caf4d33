package providerkit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Merge merges extra into body, a request body decoded with [Decode]: a key body lacks is added; where both
// hold an object the two merge key by key, at any depth; any other key both hold is a [*chat.ExtraConflictError]
// naming its path, unless both hold the same value. body is changed only when the whole merge succeeds.
func Merge(provider string, body map[string]any, extra map[string]json.RawMessage) error {
	if len(extra) == 0 {
		return nil
	}
	add := make(map[string]any, len(extra))
	for k, raw := range extra {
		v, err := Decode(raw)
		if err != nil {
			return fmt.Errorf("%s: Options.Extra[%q]: %w: %w", provider, k, chat.ErrInvalidRequest, err)
		}
		add[k] = v
	}
	if err := check(provider, "", body, add); err != nil {
		return err
	}
	merge(body, add)
	return nil
}

// ExtraFields returns the top-level fields to set over req (an SDK's request parameters, encoded with
// encoding/json as the SDK sends them) so that extra merges into it as [Merge] says: for a key req lacks, the
// extra value; for an object both hold, req's object with extra's merged in.
func ExtraFields(provider string, req any, extra map[string]json.RawMessage) (map[string]any, error) {
	if len(extra) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: encode the request: %w", provider, err)
	}
	v, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: decode the request: %w", provider, err)
	}
	body, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the request is not a JSON object", provider)
	}
	if err := Merge(provider, body, extra); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(extra))
	for k := range extra {
		out[k] = body[k]
	}
	return out, nil
}

// Decode decodes JSON keeping numbers as written (json.Number), so that a merged body says what it was given.
func Decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// check reports the first key of add that would replace a value of body, under path.
func check(provider, path string, body, add map[string]any) error {
	for k, v := range add {
		have, ok := body[k]
		if !ok {
			continue
		}
		p := k
		if path != "" {
			p = path + "." + k
		}
		hm, hok := have.(map[string]any)
		am, aok := v.(map[string]any)
		if hok && aok {
			if err := check(provider, p, hm, am); err != nil {
				return err
			}
			continue
		}
		if !same(have, v) {
			return &chat.ExtraConflictError{Provider: provider, Field: p}
		}
	}
	return nil
}

// merge adds add to body; check has found nothing it would replace.
func merge(body, add map[string]any) {
	for k, v := range add {
		if hm, ok := body[k].(map[string]any); ok {
			if am, ok := v.(map[string]any); ok {
				merge(hm, am)
				continue
			}
		}
		body[k] = v
	}
}

// same reports whether two decoded values encode alike.
func same(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
