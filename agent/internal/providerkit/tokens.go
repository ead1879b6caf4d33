package providerkit

// EstimateTokens is the rough count of tokens in n bytes of text or JSON that the local test servers report as
// usage, as providers count roughly: a token per four bytes, rounded up.
func EstimateTokens(n int) int64 { return int64((n + 3) / 4) }
