// Package providertest is the conformance suite every [chat.Client] of a model provider passes: plain text,
// streaming, tool calls (one, several at once, failing), approvals in the history, reasoning carried across a
// tool call and left out for another provider, images and documents in, a structured answer, usage with cached
// and reasoning tokens, each finish reason, cancellation in the middle of a stream, rate limits, overload and
// server errors, malformed and truncated streams. And what a conversation needs on its next request: the ids and
// signatures a provider wrote (a reasoning item's id, a call's own item id) sent back after the conversation was
// stored and loaded, a first user turn where the API wants one (a run on instructions alone, a history that
// begins with the model's call), [chat.Options.Extra] merged without replacing what the client set, the typed
// reasoning options, a tool's string result sent as text, and a file the API cannot take refused before any
// request.
//
// The suite runs offline. Each case replays exchanges recorded in the provider's own wire format from a local
// HTTP server: the provider's real SDK makes the request and decodes the answer, and the suite checks what the
// client made of it, and what the request carried. A provider's test hands [Run] a constructor and its fixtures:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Provider{
//			Name:     "anthropic",
//			Fixtures: os.DirFS("testdata/conformance"),
//			New: func(t *testing.T, baseURL string) chat.Client {
//				return anthropic.New(option.WithBaseURL(baseURL), option.WithAPIKey("test"), option.WithMaxRetries(0))
//			},
//			Live: func(t *testing.T) chat.Client { ... }, // nil without the API key
//			TemperatureField: "temperature",                                  // for the extra case
//			Refused:          &chat.File{MediaType: "image/tiff", Data: tiff}, // for the refused_file case
//		})
//	}
//
// # Fixtures
//
// Fixtures holds one txtar archive per case, named after it (text.txtar, tool_call.txtar, ...; [Cases] lists
// them with what each expects). A case without a fixture is skipped, naming what the provider does not
// support. An archive holds the exchanges of the case in order:
//
//	status: 429                 the HTTP status of the first answer (default 200); status.2 for the second
//	header: Retry-After: 7      a header of the first answer; header.2 for the second
//	usage: input=2000 output=300 total=2300 cache_read=1800 cache_write=100 reasoning=120
//	hold: true                  keep the stream open after the body, until the client goes (the cancel case)
//	-- response --
//	the body of the first answer: JSON, or a server-sent event stream (text/event-stream when it begins with
//	"event:", "data:" or ":")
//	-- want --
//	one line per text the first request must contain, as it appears in the JSON the SDK sends
//	-- reject --
//	one line per text the first request must not contain
//	-- response.2 --
//	the second answer; want.2 and reject.2 check the second request
//
// The values each case expects (the answer's text, the tool calls' names and arguments) are fixed by the suite
// and listed in [Cases]; fixtures are written from the provider's API reference and its SDK's own test data, so
// that the SDK decodes them exactly as it decodes the provider's answers.
//
// # Live runs
//
// When Provider.Live returns a client (its API key is in the environment), the suite also sends the plain text,
// streaming and tool call cases to the real API and checks the shape of the answers. Without the key they are
// skipped, in CI too.
//
// # Real recorded exchanges
//
// [RunReplays] replays exchanges that other projects' test suites recorded against the real APIs ([Recorded]
// holds the suite's own, [Recordings] their files with their provenance): a local server plays each recording's
// answers in order to a client of its wire, and the suite compares every request the client sends with the
// recorded one, as JSON values in canonical form without the places an [Ignore] names, every answer the client
// decodes with what the recorded answer holds, and fails on an interaction left unplayed. After each answer the
// client's own messages go back, with the recorded tool results: what the API needs in a follow-up (item ids,
// signatures, call ids) must be there. Where a recording ends with a structured answer (native, or through a
// forced answer tool), the answer must come back whole. docs/replay.md lists the recordings and how to add one.
//
// [Serve] plays a recording behind a client a test drives itself, such as a run's answer stage on a provider
// pointed at [Playback.URL]; [Playback.Check] then holds the requests it received to the recorded ones.
// [RecordedAnswers] lists the structured answer replays and [StructuredAnswer] reads an answer out of a response.
package providertest
