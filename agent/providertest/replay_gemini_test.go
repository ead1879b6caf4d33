package providertest_test

import (
	"encoding/json"
	"os"
	"testing"

	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/providertest"
	"github.com/typeshift-go/typeshift/toolset"
)

// TestReplayGemini replays real generateContent and streamGenerateContent exchanges
// (testdata/recorded/gemini/PROVENANCE.md).
func TestReplayGemini(t *testing.T) {
	weather := "What's the weather in Florence,Italy?"
	arithmetic := "Add and multiply the number 2 and 3"
	include := true
	thinking := func(o *chat.Options, r chat.ReasoningOptions) *chat.Options {
		r.IncludeThoughts = &include
		o.Reasoning = &r
		return o
	}
	// pydantic-ai's requests: text answers only, and the tools the model may call listed even when they are all.
	pydantic := []providertest.Ignore{
		{Path: "generationConfig.responseModalities", Why: `pydantic-ai asks for ["TEXT"], the API's default for these models`},
		{Path: "toolConfig.functionCallingConfig.allowedFunctionNames", Why: "pydantic-ai lists every tool it offers, which is what mode ANY allows without a list"},
	}
	emptyObject := json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	providertest.RunReplays(t, providertest.Replayer{
		Name:       gemini.ProviderName,
		Wire:       providertest.Gemini,
		Recordings: os.DirFS("testdata/recorded/gemini"),
		New: func(t *testing.T, baseURL string) chat.Client {
			c, err := gemini.New(t.Context(), &genai.ClientConfig{APIKey: "test", Backend: genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
			if err != nil {
				t.Fatal(err)
			}
			return c
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
		{Recording: "fantasy_gemini3_tool.yaml", Covers: "Gemini 3: a call with its thought signature, sent back on the call's part",
			Messages: user(weather), Options: fantasyOptions(helpful, weatherTool())},
		{Recording: "fantasy_gemini3_multi_tool_streaming.yaml", Covers: "Gemini 3: streamed parallel calls, the signature on the first call only",
			Messages: user(arithmetic), Options: fantasyOptions(helpful+". Always use both add and multiply at the same time.", arithmeticTools()...)},
		{Recording: "fantasy_gemini3_thinking.yaml", Covers: "Gemini 3: thoughts asked for, a signed call, its follow-up",
			Messages: user("What's the weather in Florence, Italy?"),
			Options:  thinking(withTools(&chat.Options{Instructions: helpful}, weatherTool()), chat.ReasoningOptions{Effort: chat.ReasoningHigh})},
		{Recording: "fantasy_thinking_streaming.yaml", Covers: "Gemini 2.5: streamed thoughts with a budget, a call, its follow-up; thought tokens",
			Messages: user("What's the weather in Florence, Italy?"),
			Options:  thinking(withTools(&chat.Options{Instructions: helpful}, weatherTool()), chat.ReasoningOptions{BudgetTokens: 128})},
		{Recording: "fantasy_object.yaml", Covers: "a structured answer by a JSON schema", Messages: user(personPrompt),
			Options: &chat.Options{MaxTokens: intPtr(4000), ResponseFormat: &chat.ResponseFormat{Name: "Person", Schema: personSchema}}},
		{Recording: "fantasy_image.yaml", Covers: "an image given by its bytes",
			Messages: []chat.Message{chat.UserFile("Describe the image briefly in English.", image(t, "gemini", "fantasy_image.yaml", providertest.Gemini))},
			Options:  fantasyOptions(helpful)},
		{Recording: "pydantic_instructions_only_with_tool_calls.yaml", Covers: "a run on instructions alone: the contents begin with a user turn; five rounds of calls, signatures on the right parts",
			Options: &chat.Options{Instructions: "Tell three jokes. Generate topics with the generate_topic tool.", ToolChoice: "required", Tools: []*toolset.Tool{
				{Name: "generate_topic", Schema: emptyObject},
				{Name: "final_result", Description: "The final response which ends this conversation",
					Schema: json.RawMessage(`{"type":"object","properties":{"response":{"type":"array","items":{"type":"string"}}},"required":["response"]}`)},
			}}, Ignore: append(pydantic, providertest.Ignore{Path: "contents[0].parts[0].text",
				Why: "the text of the user turn put first when a conversation has none: pydantic-ai sends an empty text, the library a word"})},
		{Recording: "pydantic_streaming_tool_call_thought_signature.yaml", Covers: "a streamed call whose signature arrives with it, sent back on its part",
			Messages: user("What is the capital of the user country? Call the tool"),
			Options:  &chat.Options{Tools: []*toolset.Tool{{Name: "get_country", Schema: emptyObject}}}, Ignore: pydantic},
	})
}
