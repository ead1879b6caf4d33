// Package chattest holds offline [chat.Client]s for tests, examples and programs run without an API key.
//
// [TestModel] needs nothing but the tools it is offered: on its first turn it calls each of them once, with
// arguments it builds from the tool's JSON Schema (valid against it, the same for the same seed), and once the
// results are back it answers with text that reports what each tool returned or why it failed. It exercises a
// whole run — the tool loop, argument decoding, approvals — without a model.
//
// [FuncModel] answers with whatever a test's function returns, and [Script] answers with scripted responses (or
// functions of the request, [Script.ReplyFunc]) in order while it records each request, for assertions on what a
// run sent.
//
// Every client here streams too (text split into word deltas, or as [Script.SplitText] says; tool calls whole;
// usage last) and reports usage,
// estimated deterministically as one token per four bytes when a response does not set it.
package chattest
