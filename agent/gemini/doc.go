// Package gemini is the [chat.Client] of Google's Gemini models, built on the official google.golang.org/genai
// SDK: the Gemini API, or Vertex AI through the SDK's own configuration.
//
//	c, err := gemini.New(ctx, nil)                      // GEMINI_API_KEY (or GOOGLE_API_KEY)
//	c, err := gemini.New(ctx, &genai.ClientConfig{      // Vertex AI
//		Backend: genai.BackendVertexAI, Project: "my-project", Location: "us-central1",
//	})
//	err := gemini.Register(ctx, &providers, nil)        // "gemini", any model
//
// Requests carry the conversation as Gemini's contents: user and model turns, the system instructions apart,
// function calls and their responses (each response names its function and answers its call's id; an error goes
// in "error", a result in "output"), images and documents inline or by URL. Tools are function declarations
// whose parametersJsonSchema is the tool's schema brought into Gemini's subset by [schemaprofile.Gemini]; a
// response format asks for JSON with responseJsonSchema. Approval parts belong to the run pipeline and are never
// sent. The contents begin with a user turn, as Gemini wants, even on instructions alone or a history that begins
// with the model's call; [chat.Options.Reasoning] becomes the thinkingConfig; [chat.Options.Extra] merges into
// the body (into generationConfig beside what the options set), and a file Gemini cannot take is refused before
// the request.
//
// Answers yield text and thoughts as they come and each function call whole. A call Gemini sends without an id
// gets one made up (prefixed gemini_call_), which is not sent back. Thoughts become [chat.Reasoning] parts, and
// a thought signature on a text or a function call becomes a reasoning part just before it (joined with the
// thoughts that led to it). The signature goes back on the part it came with, so that a thinking model accepts
// its earlier turns; the thoughts' text, a summary, is not sent back. Reasoning is left out when a conversation
// moves to another provider. Usage counts the thoughts in the output and the cached
// tokens among the input.
//
// Failures are [*chat.ProviderError]s with the status, Gemini's status name as the code, and the wait asked for
// (Retry-After, or a google.rpc.RetryInfo detail); the SDK's [APIError] stays reachable with errors.As. The SDK's
// retries and its automatic continuation of cut streams are off: the host's retry decorator decides.
package gemini
