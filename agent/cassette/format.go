package cassette

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/tools/txtar"
)

// An Exchange is one request to the model's API and the answer it got.
type Exchange struct {
	Request  Request
	Response Response
}

// Request is a recorded request: what replay matches on, and the headers kept for a reader.
type Request struct {
	Method string
	// URL is the path and the query, without scheme and host, so that a cassette recorded against one endpoint
	// replays against any.
	URL    string
	Header http.Header
	Body   []byte
}

// Response is a recorded answer. A streamed answer's Body holds its server-sent events as they came.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// A Cassette is a test's recorded exchanges, in the order they were made.
type Cassette struct {
	Exchanges []Exchange
}

// encodingHeader marks a body kept in base64: one that is not UTF-8 text, or holds a line the archive would
// read as a file marker.
const encodingHeader = "Typeshift-Body-Encoding"

const comment = "typeshift cassette: each exchange a request and its response, in order.\nRecord it again with TYPESHIFT_RECORD=1 go test (see docs/testing-agents.md).\n"

// Format writes c as text: a txtar archive whose files are "N/request" and "N/response", each a first line
// (method and URL, or status), header lines, an empty line and the body. JSON bodies are indented.
func Format(c *Cassette) []byte {
	a := &txtar.Archive{Comment: []byte(comment)}
	for i, ex := range c.Exchanges {
		n := strconv.Itoa(i + 1)
		a.Files = append(a.Files,
			txtar.File{Name: n + "/request", Data: section(ex.Request.Method+" "+ex.Request.URL, ex.Request.Header, ex.Request.Body)},
			txtar.File{Name: n + "/response", Data: section(strconv.Itoa(ex.Response.Status)+" "+http.StatusText(ex.Response.Status), ex.Response.Header, ex.Response.Body)})
	}
	return txtar.Format(a)
}

func section(first string, h http.Header, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(first)
	b.WriteByte('\n')
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Del(encodingHeader)
	text := pretty(body)
	if !safeText(text) {
		h.Set(encodingHeader, "base64")
		text = []byte(base64.StdEncoding.EncodeToString(body) + "\n")
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	b.WriteByte('\n')
	b.Write(text)
	return b.Bytes()
}

// pretty indents a JSON body and leaves any other as it is.
func pretty(body []byte) []byte {
	if len(body) == 0 {
		return nil
	}
	if json.Valid(body) {
		var b bytes.Buffer
		if json.Indent(&b, bytes.TrimSpace(body), "", "  ") == nil {
			b.WriteByte('\n')
			return b.Bytes()
		}
	}
	return body
}

// safeText says whether body can stand in the archive as it is: UTF-8, ending in a newline, no line that would
// read as a file marker, and no carriage return the archive would lose.
func safeText(body []byte) bool {
	if len(body) == 0 {
		return true
	}
	if !utf8.Valid(body) || body[len(body)-1] != '\n' || bytes.ContainsRune(body, '\r') {
		return false
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			return false
		}
	}
	return true
}

// Parse reads a cassette written by [Format]. It fails, naming the file, on anything else.
func Parse(data []byte) (*Cassette, error) {
	a := txtar.Parse(data)
	if len(a.Files)%2 != 0 {
		return nil, fmt.Errorf("cassette: %d files; each exchange needs a request and a response", len(a.Files))
	}
	c := &Cassette{}
	for i := 0; i < len(a.Files); i += 2 {
		n := strconv.Itoa(i/2 + 1)
		req, resp := a.Files[i], a.Files[i+1]
		if req.Name != n+"/request" || resp.Name != n+"/response" {
			return nil, fmt.Errorf("cassette: files %q and %q; want %q and %q", req.Name, resp.Name, n+"/request", n+"/response")
		}
		first, h, body, err := readSection(req.Data)
		if err != nil {
			return nil, fmt.Errorf("cassette: %s: %w", req.Name, err)
		}
		method, url, ok := strings.Cut(first, " ")
		if !ok || method == "" || !strings.HasPrefix(url, "/") {
			return nil, fmt.Errorf("cassette: %s: first line %q; want METHOD /path", req.Name, first)
		}
		ex := Exchange{Request: Request{Method: method, URL: url, Header: h, Body: body}}
		first, h, body, err = readSection(resp.Data)
		if err != nil {
			return nil, fmt.Errorf("cassette: %s: %w", resp.Name, err)
		}
		code, _, _ := strings.Cut(first, " ")
		status, err := strconv.Atoi(code)
		if err != nil || status < 100 || status > 999 {
			return nil, fmt.Errorf("cassette: %s: first line %q; want a status code", resp.Name, first)
		}
		ex.Response = Response{Status: status, Header: h, Body: body}
		c.Exchanges = append(c.Exchanges, ex)
	}
	return c, nil
}

func readSection(data []byte) (first string, h http.Header, body []byte, err error) {
	s := string(data)
	first, s, ok := strings.Cut(s, "\n")
	if !ok {
		return "", nil, nil, fmt.Errorf("no header block")
	}
	h = http.Header{}
	for {
		var line string
		line, s, ok = strings.Cut(s, "\n")
		if !ok {
			return "", nil, nil, fmt.Errorf("the header block does not end with an empty line")
		}
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return "", nil, nil, fmt.Errorf("header line %q; want Name: value", line)
		}
		h.Add(k, v)
	}
	body = []byte(s)
	if h.Get(encodingHeader) == "base64" {
		body, err = base64.StdEncoding.DecodeString(strings.TrimSpace(s))
		if err != nil {
			return "", nil, nil, fmt.Errorf("base64 body: %w", err)
		}
	} else if enc := h.Get(encodingHeader); enc != "" {
		return "", nil, nil, fmt.Errorf("%s %q; want base64", encodingHeader, enc)
	}
	h.Del(encodingHeader)
	if len(h) == 0 {
		h = nil
	}
	if len(body) == 0 {
		body = nil
	}
	return first, h, body, nil
}
