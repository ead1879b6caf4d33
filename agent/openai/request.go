package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// restorers says how to restore the arguments of the tools a request sent in strict mode.
type restorers = providerkit.Restorers

// params builds the request body of a conversation under opts, and says how to restore the arguments of the
// tools it sends in strict mode.
func (c *Client) params(msgs []chat.Message, opts *chat.Options) (p sdk.ChatCompletionNewParams, r restorers, err error) {
	if opts == nil {
		opts = &chat.Options{}
	}
	p.Model = opts.Model
	if p.Model == "" {
		p.Model = c.model
	}
	if p.Model == "" {
		return p, nil, fmt.Errorf("%s: no model: set chat.Options.Model or the client's default model", ProviderName)
	}
	p.Messages = make([]sdk.ChatCompletionMessageParamUnion, 0, len(msgs)+1)
	if opts.Instructions != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(opts.Instructions))
	}
	// Tool messages take text only: the images tools returned follow them in a user message, which comes
	// after the last tool message of a row, since the API wants every call answered before anything else.
	var images []sdk.ChatCompletionContentPartUnionParam
	for _, m := range msgs {
		n := len(p.Messages)
		var more []sdk.ChatCompletionContentPartUnionParam
		var err error
		if p.Messages, more, err = appendMessage(p.Messages, m, !c.noToolImages); err != nil {
			return p, nil, err
		}
		if len(images) > 0 && len(p.Messages) > n && p.Messages[n].OfTool == nil {
			p.Messages = slices.Insert(p.Messages, n, toolImages(images))
			images = nil
		}
		images = append(images, more...)
	}
	if len(images) > 0 {
		p.Messages = append(p.Messages, toolImages(images))
	}

	if opts.Temperature != nil {
		p.Temperature = param.NewOpt(*opts.Temperature)
	}
	if opts.TopP != nil {
		p.TopP = param.NewOpt(*opts.TopP)
	}
	if opts.MaxTokens != nil {
		p.MaxCompletionTokens = param.NewOpt(int64(*opts.MaxTokens))
	}
	if len(opts.Stop) > 0 {
		p.Stop.OfStringArray = opts.Stop
	}
	if opts.Seed != nil {
		p.Seed = param.NewOpt(*opts.Seed)
	}
	if len(opts.Tools) > 0 {
		p.Tools = make([]sdk.ChatCompletionToolUnionParam, 0, len(opts.Tools))
		for _, t := range opts.Tools {
			schema, strict := providerkit.StrictTool(&r, c.strict, t.Name, t.Schema)
			params, err := schemaParameters(schema)
			if err != nil {
				return p, nil, fmt.Errorf("%s: tool %q: %w", ProviderName, t.Name, err)
			}
			def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
			if t.Description != "" {
				def.Description = param.NewOpt(t.Description)
			}
			if strict {
				def.Strict = param.NewOpt(true)
			}
			p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(def))
		}
		// The API refuses parallel_tool_calls without tools.
		if opts.ParallelToolCalls != nil {
			p.ParallelToolCalls = param.NewOpt(*opts.ParallelToolCalls)
		}
	}
	switch opts.ToolChoice {
	case "":
	case "auto", "none", "required":
		p.ToolChoice.OfAuto = param.NewOpt(opts.ToolChoice)
	default:
		p.ToolChoice = sdk.ToolChoiceOptionFunctionToolChoice(sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: opts.ToolChoice})
	}
	if rf := opts.ResponseFormat; rf != nil {
		name := rf.Name
		if name == "" {
			name = "response"
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: rf.Schema}
		if rf.Strict {
			// Strict mode's subset: every property required (an optional one nullable), no others. A schema it
			// cannot describe is refused here rather than by the API.
			a, err := schemaprofile.OpenAIStrict.Adapt(name, rf.Schema)
			if err != nil {
				return p, nil, fmt.Errorf("%s: response format: %w", ProviderName, err)
			}
			js.Schema = a.Schema
			js.Strict = param.NewOpt(true)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}
	if ro := opts.Reasoning; ro != nil {
		// Chat Completions takes an effort and returns no reasoning: the summary and the thoughts stay out.
		p.ReasoningEffort = shared.ReasoningEffort(effort(ro))
	}
	extra, err := providerkit.ExtraFields(ProviderName, p, opts.Extra)
	if err != nil {
		return p, nil, err
	}
	if extra != nil {
		p.SetExtraFields(extra)
	}
	return p, r, nil
}

// effort returns the effort OpenAI's APIs take for ro: its Effort, or the effort its token budget stands for.
func effort(ro *chat.ReasoningOptions) chat.ReasoningEffort {
	if ro.Effort == "" && ro.BudgetTokens > 0 {
		return providerkit.Effort(ro.BudgetTokens)
	}
	return ro.Effort
}

// appendMessage appends the provider messages of m. Tool results become "tool" messages answering their call
// ids, placed after the message itself so that they follow the calls they answer; the images of the results are
// returned as content parts for a user message to follow (see toolImages), or, without images, named by a line
// each in the tool message; a user's files become image and file content parts; approval parts are the
// pipeline's business and usage is bookkeeping, so neither is sent; reasoning is not sent either, since Chat
// Completions takes none back; a message left with nothing to say is dropped.
func appendMessage(out []sdk.ChatCompletionMessageParamUnion, m chat.Message, withImages bool) ([]sdk.ChatCompletionMessageParamUnion, []sdk.ChatCompletionContentPartUnionParam, error) {
	var images []sdk.ChatCompletionContentPartUnionParam
	text := m.Text()
	var calls []sdk.ChatCompletionMessageToolCallUnionParam
	var results []sdk.ChatCompletionMessageParamUnion
	var content []sdk.ChatCompletionContentPartUnionParam // a user message's parts, when it has files
	for _, part := range m.Parts {
		switch part := part.(type) {
		case chat.Text:
			if m.Role == chat.RoleUser {
				content = append(content, sdk.TextContentPart(part.Text))
			}
		case chat.File:
			if m.Role != chat.RoleUser {
				return out, nil, fmt.Errorf("%s: a file in a %s message: %w: Chat Completions takes files from the user only", ProviderName, m.Role, chat.ErrInvalidRequest)
			}
			c, err := filePart(part)
			if err != nil {
				return out, nil, err
			}
			content = append(content, c)
		case chat.ToolCall:
			args := string(part.Arguments)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       part.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: part.Name, Arguments: args},
			}})
		case chat.ToolResult:
			content := providerkit.ResultText(part)
			if !withImages {
				content += notShownLines(part.Files)
			}
			results = append(results, sdk.ToolMessage(content, part.CallID))
			if withImages && len(part.Files) > 0 {
				images = append(images, sdk.TextContentPart("Images from the result of tool call "+part.CallID+":"))
				for _, f := range part.Files {
					images = append(images, toolImage(f))
				}
			}
		}
	}
	var name param.Opt[string]
	if m.AuthorName != "" {
		name = param.NewOpt(m.AuthorName)
	}
	switch m.Role {
	case chat.RoleSystem:
		if text != "" {
			msg := sdk.ChatCompletionSystemMessageParam{Name: name}
			msg.Content.OfString = param.NewOpt(text)
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfSystem: &msg})
		}
	case chat.RoleUser:
		hasFiles := len(content) > 0 && slices.ContainsFunc(m.Parts, func(p chat.Part) bool { _, ok := p.(chat.File); return ok })
		switch {
		case hasFiles:
			msg := sdk.ChatCompletionUserMessageParam{Name: name}
			msg.Content.OfArrayOfContentParts = content
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfUser: &msg})
		case text != "":
			msg := sdk.ChatCompletionUserMessageParam{Name: name}
			msg.Content.OfString = param.NewOpt(text)
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfUser: &msg})
		}
	case chat.RoleAssistant:
		if text != "" || len(calls) > 0 {
			msg := sdk.ChatCompletionAssistantMessageParam{Name: name, ToolCalls: calls}
			if text != "" {
				msg.Content.OfString = param.NewOpt(text)
			}
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &msg})
		}
	}
	return append(out, results...), images, nil
}

// noImages says why a tool's image is not shown, on a client made WithToolImages(false).
const noImages = "this model is given no images"

// notShownLines returns a line for each of files, each after a newline, saying it is not shown.
func notShownLines(files []chat.File) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteByte('\n')
		b.WriteString(f.NotShown(noImages))
	}
	return b.String()
}

// toolImages returns the user message that carries the images of tool results.
func toolImages(parts []sdk.ChatCompletionContentPartUnionParam) sdk.ChatCompletionMessageParamUnion {
	msg := sdk.ChatCompletionUserMessageParam{}
	msg.Content.OfArrayOfContentParts = parts
	return sdk.ChatCompletionMessageParamUnion{OfUser: &msg}
}

// toolImage returns an image a tool returned as an image part (its bytes as a data URL); in place of a file
// the API does not take as an image, a text part naming it.
func toolImage(f chat.File) sdk.ChatCompletionContentPartUnionParam {
	if !takesImage(f) {
		return sdk.TextContentPart(f.NotShown("OpenAI takes PNG, JPEG, WebP and GIF images"))
	}
	url := f.URL
	if len(f.Data) > 0 {
		url = dataURL(f)
	}
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url})
}

// takesImage reports whether f is an image OpenAI takes: PNG, JPEG, WebP or GIF bytes, or an image's URL.
func takesImage(f chat.File) bool {
	if !f.IsImage() {
		return false
	}
	switch f.MediaType {
	case "image/png", "image/jpeg", "image/webp", "image/gif":
		return true
	}
	return len(f.Data) == 0 && f.MediaType == ""
}

// filePart returns a user's file as a content part: an image by URL (bytes as a data URL), a document by its
// bytes or an uploaded file's id ("file-...").
func filePart(f chat.File) (sdk.ChatCompletionContentPartUnionParam, error) {
	if err := checkImage(f); err != nil {
		return sdk.ChatCompletionContentPartUnionParam{}, err
	}
	if f.IsImage() {
		url := f.URL
		if len(f.Data) > 0 {
			url = dataURL(f)
		}
		return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url}), nil
	}
	var fp sdk.ChatCompletionContentPartFileFileParam
	switch {
	case len(f.Data) > 0:
		fp.FileData = param.NewOpt(dataURL(f))
	case strings.HasPrefix(f.URL, "file-"):
		fp.FileID = param.NewOpt(f.URL)
	default:
		return sdk.ChatCompletionContentPartUnionParam{}, fmt.Errorf("%s: file %q (%s): %w: Chat Completions takes a document by its bytes or an uploaded file's id (\"file-...\"), not a URL; set File.Data, or use the Responses API (NewResponses), which takes a document's URL", ProviderName, fileName(f), f.MediaType, chat.ErrInvalidRequest)
	}
	if f.Name != "" {
		fp.Filename = param.NewOpt(f.Name)
	}
	return sdk.FileContentPart(fp), nil
}

// checkImage refuses a user's image OpenAI does not take: bytes of a type other than PNG, JPEG, WebP and GIF.
func checkImage(f chat.File) error {
	if f.IsImage() && len(f.Data) > 0 && !takesImage(f) {
		return fmt.Errorf("%s: image %q of type %q: %w: OpenAI takes PNG, JPEG, WebP and GIF images; convert it to one of these and set File.MediaType", ProviderName, fileName(f), f.MediaType, chat.ErrInvalidRequest)
	}
	return nil
}

// fileName names f in an error: its name, else its URL.
func fileName(f chat.File) string {
	if f.Name != "" {
		return f.Name
	}
	return f.URL
}

// dataURL returns f's bytes as a data URL.
func dataURL(f chat.File) string {
	return "data:" + f.MediaType + ";base64," + base64.StdEncoding.EncodeToString(f.Data)
}

// schemaCache keeps the decoded top level of each tool schema: the SDK wants a map, and a run offers the same
// tools on every round.
var (
	schemaCache     sync.Map // string -> shared.FunctionParameters
	schemaCacheSize atomic.Int64
)

// maxCachedSchemas bounds the cache for programs that make tools at run time (MCP servers).
const maxCachedSchemas = 4096

// schemaParameters returns a tool's schema as the SDK's parameters: its top-level keys, their values kept as
// raw JSON.
func schemaParameters(schema json.RawMessage) (shared.FunctionParameters, error) {
	if len(schema) == 0 {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	if v, ok := schemaCache.Load(string(schema)); ok {
		return v.(shared.FunctionParameters), nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	params := make(shared.FunctionParameters, len(top))
	for k, v := range top {
		params[k] = v
	}
	if schemaCacheSize.Add(1) <= maxCachedSchemas {
		schemaCache.Store(string(schema), params)
	}
	return params, nil
}
