package providertest

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// recorded holds the real exchanges the suite replays, one directory per wire format, each with the
// PROVENANCE.md that names every file's source, commit, licence and hash.
//
//go:embed testdata/recorded
var recorded embed.FS

// recordedDirs are the directories of recorded, per wire format.
var recordedDirs = map[Wire]string{Anthropic: "anthropic", Gemini: "gemini", Responses: "openai", Chat: "openai-chat"}

// Recordings returns the real exchanges of a wire format that the suite holds, with their PROVENANCE.md, or nil
// for a wire it holds none of.
func Recordings(w Wire) fs.FS {
	dir, ok := recordedDirs[w]
	if !ok {
		return nil
	}
	sub, err := fs.Sub(recorded, "testdata/recorded/"+dir)
	if err != nil {
		return nil
	}
	return sub
}

// Recorded returns the suite's replays of a wire format's recordings: what a user gave each conversation before
// its first request, as the project that recorded it gave it. A client of that wire passes them with
//
//	replays, err := providertest.Recorded(providertest.Anthropic)
//	...
//	providertest.RunReplays(t, providertest.Replayer{Name: ..., Wire: providertest.Anthropic, New: ...}, replays)
//
// Their Ignore lists name what the recording projects sent that the library does not, and why.
func Recorded(w Wire) ([]Replay, error) {
	var rs []Replay
	switch w {
	case Anthropic:
		rs = anthropicReplays()
	case Gemini:
		rs = geminiReplays()
	case Responses:
		rs = responsesReplays()
	case Chat:
		rs = chatReplays()
	default:
		return nil, fmt.Errorf("providertest: no recordings of wire %q", w)
	}
	rs = append(rs, answerReplays(w)...)
	rs = append(rs, fantasyStreamedAnswers(w, fantasyResponsesIgnores)...)
	// The images are the recordings' own, read from their first request.
	for i := range rs {
		for j, m := range rs[i].Messages {
			for k, p := range m.Parts {
				if f, ok := p.(chat.File); ok && f.Data == nil && f.URL == "" {
					img, err := RecordedImage(Recordings(w), rs[i].Recording, w)
					if err != nil {
						return nil, err
					}
					parts := append([]chat.Part(nil), m.Parts...)
					parts[k] = img
					rs[i].Messages[j].Parts = parts
				}
			}
		}
	}
	return rs, nil
}

// The prompts and tools of charmbracelet/fantasy's provider tests.
const (
	helpful        = "You are a helpful assistant"
	weatherPrompt  = "What's the weather in Florence,Italy?"
	weatherPrompt2 = "What's the weather in Florence, Italy?"
	arithmetic     = "Add and multiply the number 2 and 3"
	bothAtOnce     = helpful + ". Always use both add and multiply at the same time."
	bothAtOnceCaps = helpful + ". CRITICAL: Always use both add and multiply at the same time ALWAYS."
	personPrompt   = "Generate information about a person named Alice who is 30 years old and lives in Paris."
	describe       = "Describe the image briefly in English."
)

func weatherTool() *toolset.Tool {
	return &toolset.Tool{Name: "weather", Description: "Get weather information for a location",
		Schema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}
}

func arithmeticTools() []*toolset.Tool {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`)
	return []*toolset.Tool{
		{Name: "add", Description: "Add two numbers", Schema: schema},
		{Name: "multiply", Description: "Multiply two numbers", Schema: schema},
	}
}

var personSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The person's name"},"age":{"type":"integer","description":"The person's age"},"city":{"type":"string","description":"The city where the person lives"}},"required":["name","age","city"]}`)

// alice is the answer of fantasy's structured answer recordings.
var alice = json.RawMessage(`{"name":"Alice","age":30,"city":"Paris"}`)

var emptyObject = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

func user(text string) []chat.Message { return []chat.Message{chat.UserText(text)} }

// withImage is a user's text and the image of the recording's first request (filled in by Recorded).
func withImage(text string) []chat.Message { return []chat.Message{chat.UserFile(text, chat.File{})} }

func ptr[T any](v T) *T { return &v }

// fantasyOptions are the options of fantasy's common cases: its instructions, 4000 tokens, and with tools an
// explicit automatic choice that allows parallel calls.
func fantasyOptions(instructions string, tools ...*toolset.Tool) *chat.Options {
	return withTools(&chat.Options{Instructions: instructions, MaxTokens: ptr(4000)}, tools...)
}

func withTools(o *chat.Options, tools ...*toolset.Tool) *chat.Options {
	if len(tools) > 0 {
		o.Tools, o.ToolChoice, o.ParallelToolCalls = tools, "auto", ptr(true)
	}
	return o
}

func withReasoning(o *chat.Options, r chat.ReasoningOptions) *chat.Options {
	o.Reasoning = &r
	return o
}

// fantasyCommon are fantasy's six common cases, the same for every provider.
func fantasyCommon(ignore []Ignore) []Replay {
	return []Replay{
		{Recording: "fantasy_simple.yaml", Covers: "text", Messages: user("Say hi in Portuguese"), Options: fantasyOptions(helpful), Ignore: ignore},
		{Recording: "fantasy_simple_streaming.yaml", Covers: "streamed text", Messages: user("Say hi in Portuguese"), Options: fantasyOptions(helpful), Ignore: ignore},
		{Recording: "fantasy_tool.yaml", Covers: "a tool call and its result", Messages: user(weatherPrompt), Options: fantasyOptions(helpful, weatherTool()), Ignore: ignore},
		{Recording: "fantasy_tool_streaming.yaml", Covers: "a streamed tool call and its result", Messages: user(weatherPrompt), Options: fantasyOptions(helpful, weatherTool()), Ignore: ignore},
		{Recording: "fantasy_multi_tool.yaml", Covers: "parallel calls and their results", Messages: user(arithmetic), Options: fantasyOptions(bothAtOnceCaps, arithmeticTools()...), Ignore: ignore},
		{Recording: "fantasy_multi_tool_streaming.yaml", Covers: "streamed parallel calls and their results", Messages: user(arithmetic), Options: fantasyOptions(bothAtOnce, arithmeticTools()...), Ignore: ignore},
	}
}

func anthropicReplays() []Replay {
	return append(fantasyCommon(nil),
		Replay{Recording: "fantasy_thinking.yaml", Covers: "signed thinking, a tool call, the thinking sent back with the result",
			Messages: user(weatherPrompt2), Options: withReasoning(withTools(&chat.Options{Instructions: helpful}, weatherTool()), chat.ReasoningOptions{BudgetTokens: 4000})},
		Replay{Recording: "fantasy_thinking_streaming.yaml", Covers: "streamed signed thinking, a tool call, the thinking sent back with the result",
			Messages: user(weatherPrompt2), Options: withReasoning(withTools(&chat.Options{Instructions: helpful}, weatherTool()), chat.ReasoningOptions{BudgetTokens: 4000})},
		Replay{Recording: "fantasy_image.yaml", Covers: "an image given by its bytes", Messages: withImage(describe), Options: fantasyOptions(helpful)},
		Replay{Recording: "fantasy_object.yaml", Covers: "a structured answer through a forced tool call",
			Messages: user(personPrompt), Options: &chat.Options{MaxTokens: ptr(4000), ParallelToolCalls: ptr(true), ToolChoice: "Person",
				Tools: []*toolset.Tool{{Name: "Person", Description: "A person with name, age, and city", Schema: personSchema}}},
			Answer: alice, AnswerTool: "Person"},
		Replay{Recording: "pydantic_thinking_redacted.yaml", Covers: "redacted thinking, sent back on the next turn",
			// the prompt Anthropic documents for a test of redacted thinking
			Messages:  user("ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB"),
			FollowUps: [][]chat.Message{user("What was that?")},
			Options:   withReasoning(&chat.Options{MaxTokens: ptr(4096)}, chat.ReasoningOptions{BudgetTokens: 1024})},
		Replay{Recording: "pydantic_cache.yaml", Covers: "automatic prompt caching asked for through Extra; cache reads and writes in the usage",
			Messages:  user(strings.Repeat("Please explain what Python is and its main use cases. ", 100)),
			FollowUps: [][]chat.Message{user("Can you summarize that in one sentence?")},
			Options: &chat.Options{Instructions: "You are a helpful assistant.", MaxTokens: ptr(4096),
				Extra: map[string]json.RawMessage{"cache_control": json.RawMessage(`{"type":"ephemeral","ttl":"5m"}`)}}},
	)
}

func geminiReplays() []Replay {
	thoughts := func(r chat.ReasoningOptions) chat.ReasoningOptions { r.IncludeThoughts = ptr(true); return r }
	// pydantic-ai asks for text answers only, and lists the tools the model may call even when they are all.
	pydantic := []Ignore{
		{Path: "generationConfig.responseModalities", Why: `pydantic-ai asks for ["TEXT"], the API's default for these models`},
		{Path: "toolConfig.functionCallingConfig.allowedFunctionNames", Why: "pydantic-ai lists every tool it offers, which is what mode ANY allows without a list"},
	}
	return append(fantasyCommon(nil),
		Replay{Recording: "fantasy_gemini3_tool.yaml", Covers: "Gemini 3: a call with its thought signature, sent back on the call's part",
			Messages: user(weatherPrompt), Options: fantasyOptions(helpful, weatherTool())},
		Replay{Recording: "fantasy_gemini3_multi_tool_streaming.yaml", Covers: "Gemini 3: streamed parallel calls, the signature on the first call only",
			Messages: user(arithmetic), Options: fantasyOptions(bothAtOnce, arithmeticTools()...)},
		Replay{Recording: "fantasy_gemini3_thinking.yaml", Covers: "Gemini 3: thoughts asked for at a level, a signed call, its follow-up",
			Messages: user(weatherPrompt2), Options: withReasoning(withTools(&chat.Options{Instructions: helpful}, weatherTool()), thoughts(chat.ReasoningOptions{Effort: chat.ReasoningHigh}))},
		Replay{Recording: "fantasy_thinking_streaming.yaml", Covers: "Gemini 2.5: streamed thoughts within a budget, a call, its follow-up; thought tokens",
			Messages: user(weatherPrompt2), Options: withReasoning(withTools(&chat.Options{Instructions: helpful}, weatherTool()), thoughts(chat.ReasoningOptions{BudgetTokens: 128}))},
		Replay{Recording: "fantasy_object.yaml", Covers: "a structured answer by a JSON schema", Messages: user(personPrompt),
			Options: &chat.Options{MaxTokens: ptr(4000), ResponseFormat: &chat.ResponseFormat{Name: "Person", Schema: personSchema}}, Answer: alice},
		Replay{Recording: "fantasy_image.yaml", Covers: "an image given by its bytes", Messages: withImage(describe), Options: fantasyOptions(helpful)},
		Replay{Recording: "pydantic_instructions_only_with_tool_calls.yaml",
			Covers: "a run on instructions alone: the contents begin with a user turn; five rounds of calls with their signatures on the right parts",
			Options: &chat.Options{Instructions: "Tell three jokes. Generate topics with the generate_topic tool.", ToolChoice: "required", Tools: []*toolset.Tool{
				{Name: "generate_topic", Schema: emptyObject},
				{Name: "final_result", Description: "The final response which ends this conversation",
					Schema: json.RawMessage(`{"type":"object","properties":{"response":{"type":"array","items":{"type":"string"}}},"required":["response"]}`)},
			}},
			Ignore: append(pydantic, Ignore{Path: "contents[0].parts[0].text",
				Why: "the text of the user turn put first when a conversation has none: pydantic-ai sends an empty text, the library a word"})},
		Replay{Recording: "pydantic_streaming_tool_call_thought_signature.yaml", Covers: "a streamed call whose signature arrives with it, sent back on its part",
			Messages: user("What is the capital of the user country? Call the tool"),
			Options:  &chat.Options{Tools: []*toolset.Tool{{Name: "get_country", Schema: emptyObject}}}, Ignore: pydantic},
		Replay{Recording: "pydantic_video_url_cached.yaml", Covers: "a video by URL with its media type; implicitly cached tokens and thought tokens in the usage",
			Messages: []chat.Message{chat.UserFile("Explain me this video in a few sentences",
				chat.File{URL: "https://m.youtube.com/watch?v=lCdaVNyHtjU", MediaType: "video/mp4"})},
			Options: &chat.Options{Instructions: "You are a helpful chatbot."}, Ignore: pydantic},
	)
}

// fantasyResponsesIgnores are what fantasy leaves out of a Responses conversation: it keeps no reasoning across a
// tool call, so sends no reasoning item back and no item id either, and asks for the encrypted reasoning only in
// its thinking cases. The API takes a conversation with or without them; pydantic-ai's recording judges what a
// client sends back.
var fantasyResponsesIgnores = []Ignore{
	{Path: "input[type=reasoning]", Why: "fantasy sends no reasoning item back"},
	{Path: "input[type=function_call].id", Why: "fantasy sends no function call item id, having left its reasoning out"},
	{Path: "include", Why: "a client that sends its reasoning back with store false asks for it encrypted on every request; fantasy asks only when thinking"},
}

func responsesReplays() []Replay {
	fantasy := fantasyResponsesIgnores
	// pydantic-ai lets OpenAI store its responses (the API's default).
	pydantic := []Ignore{{Path: "store", Why: "a client may keep no response at OpenAI (store false); pydantic-ai leaves the API's default"}}
	return append(fantasyCommon(fantasy),
		Replay{Recording: "fantasy_thinking.yaml", Ignore: fantasy, Covers: "reasoning summaries with encrypted reasoning, a call, its follow-up",
			Messages: user(weatherPrompt2), Options: withReasoning(withTools(&chat.Options{Instructions: helpful}, weatherTool()),
				chat.ReasoningOptions{Effort: chat.ReasoningHigh, Summary: chat.SummaryAuto})},
		Replay{Recording: "fantasy_object.yaml", Covers: "a structured answer by a JSON schema", Messages: user(personPrompt),
			Options: &chat.Options{MaxTokens: ptr(4000), ResponseFormat: &chat.ResponseFormat{Name: "Person", Schema: personSchema}},
			Ignore:  append(fantasy, Ignore{Path: "text.format.schema.additionalProperties", Why: "fantasy adds additionalProperties false to the schema it is given"}),
			Answer:  alice},
		Replay{Recording: "pydantic_image_url.yaml", Covers: "an image given by its URL",
			Messages: []chat.Message{chat.UserFile("hello", chat.File{URL: "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg"})},
			Ignore: append(pydantic,
				Ignore{Path: "include", Why: "pydantic-ai asks for the encrypted reasoning of reasoning models only"},
				Ignore{Path: "instructions", Why: "pydantic-ai sends empty instructions"})},
		Replay{Recording: "pydantic_thinking_with_tool_calls.yaml",
			Covers:      "a reasoning model's encrypted reasoning with five summary parts, a call, the follow-up sending the reasoning and the call with its item id",
			StrictTools: true, Ignore: pydantic, Messages: user(`Compose a 12-line poem where the first letters of the odd-numbered lines form the name "SAMIRA" and the first letters of the even-numbered lines spell out "DAWOOD." Additionally, the first letter of each word in every line should create the capital of a country`),
			Options: &chat.Options{
				Reasoning:    &chat.ReasoningOptions{Effort: chat.ReasoningLow, Summary: chat.SummaryDetailed},
				Instructions: "You are a helpful assistant that uses planning. You MUST use the update_plan tool and continually update it as you make progress against the user's prompt",
				ToolChoice:   "auto", Tools: []*toolset.Tool{{Name: "update_plan", Schema: json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string"}},"required":["plan"],"additionalProperties":false}`)}}}},
	)
}

func chatReplays() []Replay {
	return append(fantasyCommon(nil),
		Replay{Recording: "fantasy_object.yaml", Covers: "a structured answer by a strict JSON schema", Messages: user(personPrompt),
			Options: &chat.Options{MaxTokens: ptr(4000), ResponseFormat: &chat.ResponseFormat{Name: "Person", Strict: true, Schema: personSchema}},
			Ignore:  []Ignore{{Path: "response_format.json_schema.description", Why: "fantasy describes the schema; chat.ResponseFormat carries no description"}},
			Answer:  alice},
		Replay{Recording: "fantasy_image_gpt5.yaml", Covers: "an image given by its bytes; reasoning tokens", Messages: withImage(describe), Options: fantasyOptions(helpful)},
		Replay{Recording: "fantasy_gpt5_tool.yaml", Covers: "a reasoning model's tool call and its result; reasoning tokens", Messages: user(weatherPrompt), Options: fantasyOptions(helpful, weatherTool())},
	)
}
