// Package openai is the [chat.Client] of OpenAI's Chat Completions API, built on the official
// github.com/openai/openai-go/v3 SDK. It works with any server that speaks the same wire format (vLLM, Ollama,
// LM Studio, Azure and other gateways): point it at the server with a base URL.
//
//	c := openai.New()                                             // OPENAI_API_KEY, OPENAI_BASE_URL
//	c := openai.New(option.WithBaseURL("http://localhost:11434/v1"), option.WithAPIKey("unused"))
//
// Requests carry every part of the conversation the provider understands: text, the assistant's tool calls, tool
// results as "tool" messages answering their call ids, and author names. Approval requests and answers belong to
// the run pipeline and are never sent. Streams yield text deltas as they arrive and each tool call once, whole,
// when the model has finished it; usage comes last. A tool's string result is sent as its text.
//
// [ResponsesClient] is the client of the Responses API, for reasoning models: it keeps each reasoning item (its
// summary parts, its encrypted content) and each function call's own item id with the conversation, and sends
// them back so that the model goes on reasoning across tool rounds. [chat.Options.Reasoning] sets the effort and
// the summary on either API; [chat.Options.Extra] merges into the request and never replaces what it sets.
//
// Failures the API reports are [*chat.ProviderError]s with the status code and, for rate limits, the wait the
// server asked for; the SDK's [*openai.Error] stays reachable through errors.As. Messages never carry the API key.
//
// Package openaitest serves the same wire format from a local test server, for tests and benchmarks without a
// network.
package openai
