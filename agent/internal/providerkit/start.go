package providerkit

// StartText is the user turn a provider puts first when the API wants a user turn first (Anthropic, Gemini) and
// the history has none there: a run on instructions alone, or a history whose first turn is the model's. The same
// text on every request of a conversation keeps its prefix the same, for the provider's cache.
const StartText = "Begin."
