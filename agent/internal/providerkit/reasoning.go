package providerkit

import "github.com/typeshift-go/typeshift/agent/chat"

// Budget returns the token budget an effort stands for on APIs that take a budget (Anthropic, Gemini 2.x):
// minimal 1,024 (the least Claude takes), low 4,096, medium 10,000, high 24,576 (Gemini 2.5 Flash's most); zero
// for none and for an effort it does not know.
func Budget(e chat.ReasoningEffort) int {
	switch e {
	case chat.ReasoningMinimal:
		return 1024
	case chat.ReasoningLow:
		return 4096
	case chat.ReasoningMedium:
		return 10000
	case chat.ReasoningHigh:
		return 24576
	}
	return 0
}

// Effort returns the effort a token budget stands for on APIs that take an effort (OpenAI), the least whose
// [Budget] holds it; high beyond.
func Effort(budget int) chat.ReasoningEffort {
	for _, e := range []chat.ReasoningEffort{chat.ReasoningMinimal, chat.ReasoningLow, chat.ReasoningMedium} {
		if budget <= Budget(e) {
			return e
		}
	}
	return chat.ReasoningHigh
}

// ValidEffort reports whether e is one of the efforts chat names, or empty.
func ValidEffort(e chat.ReasoningEffort) bool {
	switch e {
	case "", chat.ReasoningNone, chat.ReasoningMinimal, chat.ReasoningLow, chat.ReasoningMedium, chat.ReasoningHigh:
		return true
	}
	return false
}
