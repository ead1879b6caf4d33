// Package chat is the small model abstraction that runs are built on: a [Client] answers a list of
// [Message]s, whole or streamed, under [Options]. Providers implement Client (see package openai), and every
// stage of a run is a Client that wraps another: decorators compose with [Chain], the first listed outermost.
package chat
