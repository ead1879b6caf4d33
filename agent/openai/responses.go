package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// ResponsesClient is a [chat.Client] over OpenAI's Responses API, the API of its reasoning models. It is
// stateless on OpenAI's side: requests are sent with store off and ask for the reasoning's encrypted content,
// which the client keeps in the conversation as [chat.Reasoning] parts (the summary as Text, the encrypted
// content as Encrypted) and sends back with the next request, so that the model keeps its reasoning across tool
// rounds without OpenAI storing the conversation. It is safe for concurrent use.
type ResponsesClient struct {
	sdk    sdk.Client
	model  string
	strict bool
	effort string
	// noToolImages sends a line in place of each image a tool returned (WithToolImages).
	noToolImages bool
}

// NewResponses returns a Responses API client configured as [New] configures a Chat Completions one: by the
// SDK's request options after the environment, with the SDK's retries off unless opts turn them on.
func NewResponses(opts ...option.RequestOption) *ResponsesClient {
	return &ResponsesClient{sdk: sdk.NewClient(providerkit.RetriesOff(option.WithMaxRetries(0), opts)...)}
}

// WithModel returns a copy of c that asks for model when the options name none.
func (c *ResponsesClient) WithModel(model string) *ResponsesClient {
	d := *c
	d.model = model
	return &d
}

// WithStrictTools returns a copy of c that sends tools in strict mode where [schemaprofile.OpenAIStrict] can
// describe their schemas, as [Client.WithStrictTools] does. Without it every tool is sent with strict off: the
// Responses API would otherwise hold each to strict mode.
func (c *ResponsesClient) WithStrictTools(strict bool) *ResponsesClient {
	d := *c
	d.strict = strict
	return &d
}

// WithToolImages returns a copy of c that sends the images tools return (the default: in the function call's
// output), or, given false, a line in the output in place of each, as [Client.WithToolImages] does.
func (c *ResponsesClient) WithToolImages(on bool) *ResponsesClient {
	d := *c
	d.noToolImages = !on
	return &d
}

// WithReasoningEffort returns a copy of c that asks reasoning models for an effort ("minimal", "low", "medium",
// "high"; "" leaves it to the model) and for a summary of their reasoning.
func (c *ResponsesClient) WithReasoningEffort(effort string) *ResponsesClient {
	d := *c
	d.effort = effort
	return &d
}

// ResponsesFactory returns a [chat.ProviderFactory] making one Responses API client per model, all sharing the
// options.
func ResponsesFactory(opts ...option.RequestOption) chat.ProviderFactory {
	base := NewResponses(opts...)
	return func(model string) (chat.Client, error) { return base.WithModel(model), nil }
}

// RegisterResponses adds the openai provider to p under [ProviderName] on the Responses API, in place of
// [Register]'s Chat Completions.
func RegisterResponses(p *chat.Providers, opts ...option.RequestOption) {
	p.Register(ProviderName, ResponsesFactory(opts...))
}

// ReasoningModel reports whether model is one of OpenAI's reasoning models (the o-series and the gpt-5 family),
// which keep their reasoning across tool rounds only on the Responses API.
func ReasoningModel(model string) bool {
	for _, prefix := range []string{"o1", "o3", "o4", "gpt-5"} {
		if rest, ok := strings.CutPrefix(model, prefix); ok && (rest == "" || rest[0] == '-' || rest[0] == '.') {
			return true
		}
	}
	return false
}

// FactoryByModel returns a [chat.ProviderFactory] that chooses the API per model: the Responses API for the
// models useResponses reports (nil means [ReasoningModel]), Chat Completions for the others, all sharing the
// options.
func FactoryByModel(useResponses func(model string) bool, opts ...option.RequestOption) chat.ProviderFactory {
	if useResponses == nil {
		useResponses = ReasoningModel
	}
	completions, api := New(opts...), NewResponses(opts...)
	return func(model string) (chat.Client, error) {
		if useResponses(model) {
			return api.WithModel(model), nil
		}
		return completions.WithModel(model), nil
	}
}

// RegisterByModel adds the openai provider to p under [ProviderName], choosing the API per model as
// [FactoryByModel] does.
func RegisterByModel(p *chat.Providers, useResponses func(model string) bool, opts ...option.RequestOption) {
	p.Register(ProviderName, FactoryByModel(useResponses, opts...))
}

// Respond sends one request and returns the whole response.
func (c *ResponsesClient) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	params, r, err := c.params(msgs, opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.sdk.Responses.New(ctx, params)
	if err != nil {
		return nil, wrapError(ctx, err)
	}
	if resp.Status == responses.ResponseStatusFailed {
		return nil, responseFailed(resp)
	}
	return responsesResponse(resp, r), nil
}

// Stream sends one streamed request and yields its updates: text and reasoning summaries as they come, each
// function call whole, the reasoning's encrypted content when its item is done, usage and the finish reason
// last.
func (c *ResponsesClient) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		params, r, err := c.params(msgs, opts)
		if err != nil {
			yield(chat.Update{}, err)
			return
		}
		stream := c.sdk.Responses.NewStreaming(ctx, params)
		defer stream.Close()
		a := responsesAssembler{restore: r}
		begun := false
		for stream.Next() {
			begun = true
			us, err := a.add(stream.Current())
			for _, u := range us {
				if !yield(u, nil) {
					return
				}
			}
			if err != nil {
				yield(chat.Update{}, err)
				return
			}
		}
		if err := stream.Err(); err != nil {
			yield(chat.Update{}, wrapStreamError(ctx, err, begun))
			return
		}
		if err := ctx.Err(); err != nil {
			yield(chat.Update{}, err)
			return
		}
		if !a.finished {
			yield(chat.Update{}, &chat.ProviderError{Provider: ProviderName, Message: "the stream ended before the model finished", Cut: true, Err: errStreamEnded})
		}
	}
}

// errStreamEnded is the cause of a stream that closed before its last event.
var errStreamEnded = fmt.Errorf("unexpected end of the event stream")

// params builds the request of a conversation under opts.
func (c *ResponsesClient) params(msgs []chat.Message, opts *chat.Options) (p responses.ResponseNewParams, r restorers, err error) {
	if opts == nil {
		opts = &chat.Options{}
	}
	model := opts.Model
	if model == "" {
		model = c.model
	}
	if model == "" {
		return p, nil, fmt.Errorf("%s: no model: set chat.Options.Model or the client's default model", ProviderName)
	}
	p.Model = model
	// Stateless: nothing stored on OpenAI's side, the reasoning handed to the conversation encrypted.
	p.Store = param.NewOpt(false)
	p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	if opts.Instructions != "" {
		p.Instructions = param.NewOpt(opts.Instructions)
	}
	items := make(responses.ResponseInputParam, 0, len(msgs)+2)
	for _, m := range msgs {
		if items, err = appendItems(items, m, !c.noToolImages); err != nil {
			return p, nil, err
		}
	}
	p.Input.OfInputItemList = items
	if opts.Temperature != nil {
		p.Temperature = param.NewOpt(*opts.Temperature)
	}
	if opts.TopP != nil {
		p.TopP = param.NewOpt(*opts.TopP)
	}
	if opts.MaxTokens != nil {
		p.MaxOutputTokens = param.NewOpt(int64(*opts.MaxTokens))
	}
	reasoning(&p.Reasoning, c.effort, opts.Reasoning)
	if len(opts.Tools) > 0 {
		p.Tools = make([]responses.ToolUnionParam, 0, len(opts.Tools))
		for _, t := range opts.Tools {
			schema, strict := providerkit.StrictTool(&r, c.strict, t.Name, t.Schema)
			params, err := schemaParameters(schema)
			if err != nil {
				return p, nil, fmt.Errorf("%s: tool %q: %w", ProviderName, t.Name, err)
			}
			ft := responses.FunctionToolParam{Name: t.Name, Parameters: params, Strict: param.NewOpt(strict)}
			if t.Description != "" {
				ft.Description = param.NewOpt(t.Description)
			}
			p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &ft})
		}
		if opts.ParallelToolCalls != nil {
			p.ParallelToolCalls = param.NewOpt(*opts.ParallelToolCalls)
		}
	}
	switch opts.ToolChoice {
	case "":
	case "auto", "none", "required":
		p.ToolChoice.OfToolChoiceMode = param.NewOpt(responses.ToolChoiceOptions(opts.ToolChoice))
	default:
		p.ToolChoice.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: opts.ToolChoice}
	}
	if rf := opts.ResponseFormat; rf != nil {
		name := rf.Name
		if name == "" {
			name = "response"
		}
		schema := rf.Schema
		if rf.Strict {
			a, err := schemaprofile.OpenAIStrict.Adapt(name, rf.Schema)
			if err != nil {
				return p, nil, fmt.Errorf("%s: response format: %w", ProviderName, err)
			}
			schema = a.Schema
		}
		sp, err := schemaParameters(schema)
		if err != nil {
			return p, nil, fmt.Errorf("%s: response format: %w", ProviderName, err)
		}
		p.Text.Format.OfJSONSchema = &responses.ResponseFormatTextJSONSchemaConfigParam{Name: name, Schema: sp, Strict: param.NewOpt(rf.Strict)}
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

// reasoning sets the request's reasoning: the client's effort (with a summary) as the default, what the request's
// options set over it. Thoughts asked for without a summary's detail come as the "auto" summary.
func reasoning(p *shared.ReasoningParam, clientEffort string, ro *chat.ReasoningOptions) {
	e, summary := chat.ReasoningEffort(clientEffort), chat.ReasoningSummary("")
	if e != "" {
		summary = chat.SummaryAuto
	}
	if ro != nil {
		if re := effort(ro); re != "" {
			e = re
		}
		switch {
		case ro.IncludeThoughts != nil && !*ro.IncludeThoughts:
			summary = ""
		case ro.Summary != "":
			summary = ro.Summary
		case ro.IncludeThoughts != nil:
			summary = chat.SummaryAuto
		}
	}
	if e != "" {
		p.Effort = shared.ReasoningEffort(e)
	}
	if summary != "" {
		p.Summary = shared.ReasoningSummary(summary)
	}
}

// appendItems appends the input items of m, in the order of its parts: an assistant's reasoning items, text and
// function calls as the model wrote them (reasoning first, where the API wants it back); a user's text and files
// as one message; tool results as function call outputs. Another provider's reasoning, approvals and usage are
// not sent.
func appendItems(out responses.ResponseInputParam, m chat.Message, withImages bool) (responses.ResponseInputParam, error) {
	switch m.Role {
	case chat.RoleSystem:
		if text := m.Text(); text != "" {
			out = append(out, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleSystem))
		}
	case chat.RoleUser:
		var content responses.ResponseInputMessageContentListParam
		files := false
		for _, part := range m.Parts {
			switch part := part.(type) {
			case chat.Text:
				content = append(content, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: part.Text}})
			case chat.File:
				c, err := inputFile(part)
				if err != nil {
					return out, err
				}
				content = append(content, c)
				files = true
			}
		}
		switch {
		case files:
			out = append(out, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		case m.Text() != "":
			out = append(out, responses.ResponseInputItemParamOfMessage(m.Text(), responses.EasyInputMessageRoleUser))
		}
	case chat.RoleAssistant:
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				out = append(out, responses.ResponseInputItemParamOfMessage(text.String(), responses.EasyInputMessageRoleAssistant))
				text.Reset()
			}
		}
		var item *responses.ResponseReasoningItemParam // the reasoning item the parts in a row build
		for i, part := range m.Parts {
			r, isReasoning := part.(chat.Reasoning)
			if !isReasoning || item == nil || r.ID != item.ID {
				item = nil
			}
			switch part := part.(type) {
			case chat.Text:
				text.WriteString(part.Text)
			case chat.Reasoning:
				if part.Provider != ProviderName || part.ID == "" {
					continue // another provider's, or one the API cannot take back without its item id
				}
				if item == nil && callWithoutItemID(m.Parts[i:], part.ID) {
					// Stored before calls kept their item ids: the API refuses the reasoning item followed by a
					// function_call without its id, and takes the call alone.
					continue
				}
				if item == nil {
					// The parts of one item (its summary's, in a row, with its id) go back as that one item.
					flush()
					out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
						ID: part.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}})
					item = out[len(out)-1].OfReasoning
				}
				if part.Text != "" {
					item.Summary = append(item.Summary, responses.ResponseReasoningItemSummaryParam{Text: part.Text})
				}
				if part.Encrypted != "" {
					item.EncryptedContent = param.NewOpt(part.Encrypted)
				}
			case chat.ToolCall:
				flush()
				args := string(part.Arguments)
				if args == "" {
					args = "{}"
				}
				fc := responses.ResponseInputItemParamOfFunctionCall(args, part.ID, part.Name)
				if part.Provider == ProviderName && part.ItemID != "" {
					// The item's own id ("fc_..."): the API wants it back after the reasoning item it follows.
					fc.OfFunctionCall.ID = param.NewOpt(part.ItemID)
				}
				out = append(out, fc)
			case chat.File:
				return out, fmt.Errorf("%s: a file in an assistant message: %w: the Responses API takes files from the user only", ProviderName, chat.ErrInvalidRequest)
			}
		}
		flush()
	}
	for _, part := range m.Parts {
		if res, ok := part.(chat.ToolResult); ok {
			output := providerkit.ResultText(res)
			if !withImages {
				output += notShownLines(res.Files)
			}
			item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
			if withImages && len(res.Files) > 0 {
				item = responses.ResponseInputItemParamOfFunctionCallOutput(outputItems(output, res.Files))
			}
			item.OfFunctionCallOutput.CallID = param.NewOpt(res.CallID)
			out = append(out, item)
		}
	}
	return out, nil
}

// callWithoutItemID reports whether the reasoning parts of item id at the start of parts lead to a function call
// of this provider that has no item id.
func callWithoutItemID(parts []chat.Part, id string) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case chat.Reasoning:
			if p.Provider == ProviderName && p.ID == id {
				continue
			}
			return false
		case chat.ToolCall:
			return p.ItemID == "" || p.Provider != ProviderName
		default:
			return false
		}
	}
	return false
}

// outputItems returns a function call's output with the images the tool returned: its text, then each image (its
// bytes as a data URL); in place of a file the API does not take as an image, a text item naming it.
func outputItems(text string, files []chat.File) responses.ResponseFunctionCallOutputItemListParam {
	items := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(files)+1)
	if text != "" {
		items = append(items, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: text}})
	}
	for _, f := range files {
		if !takesImage(f) {
			items = append(items, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{
				Text: f.NotShown("OpenAI takes PNG, JPEG, WebP and GIF images")}})
			continue
		}
		img := responses.ResponseInputImageContentParam{Detail: responses.ResponseInputImageContentDetailAuto}
		img.ImageURL, img.FileID = imageSource(f)
		items = append(items, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &img})
	}
	return items
}

// imageSource says where an image is, for either of the API's image parts: its bytes as a data URL, an uploaded
// file's id ("file-..."), or its URL.
func imageSource(f chat.File) (url, fileID param.Opt[string]) {
	switch {
	case len(f.Data) > 0:
		return param.NewOpt(dataURL(f)), fileID
	case strings.HasPrefix(f.URL, "file-"):
		return url, param.NewOpt(f.URL)
	default:
		return param.NewOpt(f.URL), fileID
	}
}

// inputFile returns a user's file as an input content part: an image by URL (bytes as a data URL), a document
// by its bytes, an uploaded file's id ("file-...") or its URL.
func inputFile(f chat.File) (responses.ResponseInputContentUnionParam, error) {
	if err := checkImage(f); err != nil {
		return responses.ResponseInputContentUnionParam{}, err
	}
	if f.IsImage() {
		img := responses.ResponseInputImageParam{Detail: responses.ResponseInputImageDetailAuto}
		img.ImageURL, img.FileID = imageSource(f)
		return responses.ResponseInputContentUnionParam{OfInputImage: &img}, nil
	}
	var file responses.ResponseInputFileParam
	switch {
	case len(f.Data) > 0:
		file.FileData = param.NewOpt(dataURL(f))
	case strings.HasPrefix(f.URL, "file-"):
		file.FileID = param.NewOpt(f.URL)
	case f.URL != "":
		file.FileURL = param.NewOpt(f.URL)
	default:
		return responses.ResponseInputContentUnionParam{}, fmt.Errorf("%s: file %q (%s) has neither bytes nor a URL: %w: set File.Data or File.URL", ProviderName, f.Name, f.MediaType, chat.ErrInvalidRequest)
	}
	if f.Name != "" {
		file.Filename = param.NewOpt(f.Name)
	}
	return responses.ResponseInputContentUnionParam{OfInputFile: &file}, nil
}

// responsesResponse converts a whole response: its output items in order.
func responsesResponse(resp *responses.Response, r restorers) *chat.Response {
	out := &chat.Response{ID: resp.ID, Model: string(resp.Model), Usage: responsesUsage(resp.Usage)}
	msg := chat.Message{Role: chat.RoleAssistant}
	calls := false
	for _, item := range resp.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				switch c.Type {
				case "output_text":
					msg.Parts = append(msg.Parts, chat.Text{Text: c.Text})
				case "refusal":
					msg.Parts = append(msg.Parts, chat.Text{Text: c.Refusal})
				}
			}
		case "reasoning":
			msg.Parts = appendReasoning(msg.Parts, item.AsReasoning())
		case "function_call":
			fc := item.AsFunctionCall()
			msg.Parts = append(msg.Parts, r.Restore(chat.ToolCall{ID: fc.CallID, Name: fc.Name, Arguments: json.RawMessage(fc.Arguments),
				Provider: ProviderName, ItemID: fc.ID}))
			calls = true
		default:
			msg.Parts = append(msg.Parts, chat.Raw{Provider: ProviderName, Data: json.RawMessage(item.RawJSON())})
		}
	}
	out.Messages = []chat.Message{msg}
	out.FinishReason = responsesFinish(resp, calls)
	return out
}

// appendReasoning keeps a reasoning item as one part per summary part (Index its place in the summary), the
// last with the encrypted content to send back; an item without a summary is one part.
func appendReasoning(out []chat.Part, it responses.ResponseReasoningItem) []chat.Part {
	if len(it.Summary) == 0 {
		return append(out, chat.Reasoning{Provider: ProviderName, ID: it.ID, Encrypted: it.EncryptedContent})
	}
	for i, s := range it.Summary {
		r := chat.Reasoning{Provider: ProviderName, ID: it.ID, Text: s.Text, Index: i}
		if i == len(it.Summary)-1 {
			r.Encrypted = it.EncryptedContent
		}
		out = append(out, r)
	}
	return out
}

func responsesUsage(u responses.ResponseUsage) chat.Usage {
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	return chat.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: total,
		CacheReadTokens: u.InputTokensDetails.CachedTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens}
}

// responsesFinish says why the model stopped: an incomplete response ran out of tokens or was filtered; a
// complete one stopped to call tools, or at its end.
func responsesFinish(resp *responses.Response, calls bool) chat.FinishReason {
	if resp.Status == responses.ResponseStatusIncomplete {
		switch resp.IncompleteDetails.Reason {
		case "content_filter":
			return chat.FinishContentFilter
		default:
			return chat.FinishLength
		}
	}
	for _, item := range resp.Output {
		if item.Type == "message" {
			for _, c := range item.Content {
				if c.Type == "refusal" {
					return chat.FinishContentFilter
				}
			}
		}
	}
	if calls {
		return chat.FinishToolCalls
	}
	return chat.FinishStop
}

// responseFailed is the error of a response the API reports failed.
func responseFailed(resp *responses.Response) error {
	msg := resp.Error.Message
	if msg == "" {
		msg = "the response failed"
	}
	return &chat.ProviderError{Provider: ProviderName, Code: string(resp.Error.Code), Message: msg, Cut: true, Err: errStreamEnded}
}

// responsesAssembler turns a response's stream events into updates.
type responsesAssembler struct {
	id, model string
	restore   restorers
	calls     bool
	finished  bool
	// summary is the index of the summary part the reasoning item being streamed is at.
	summary int
	// out holds the update add returns, which the caller reads before the next event: a delta costs no slice.
	out [1]chat.Update
}

// one returns u as the only update of an event, in a's own buffer.
func (a *responsesAssembler) one(u chat.Update) []chat.Update {
	a.out[0] = u
	return a.out[:]
}

func (a *responsesAssembler) update(parts ...chat.Part) chat.Update {
	return chat.Update{ResponseID: a.id, Model: a.model, Role: chat.RoleAssistant, Parts: parts}
}

func (a *responsesAssembler) add(ev responses.ResponseStreamEventUnion) ([]chat.Update, error) {
	switch ev.Type {
	case "response.created", "response.in_progress":
		a.id, a.model = ev.Response.ID, string(ev.Response.Model)
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			return a.one(a.update(chat.Text{Text: ev.Delta})), nil
		}
	case "response.output_item.added":
		if ev.Item.Type == "reasoning" {
			a.summary = 0
		}
	case "response.reasoning_summary_text.delta":
		a.summary = int(ev.SummaryIndex)
		if ev.Delta != "" {
			return a.one(a.update(chat.Reasoning{Provider: ProviderName, ID: ev.ItemID, Text: ev.Delta, Index: a.summary})), nil
		}
	case "response.reasoning_summary_part.added":
		// Each summary part is a part of its own (Index), sent back as it came.
		a.summary = int(ev.SummaryIndex)
	case "response.output_item.done":
		switch ev.Item.Type {
		case "reasoning":
			it := ev.Item.AsReasoning()
			if n := len(it.Summary); n > 0 {
				a.summary = n - 1
			}
			// The encrypted content closes the item's last summary part.
			return a.one(a.update(chat.Reasoning{Provider: ProviderName, ID: it.ID, Encrypted: it.EncryptedContent, Index: a.summary})), nil
		case "function_call":
			fc := ev.Item.AsFunctionCall()
			a.calls = true
			args := fc.Arguments
			if args == "" {
				args = "{}"
			}
			return a.one(a.update(a.restore.Restore(chat.ToolCall{ID: fc.CallID, Name: fc.Name, Arguments: json.RawMessage(args),
				Provider: ProviderName, ItemID: fc.ID}))), nil
		}
	case "response.completed", "response.incomplete":
		a.finished = true
		resp := ev.Response
		u := a.update(chat.UsagePart{Usage: responsesUsage(resp.Usage)})
		u.FinishReason = responsesFinish(&resp, a.calls)
		if u.FinishReason == chat.FinishStop && a.calls {
			u.FinishReason = chat.FinishToolCalls
		}
		return a.one(u), nil
	case "response.failed":
		a.finished = true
		return nil, responseFailed(&ev.Response)
	case "error":
		a.finished = true
		return nil, &chat.ProviderError{Provider: ProviderName, Code: ev.Code, Message: ev.Message, Cut: true, Err: errStreamEnded}
	}
	return nil, nil
}
