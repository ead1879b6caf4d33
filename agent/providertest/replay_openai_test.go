package providertest_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestReplayResponses replays real exchanges with OpenAI's Responses API (testdata/recorded/openai/PROVENANCE.md).
func TestReplayResponses(t *testing.T) {
	newClient := func(strict bool) func(t *testing.T, baseURL string) chat.Client {
		return func(t *testing.T, baseURL string) chat.Client {
			return openai.NewResponses(option.WithBaseURL(baseURL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0)).WithStrictTools(strict)
		}
	}
	weather := "What's the weather in Florence,Italy?"
	arithmetic := "Add and multiply the number 2 and 3"
	// charmbracelet/fantasy keeps no reasoning across a tool call: it sends no reasoning item back, so no item id
	// either, and asks for the encrypted reasoning only in its thinking cases. The API takes a conversation with
	// or without them; pydantic-ai's recording judges what the library sends back.
	fantasy := []providertest.Ignore{
		{Path: "input[type=reasoning]", Why: "fantasy sends no reasoning item back"},
		{Path: "input[type=function_call].id", Why: "fantasy sends no function call item id, having left its reasoning out"},
		{Path: "include", Why: "the library always asks for the encrypted reasoning, to send it back with store false; fantasy asks only when thinking"},
	}
	// pydantic-ai lets OpenAI store its responses (the API's default); the library stores none, and carries the
	// reasoning back encrypted, which it asks for on every request.
	pydantic := []providertest.Ignore{
		{Path: "store", Why: "the library sends store false; pydantic-ai leaves the API's default"},
	}
	providertest.RunReplays(t, providertest.Replayer{
		Name:       openai.ProviderName,
		Wire:       providertest.Responses,
		Recordings: os.DirFS("testdata/recorded/openai"),
		New:        newClient(false),
	}, []providertest.Replay{
		{Recording: "fantasy_simple.yaml", Ignore: fantasy, Covers: "text; reasoning tokens", Messages: user("Say hi in Portuguese"), Options: fantasyOptions(helpful)},
		{Recording: "fantasy_simple_streaming.yaml", Ignore: fantasy, Covers: "streamed text", Messages: user("Say hi in Portuguese"), Options: fantasyOptions(helpful)},
		{Recording: "fantasy_tool.yaml", Ignore: fantasy, Covers: "a tool call and its result", Messages: user(weather), Options: fantasyOptions(helpful, weatherTool())},
		{Recording: "fantasy_tool_streaming.yaml", Ignore: fantasy, Covers: "a streamed tool call and its result", Messages: user(weather), Options: fantasyOptions(helpful, weatherTool())},
		{Recording: "fantasy_multi_tool.yaml", Ignore: fantasy, Covers: "parallel calls", Messages: user(arithmetic),
			Options: fantasyOptions(helpful+". CRITICAL: Always use both add and multiply at the same time ALWAYS.", arithmeticTools()...)},
		{Recording: "fantasy_multi_tool_streaming.yaml", Ignore: fantasy, Covers: "streamed parallel calls", Messages: user(arithmetic),
			Options: fantasyOptions(helpful+". Always use both add and multiply at the same time.", arithmeticTools()...)},
		{Recording: "fantasy_thinking.yaml", Ignore: fantasy, Covers: "reasoning summaries with encrypted reasoning, a call, its follow-up", Messages: user("What's the weather in Florence, Italy?"),
			Options: func() *chat.Options {
				o := withTools(&chat.Options{Instructions: helpful}, weatherTool())
				o.Reasoning = &chat.ReasoningOptions{Effort: chat.ReasoningHigh, Summary: chat.SummaryAuto}
				return o
			}()},
		{Recording: "fantasy_object.yaml", Ignore: append(fantasy, providertest.Ignore{Path: "text.format.schema.additionalProperties", Why: "fantasy adds additionalProperties false to the schema it is given"}), Covers: "a structured answer by a JSON schema", Messages: user(personPrompt),
			Options: &chat.Options{MaxTokens: intPtr(4000), ResponseFormat: &chat.ResponseFormat{Name: "Person", Schema: personSchema}}},
		{Recording: "pydantic_image_binary.yaml", Ignore: append(pydantic,
			providertest.Ignore{Path: "include", Why: "pydantic-ai asks for the encrypted reasoning of reasoning models only"},
			providertest.Ignore{Path: "instructions", Why: "pydantic-ai sends empty instructions"}), Covers: "an image given by its bytes",
			Messages: []chat.Message{chat.UserFile("What fruit is in the image?", image(t, "openai", "pydantic_image_binary.yaml", providertest.Responses))}},
		{Recording: "pydantic_thinking_with_tool_calls.yaml", Covers: "a reasoning model's encrypted reasoning and detailed summary, a call, the follow-up sending the reasoning and the call with its item id",
			Ignore: pydantic, New: newClient(true), Messages: user(poemPrompt), Options: &chat.Options{
				Reasoning:    &chat.ReasoningOptions{Effort: chat.ReasoningLow, Summary: chat.SummaryDetailed},
				Instructions: "You are a helpful assistant that uses planning. You MUST use the update_plan tool and continually update it as you make progress against the user's prompt",
				ToolChoice:   "auto", Tools: []*toolset.Tool{{Name: "update_plan", Schema: json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string"}},"required":["plan"],"additionalProperties":false}`)}}}},
	})
}

const poemPrompt = `Compose a 12-line poem where the first letters of the odd-numbered lines form the name "SAMIRA" and the first letters of the even-numbered lines spell out "DAWOOD." Additionally, the first letter of each word in every line should create the capital of a country`
