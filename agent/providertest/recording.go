package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// A Recording is an exchange with a model's real API, as another project's test suite recorded it: its
// interactions in the order they were made.
type Recording struct {
	// Name is the file the recording was read from.
	Name         string
	Interactions []Interaction
}

// An Interaction is one recorded request and the answer the API gave it.
type Interaction struct {
	Method string
	// URL is the request's URL as recorded: scheme, host, path and query.
	URL string
	// RequestBody is the request's body, JSON for every API the suite knows.
	RequestBody []byte
	// Status and Header are those of the answer; Body is the answer's body (a stream's server-sent events as
	// they came).
	Status int
	Header http.Header
	Body   []byte
}

// LoadRecording reads a recording from fsys. It reads the two YAML cassette formats public test suites record
// real APIs with: go-vcr's (version 2: "version: 2", each body a string) and VCR.py's (each body a string, or,
// as pydantic-ai writes them, a parsed_body holding the JSON as YAML, or a response body's "string").
func LoadRecording(fsys fs.FS, name string) (*Recording, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	rec, err := ParseRecording(data)
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", name, err)
	}
	rec.Name = name
	return rec, nil
}

// cassette is the union of the two formats' fields.
type cassette struct {
	Version      int `yaml:"version"`
	Interactions []struct {
		Request struct {
			Body       any                 `yaml:"body"`
			ParsedBody any                 `yaml:"parsed_body"`
			URL        string              `yaml:"url"` // go-vcr
			URI        string              `yaml:"uri"` // VCR.py
			Method     string              `yaml:"method"`
			Headers    map[string][]string `yaml:"headers"`
		} `yaml:"request"`
		Response struct {
			Body       any                 `yaml:"body"`
			ParsedBody any                 `yaml:"parsed_body"`
			Headers    map[string][]string `yaml:"headers"`
			Code       int                 `yaml:"code"`   // go-vcr
			Status     any                 `yaml:"status"` // go-vcr: "200 OK"; VCR.py: {code, message}
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// ParseRecording reads a recording from the bytes of a cassette (see [LoadRecording]).
func ParseRecording(data []byte) (*Recording, error) {
	var c cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	if len(c.Interactions) == 0 {
		return nil, fmt.Errorf("no interactions")
	}
	rec := &Recording{}
	for i, in := range c.Interactions {
		u := in.Request.URL
		if u == "" {
			u = in.Request.URI
		}
		if _, err := url.Parse(u); err != nil || u == "" {
			return nil, fmt.Errorf("interaction %d: url %q", i+1, u)
		}
		reqBody, err := body(in.Request.Body, in.Request.ParsedBody)
		if err != nil {
			return nil, fmt.Errorf("interaction %d: request: %w", i+1, err)
		}
		respBody, err := body(in.Response.Body, in.Response.ParsedBody)
		if err != nil {
			return nil, fmt.Errorf("interaction %d: response: %w", i+1, err)
		}
		status := in.Response.Code
		switch s := in.Response.Status.(type) {
		case map[string]any:
			if n, ok := s["code"].(int); ok {
				status = n
			}
		case string:
			if status == 0 {
				code, _, _ := strings.Cut(s, " ")
				status, _ = strconv.Atoi(code)
			}
		}
		if status < 100 || status > 999 {
			return nil, fmt.Errorf("interaction %d: no status", i+1)
		}
		h := http.Header{}
		for k, vs := range in.Response.Headers {
			for _, v := range vs {
				h.Add(k, v)
			}
		}
		rec.Interactions = append(rec.Interactions, Interaction{
			Method: strings.ToUpper(in.Request.Method), URL: u, RequestBody: reqBody,
			Status: status, Header: h, Body: respBody,
		})
	}
	return rec, nil
}

// body returns a recorded body: a string as it is, VCR.py's {string: ...} as its string, a parsed body as JSON.
func body(raw, parsed any) ([]byte, error) {
	if parsed != nil {
		return toJSON(parsed)
	}
	switch b := raw.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(b), nil
	case map[string]any:
		if s, ok := b["string"].(string); ok {
			return []byte(s), nil
		}
		if b["string"] == nil {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("body of type %T", raw)
}

// toJSON writes a YAML value as JSON, keeping its key order out of it: the comparison is semantic.
func toJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonValue(v)); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}
