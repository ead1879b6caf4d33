package providertest_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestReplayAnthropic replays real Messages API exchanges (testdata/recorded/anthropic/PROVENANCE.md).
func TestReplayAnthropic(t *testing.T) {
	thinking := func(budget int, o *chat.Options) *chat.Options {
		o.Reasoning = &chat.ReasoningOptions{BudgetTokens: budget}
		return o
	}
	weather := "What's the weather in Florence,Italy?"
	arithmetic := "Add and multiply the number 2 and 3"
	providertest.RunReplays(t, providertest.Replayer{
		Name:       anthropic.ProviderName,
		Wire:       providertest.Anthropic,
		Recordings: os.DirFS("testdata/recorded/anthropic"),
		New: func(t *testing.T, baseURL string) chat.Client {
			return anthropic.New(option.WithBaseURL(baseURL), option.WithAPIKey("test"), option.WithMaxRetries(0))
		},
	}, []providertest.Replay{
		{Recording: "fantasy_simple.yaml", Covers: "text", Messages: user("Say hi in Portuguese"), Options: fantasyOptions(helpful)},
		{Recording: "fantasy_simple_streaming.yaml", Covers: "streamed text", Messages: user("Say hi in Portuguese"), Options: fantasyOptions(helpful)},
		{Recording: "fantasy_tool.yaml", Covers: "a tool call and its result", Messages: user(weather), Options: fantasyOptions(helpful, weatherTool())},
		{Recording: "fantasy_tool_streaming.yaml", Covers: "a streamed tool call and its result", Messages: user(weather), Options: fantasyOptions(helpful, weatherTool())},
		{Recording: "fantasy_multi_tool.yaml", Covers: "parallel calls", Messages: user(arithmetic),
			Options: fantasyOptions(helpful+". CRITICAL: Always use both add and multiply at the same time ALWAYS.", arithmeticTools()...)},
		{Recording: "fantasy_multi_tool_streaming.yaml", Covers: "streamed parallel calls", Messages: user(arithmetic),
			Options: fantasyOptions(helpful+". Always use both add and multiply at the same time.", arithmeticTools()...)},
		{Recording: "fantasy_thinking.yaml", Covers: "signed thinking, a tool call, the thinking sent back",
			Messages: user("What's the weather in Florence, Italy?"), Options: thinking(4000, withTools(&chat.Options{Instructions: helpful}, weatherTool()))},
		{Recording: "fantasy_thinking_streaming.yaml", Covers: "streamed signed thinking, a tool call, the thinking sent back",
			Messages: user("What's the weather in Florence, Italy?"), Options: thinking(4000, withTools(&chat.Options{Instructions: helpful}, weatherTool()))},
		{Recording: "fantasy_image.yaml", Covers: "an image given by its bytes",
			Messages: []chat.Message{chat.UserFile("Describe the image briefly in English.", image(t, "anthropic", "fantasy_image.yaml", providertest.Anthropic))},
			Options:  fantasyOptions(helpful)},
		{Recording: "fantasy_object.yaml", Covers: "a structured answer through a forced tool call",
			Messages: user(personPrompt), Options: &chat.Options{MaxTokens: intPtr(4000), ParallelToolCalls: boolPtr(true), ToolChoice: "Person",
				Tools: []*toolset.Tool{{Name: "Person", Description: "A person with name, age, and city", Schema: personSchema}}}},
		{Recording: "pydantic_thinking_redacted.yaml", Covers: "redacted thinking sent back on the next turn",
			Messages: user(redactedTrigger), FollowUps: [][]chat.Message{user("What was that?")}, Options: thinking(1024, &chat.Options{MaxTokens: intPtr(4096)})},
		{Recording: "pydantic_cache.yaml", Covers: "automatic prompt caching asked for through Extra; cache reads and writes in the usage",
			Messages: user(strings.Repeat("Please explain what Python is and its main use cases. ", 100)), FollowUps: [][]chat.Message{user("Can you summarize that in one sentence?")},
			Options: &chat.Options{Instructions: "You are a helpful assistant.", MaxTokens: intPtr(4096),
				Extra: map[string]json.RawMessage{"cache_control": json.RawMessage(`{"type":"ephemeral","ttl":"5m"}`)}}},
	})
}

// redactedTrigger is the prompt Anthropic documents for a test of redacted thinking.
const redactedTrigger = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB"
