// Package anthropic is the [chat.Client] for Anthropic's Claude models, over the Messages API of the official
// SDK, github.com/anthropics/anthropic-sdk-go.
//
//	providers := chat.NewProviders()
//	anthropic.Register(providers) // reads ANTHROPIC_API_KEY
//	client, err := providers.Client(ctx, anthropic.ProviderName, "claude-sonnet-4-5")
//
// It streams, calls tools (several at once), sends images and PDFs, answers in a JSON schema, and keeps Claude's
// extended thinking: thinking and redacted thinking blocks become [chat.Reasoning] parts that the conversation
// stores and that go back to Claude, signatures intact, with the tool results that follow them; another
// provider never sees them. Where the run marks a stable prefix ([chat.Options.CacheMessages]), the request
// carries prompt-caching breakpoints on the tools, the system prompt and the end of that prefix, and usage
// reports the cached tokens read and written ([chat.Options.CacheTTL]: five minutes or an hour).
// [chat.Options.Reasoning] sets the thinking of a request over the client's [Client.WithThinking]; the messages
// begin with a user turn, as the API wants, even on instructions alone.
//
// The SDK's own retries are off: the caller decides when to try again (errors are [*chat.ProviderError]s with
// the status, 429's Retry-After and 529's overload). Claude on Amazon Bedrock or Google Vertex is the same
// client over the SDK's options for them (packages bedrock and vertex of the SDK), passed to [New].
package anthropic
