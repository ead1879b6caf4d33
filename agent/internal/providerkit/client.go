package providerkit

// RetriesOff returns an SDK's request options with off first, the option that turns the SDK's own retries off
// (option.WithMaxRetries(0) in the OpenAI and Anthropic SDKs): the host's retry decorator is the one loop that
// tries again, so retries are never stacked, and an option among opts may still turn them back on.
func RetriesOff[O any](off O, opts []O) []O {
	return append([]O{off}, opts...)
}
