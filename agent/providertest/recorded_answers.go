package providertest

import (
	"encoding/json"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// AnswerTool is the name of the tool an answer is asked for through, where a provider's native structured output
// cannot be used: the tool's input schema is the answer's schema, and the call's arguments are the answer. It is
// the name pydantic-ai's tool output gives it, whose recordings the suite replays.
const AnswerTool = "final_result"

// The prompts, tools and answer schemas of pydantic-ai's structured output tests: a model asked for a city and
// its country, which first calls a tool that says which country the user is in.
const (
	cityPrompt    = "What is the largest city in the user country?"
	answerToolDoc = "The final response which ends this conversation"
	paymentPrompt = "Return exactly this payment amount: 12.34"
)

// citySchema is pydantic-ai's CityLocation, as it sends it where no profile rewrites it.
var citySchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"]}`)

// paymentSchema is pydantic-ai's Payment, whose amount is a Decimal: a number, or a string of digits whose
// pattern has a lookahead, which neither OpenAI's strict mode nor Claude's structured outputs take.
var paymentSchema = json.RawMessage(`{"type":"object","properties":{"amount":{"anyOf":[{"type":"number"},{"type":"string","pattern":"^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$"}]}},"required":["amount"]}`)

// userCountry is the tool the model calls first: no arguments.
func userCountry() *toolset.Tool { return &toolset.Tool{Name: "get_user_country", Schema: emptyObject} }

// answerTool is the tool an answer is asked for through, as the answer stage offers it.
func answerTool(schema json.RawMessage) *toolset.Tool {
	return &toolset.Tool{Name: AnswerTool, Description: answerToolDoc, Schema: schema}
}

// pydanticAnswerIgnores are what pydantic-ai sends in every structured output recording that the library does
// not, per wire.
var pydanticAnswerIgnores = map[Wire][]Ignore{
	Responses: {
		{Path: "store", Why: "a client may keep no response at OpenAI (store false); pydantic-ai leaves the API's default"},
		{Path: "include", Why: "pydantic-ai asks for the encrypted reasoning of reasoning models only"},
	},
	Chat: {
		{Path: "n", Why: "pydantic-ai asks for one choice, the API's default"},
	},
	Gemini: {
		{Path: "generationConfig.responseModalities", Why: `pydantic-ai asks for ["TEXT"], the API's default for these models`},
		{Path: "toolConfig.functionCallingConfig.allowedFunctionNames", Why: "pydantic-ai lists every tool it offers, which is what mode ANY allows without a list"},
	},
}

// answerReplays are the structured answers of a wire's recordings: in native mode (the API's own structured
// output, from chat.Options.ResponseFormat) and in tool mode (the answer tool, forced by the tool choice), each
// with the answer the last response holds.
func answerReplays(w Wire) []Replay {
	ig := pydanticAnswerIgnores[w]
	native := func(name string, strict bool, schema json.RawMessage, tools ...*toolset.Tool) *chat.Options {
		o := &chat.Options{ResponseFormat: &chat.ResponseFormat{Name: name, Schema: schema, Strict: strict}}
		if len(tools) > 0 {
			o.Tools, o.ToolChoice = tools, "auto"
		}
		return o
	}
	toolMode := func(schema json.RawMessage) *chat.Options {
		return &chat.Options{Tools: []*toolset.Tool{userCountry(), answerTool(schema)}, ToolChoice: "required"}
	}
	city := json.RawMessage(`{"city":"Mexico City","country":"Mexico"}`)
	switch w {
	case Chat:
		return []Replay{
			{Recording: "pydantic_native_output.yaml", Covers: "a structured answer by response_format, with a tool called first",
				Messages: user(cityPrompt), Options: native("result", false, citySchema, userCountry()), Ignore: ig, Answer: city},
			{Recording: "pydantic_tool_output.yaml", Covers: "a structured answer through the answer tool, a tool called first",
				Messages: user(cityPrompt), Options: toolMode(citySchema), Ignore: ig, Answer: city, AnswerTool: AnswerTool},
		}
	case Responses:
		// pydantic-ai sent its function call back without the item's id; with no reasoning before it the API
		// takes the call either way.
		noItemID := Ignore{Path: "input[type=function_call].id", Why: "pydantic-ai sent the call without its item id, which the API needs only after a reasoning item"}
		// pydantic-ai sent the empty text of its answer's call as an empty assistant message.
		emptyText := Ignore{Path: "input[role=assistant]", Why: "pydantic-ai sent the call's empty text as an empty assistant message, which says nothing"}
		return []Replay{
			{Recording: "pydantic_native_output.yaml", Covers: "a strict structured answer by text.format, with a tool called first",
				Messages: user(cityPrompt), Options: native("CityLocation", true, citySchema, userCountry()),
				Ignore: append(append([]Ignore(nil), ig...), noItemID, emptyText), Answer: city},
			{Recording: "pydantic_native_output_decimal_strict.yaml", Covers: "a strict structured answer whose pattern strict mode cannot take: moved into the description",
				Messages: user(paymentPrompt), Options: native("Payment", true, paymentSchema),
				Ignore: append(append([]Ignore(nil), ig...), Ignore{Path: "text.format.schema.properties.amount.anyOf[1].description",
					Why: "the words a library writes for a constraint it moves into the description are its own"}),
				Answer: json.RawMessage(`{"amount":12.34}`)},
			{Recording: "pydantic_tool_output.yaml", Covers: "a structured answer through the answer tool, a tool called first",
				Messages: user(cityPrompt), Options: toolMode(citySchema), Ignore: append(append([]Ignore(nil), ig...), noItemID, emptyText),
				Answer: city, AnswerTool: AnswerTool},
		}
	case Anthropic:
		titled := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"],"title":"CityLocation"}`)
		return []Replay{
			{Recording: "pydantic_native_output_decimal_strict.yaml", Covers: "a structured answer by output_config.format; a pattern Claude cannot take moved into the description",
				Messages: user(paymentPrompt), Options: withMax(native("Payment", true, paymentSchema), 4096),
				Ignore: []Ignore{{Path: "output_config.format.schema.properties.amount.anyOf[1].description",
					Why: "the words a library writes for a constraint it moves into the description are its own"}},
				Answer: json.RawMessage(`{"amount":12.34}`)},
			{Recording: "pydantic_tool_output.yaml", Covers: "a structured answer through the answer tool (tool_choice any), a tool called first",
				Messages: user(cityPrompt), Options: withMax(toolMode(titled), 4096), Answer: city, AnswerTool: AnswerTool},
		}
	case Gemini:
		described := json.RawMessage(`{"type":"object","description":"A city and its country.","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"],"title":"CityLocation"}`)
		// pydantic-ai sent Gemini 2.0 its tools in the API's OpenAPI subset, which has no additionalProperties.
		open := json.RawMessage(`{"type":"object","properties":{}}`)
		return []Replay{
			{Recording: "pydantic_native_output.yaml", Covers: "a structured answer by responseJsonSchema",
				Messages: user("What is the largest city in Mexico?"), Options: native("CityLocation", false, described), Ignore: ig,
				Answer: city},
			{Recording: "pydantic_tool_output.yaml", Covers: "a structured answer through the answer tool (mode ANY), a tool called first",
				Messages: user(cityPrompt), Options: &chat.Options{ToolChoice: "required", Tools: []*toolset.Tool{
					{Name: "get_user_country", Schema: open}, answerTool(citySchema)}},
				Ignore: ig, Answer: city, AnswerTool: AnswerTool},
		}
	}
	return nil
}

// The book of fantasy's complex structured answer: a nested object and an array.
const bookPrompt = "Generate information about 'The Lord of the Rings' book by J.R.R. Tolkien, including genres like fantasy and adventure, and its publication year (1954)."

var bookSchema = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","description":"The book title"},"author":{"type":"object","properties":{"name":{"type":"string","description":"Author's name"},"nationality":{"type":"string","description":"Author's nationality"}},"required":["name","nationality"]},"genres":{"type":"array","items":{"type":"string"},"description":"List of genres"},"published_year":{"type":"integer","description":"Year the book was published"}},"required":["title","author","genres","published_year"]}`)

// fantasyStreamedAnswers are fantasy's structured answers streamed, a flat one and a nested one, per wire: the
// answer arrives in pieces (Gemini's splits a string in two), as a run's partial answers will read it.
func fantasyStreamedAnswers(w Wire, fantasyIgnores []Ignore) []Replay {
	person, book := &chat.ResponseFormat{Name: "Person", Schema: personSchema}, &chat.ResponseFormat{Name: "Book", Schema: bookSchema}
	native := func(rf *chat.ResponseFormat, strict bool) *chat.Options {
		c := *rf
		c.Strict = strict
		return &chat.Options{MaxTokens: ptr(4000), ResponseFormat: &c}
	}
	var ig []Ignore
	switch w {
	case Chat:
		ig = []Ignore{{Path: "response_format.json_schema.description", Why: "fantasy describes the schema; chat.ResponseFormat carries no description"}}
	case Responses:
		ig = append(append([]Ignore(nil), fantasyIgnores...),
			Ignore{Path: "text.format.schema.additionalProperties", Why: "fantasy adds additionalProperties false to the schema it is given"},
			Ignore{Path: "text.format.schema.properties.author.additionalProperties", Why: "as text.format.schema.additionalProperties"})
	case Gemini:
		ig = []Ignore{{Path: "generationConfig.responseJsonSchema.properties.author.propertyOrdering", Why: "as WireIgnores' propertyOrdering, on the nested object"}}
	}
	strict := w == Chat // fantasy asks Chat Completions for strict mode only
	rs := []Replay{
		{Recording: "fantasy_object_streaming.yaml", Covers: "a streamed structured answer", Messages: user(personPrompt),
			Options: native(person, strict), Ignore: ig, Answer: alice},
		{Recording: "fantasy_complex_object_streaming.yaml", Covers: "a streamed structured answer with a nested object and an array", Messages: user(bookPrompt),
			Options: native(book, strict), Ignore: ig},
	}
	if w == Anthropic {
		// fantasy asks Claude through a tool forced by name.
		forced := func(name, doc string, schema json.RawMessage) *chat.Options {
			return &chat.Options{MaxTokens: ptr(4000), ParallelToolCalls: ptr(true), ToolChoice: name,
				Tools: []*toolset.Tool{{Name: name, Description: doc, Schema: schema}}}
		}
		rs[0].Options, rs[0].AnswerTool = forced("Person", "A person with name, age, and city", personSchema), "Person"
		rs[1].Options, rs[1].AnswerTool = forced("Book", "A book with title, author, genres, and publication year", bookSchema), "Book"
	}
	books := map[Wire]string{
		Chat:      `{"author":{"name":"J.R.R. Tolkien","nationality":"British"},"genres":["Fantasy","Adventure","High Fantasy","Epic","Classic"],"published_year":1954,"title":"The Lord of the Rings"}`,
		Responses: `{"author":{"name":"J.R.R. Tolkien","nationality":"British"},"genres":["Fantasy","Adventure","High fantasy","Epic"],"published_year":1954,"title":"The Lord of the Rings"}`,
		Gemini:    `{"author":{"name":"J.R.R. Tolkien","nationality":"English"},"genres":["fantasy","adventure"],"published_year":1954,"title":"The Lord of the Rings"}`,
		Anthropic: `{"author":{"name":"J.R.R. Tolkien","nationality":"British"},"genres":["Fantasy","Adventure","Epic Fantasy","High Fantasy"],"published_year":1954,"title":"The Lord of the Rings"}`,
	}
	rs[1].Answer = json.RawMessage(books[w])
	return rs
}

func withMax(o *chat.Options, n int) *chat.Options {
	o.MaxTokens = ptr(n)
	return o
}
