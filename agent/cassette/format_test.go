package cassette_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/cassette"
)

func sample() *cassette.Cassette {
	return &cassette.Cassette{Exchanges: []cassette.Exchange{
		{
			Request: cassette.Request{Method: "POST", URL: "/v1/chat/completions?x=1", Header: http.Header{"Content-Type": {"application/json"}},
				Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)},
			Response: cassette.Response{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: []byte("data: {\"a\":1}\n\ndata: [DONE]\n\n")},
		},
		{
			Request:  cassette.Request{Method: "GET", URL: "/v1/models"},
			Response: cassette.Response{Status: 200, Body: []byte("\x00\xffbinary")},
		},
		{
			Request:  cassette.Request{Method: "POST", URL: "/x", Body: []byte("text\n-- 1/response --\nmore\n")},
			Response: cassette.Response{Status: 429, Header: http.Header{"Retry-After": {"7"}}, Body: []byte("no final newline")},
		},
	}}
}

// What Format writes, Parse reads back: JSON indented, streams as they came, any other body exactly (binary,
// marker lines and a missing final newline in base64).
func TestFormatRoundTrip(t *testing.T) {
	is := is.New(t)
	c := sample()
	data := cassette.Format(c)
	text := string(data)
	is.True(strings.Contains(text, "-- 1/request --\nPOST /v1/chat/completions?x=1\n"))
	is.True(strings.Contains(text, "\n  \"model\": \"m\"")) // JSON indented
	is.True(strings.Contains(text, "data: [DONE]\n"))       // the stream as text
	is.True(strings.Contains(text, "Typeshift-Body-Encoding: base64"))
	back, err := cassette.Parse(data)
	is.NoErr(err)
	is.Equal(len(back.Exchanges), 3)
	is.Equal(string(back.Exchanges[0].Response.Body), string(c.Exchanges[0].Response.Body))
	is.Equal(string(back.Exchanges[1].Response.Body), string(c.Exchanges[1].Response.Body))
	is.Equal(string(back.Exchanges[2].Request.Body), string(c.Exchanges[2].Request.Body))
	is.Equal(string(back.Exchanges[2].Response.Body), "no final newline")
	is.Equal(back.Exchanges[2].Response.Status, 429)
	is.Equal(back.Exchanges[2].Response.Header.Get("Retry-After"), "7")
	is.Equal(back.Exchanges[0].Request.URL, "/v1/chat/completions?x=1")
	is.True(bytes.Equal(cassette.Format(back), data)) // stable
}

func TestParseRefusesMalformed(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"odd files", "-- 1/request --\nGET /\n\n", "each exchange needs"},
		{"misnamed", "-- 1/request --\nGET /\n\n-- 2/response --\n200\n\n", "want \"1/request\""},
		{"no path", "-- 1/request --\nGET\n\n-- 1/response --\n200\n\n", "want METHOD /path"},
		{"bad status", "-- 1/request --\nGET /\n\n-- 1/response --\nOK\n\n", "want a status code"},
		{"no blank line", "-- 1/request --\nGET /\nA: b\n-- 1/response --\n200\n\n", "does not end with an empty line"},
		{"bad header", "-- 1/request --\nGET /\nnocolon\n\n-- 1/response --\n200\n\n", "want Name: value"},
		{"bad base64", "-- 1/request --\nGET /\nTypeshift-Body-Encoding: base64\n\n!!!\n-- 1/response --\n200\n\n", "base64"},
		{"unknown encoding", "-- 1/request --\nGET /\nTypeshift-Body-Encoding: gzip\n\n-- 1/response --\n200\n\n", "want base64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := cassette.Parse([]byte(tc.data))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // the error says what is wrong
		})
	}
}

// Parse never panics, and what it reads, Format writes and Parse reads back the same.
func FuzzParse(f *testing.F) {
	f.Add(cassette.Format(sample()))
	f.Add([]byte("-- 1/request --\nGET /\n\n-- 1/response --\n200\n\n"))
	f.Add([]byte("comment only\n"))
	f.Add([]byte("-- 1/request --\nPOST /a\nX: y\n\n{\"a\":[1,2]}\n-- 1/response --\n500 Internal\n\ndata: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cassette.Parse(data)
		if err != nil {
			return
		}
		out := cassette.Format(c)
		back, err := cassette.Parse(out)
		if err != nil {
			t.Fatalf("Format wrote what Parse refuses: %v\n%s", err, out)
		}
		if again := cassette.Format(back); !bytes.Equal(again, out) {
			t.Fatalf("not stable:\n%s\n---\n%s", out, again)
		}
	})
}
