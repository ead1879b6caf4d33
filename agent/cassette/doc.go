// Package cassette records a test's exchanges with its model at the HTTP layer and replays them, so that an
// agent's tests run offline and in CI from what a real model once answered, through the provider's own SDK.
//
// A [Recorder] is an [http.RoundTripper]. Give it to the provider's client as its HTTP client's transport:
//
//	rec := cassette.New(t, "testdata/cassettes/"+t.Name()+".txt", &cassette.Options{Redact: []string{"user"}})
//	client := openai.New(option.WithHTTPClient(rec.Client()), option.WithMaxRetries(0))
//
// By default it replays: each request is answered by the first unused recorded exchange whose method, path,
// query and body match, the body compared as a JSON value (key order and spacing aside); headers are not
// compared, since they vary from one run to the next. A request that matches none fails the test and returns a
// [*MissError] that lists the fields that differ from the next unused exchange, each with its recorded and new
// value. A test that ends with exchanges it never asked for fails too (see [Options.AllowUnused]). Replay never
// reaches the network.
//
// With TYPESHIFT_RECORD=1 in the environment (or [Options.Mode] Record) it sends each request on, to the real
// API, and writes the cassette when the test ends, unless the test failed.
//
// # The file
//
// A cassette is a txtar archive of text, one request file and one response file per exchange:
//
//	-- 1/request --
//	POST /v1/chat/completions
//	Authorization: [scrubbed]
//	Content-Type: application/json
//
//	{
//	  "messages": [ ... ],
//	  "model": "gpt-4.1-mini"
//	}
//	-- 1/response --
//	200 OK
//	Content-Type: text/event-stream
//
//	data: {"choices":[{"delta":{"content":"Ticket "}}], ...}
//
//	data: [DONE]
//
// JSON bodies are indented, so that a changed prompt shows as a changed line in a review; a stream keeps its
// server-sent events as they came. The values of the headers in [ScrubbedHeaders] (API keys, cookies) and of
// [Options.Scrub] are written as [Scrubbed], keys in a query as well; headers that vary on every call (dates,
// request ids, the SDK's platform headers) are left out. [Options.Redact] names JSON fields whose values are
// written as [Redacted], in requests and responses. A body that is not UTF-8 text, or would break the archive,
// is kept in base64.
package cassette
