package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// params builds the request body of a conversation under opts.
func (c *Client) params(msgs []chat.Message, opts *chat.Options) (sdk.MessageNewParams, error) {
	if opts == nil {
		opts = &chat.Options{}
	}
	var p sdk.MessageNewParams
	p.Model = sdk.Model(opts.Model)
	if p.Model == "" {
		p.Model = sdk.Model(c.model)
	}
	if p.Model == "" {
		return p, fmt.Errorf("%s: no model: set chat.Options.Model or the client's default model", ProviderName)
	}
	p.MaxTokens = c.maxTokens
	if p.MaxTokens <= 0 {
		p.MaxTokens = DefaultMaxTokens
	}
	if opts.MaxTokens != nil {
		p.MaxTokens = int64(*opts.MaxTokens)
	}
	if err := thinking(&p, c.thinking, opts.Reasoning); err != nil {
		return p, err
	}
	cache, err := cacheControl(opts.CacheTTL)
	if err != nil {
		return p, err
	}

	if opts.Instructions != "" {
		p.System = append(p.System, sdk.TextBlockParam{Text: opts.Instructions})
	}
	b := builder{cacheAt: min(opts.CacheMessages, len(msgs)) - 1, cache: cache}
	for i, m := range msgs {
		if m.Role == chat.RoleSystem {
			if t := m.Text(); t != "" {
				p.System = append(p.System, sdk.TextBlockParam{Text: t})
			}
		} else if err := b.add(m); err != nil {
			return p, err
		}
		if i == b.cacheAt {
			b.mark()
		}
	}
	if len(b.out) == 0 || b.out[0].OfUser == nil {
		// The Messages API wants a user turn first: a run on instructions alone, or a history that begins with
		// the model's turn, gets one.
		b.out = append([]sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(providerkit.StartText))}, b.out...)
	}
	p.Messages = b.out

	if len(opts.Tools) > 0 {
		p.Tools = make([]sdk.ToolUnionParam, 0, len(opts.Tools))
		for _, t := range opts.Tools {
			if err := checkSchema(t.Name, t.Schema); err != nil {
				return p, err // a tool made at run time (an MCP server's), which the host could not check when built
			}
			raw, strict := t.Schema, false
			if c.strictTools {
				// Strictness is per tool: one the profile cannot describe goes as it is, not strict.
				if a, err := schemaprofile.AnthropicStrict.Adapt(t.Name, t.Schema); err == nil {
					raw, strict = a.Schema, true
				}
			}
			schema, err := inputSchema(raw)
			if err != nil {
				return p, fmt.Errorf("%s: tool %q: %w", ProviderName, t.Name, err)
			}
			tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
			if strict {
				tool.Strict = param.NewOpt(true)
			}
			if t.Description != "" {
				tool.Description = param.NewOpt(t.Description)
			}
			p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
		}
	}
	if opts.CacheMessages > 0 {
		// The tools and the system prompt are the front of the stable prefix: one breakpoint after each.
		if n := len(p.Tools); n > 0 {
			p.Tools[n-1].OfTool.CacheControl = cache
		}
		if n := len(p.System); n > 0 {
			p.System[n-1].CacheControl = cache
		}
	}
	if err := toolChoice(&p, opts); err != nil {
		return p, err
	}
	if len(opts.Stop) > 0 {
		p.StopSequences = opts.Stop
	}
	if rf := opts.ResponseFormat; rf != nil {
		// Claude decodes a JSON answer against a grammar made from the schema, whatever rf.Strict says: the
		// schema goes in the subset that grammar takes, and one it cannot take is refused here, not by the API.
		name := rf.Name
		if name == "" {
			name = "response"
		}
		adapted, err := schemaprofile.AnthropicStrict.Adapt(name, rf.Schema)
		if err != nil {
			return p, fmt.Errorf("%s: response format: %w", ProviderName, err)
		}
		var schema map[string]any
		if err := json.Unmarshal(adapted.Schema, &schema); err != nil {
			return p, fmt.Errorf("%s: response format %q: the schema is not a JSON object: %w", ProviderName, rf.Name, err)
		}
		p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
	}
	extra := make(map[string]any, len(opts.Extra)+2)
	// The SDK's parameters leave sampling out (the newest models refuse it with thinking); the API takes it.
	if opts.Temperature != nil {
		extra["temperature"] = *opts.Temperature
	}
	if opts.TopP != nil {
		extra["top_p"] = *opts.TopP
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	more, err := providerkit.ExtraFields(ProviderName, p, opts.Extra)
	if err != nil {
		return p, err
	}
	if more != nil {
		for k, v := range more {
			extra[k] = v
		}
		p.SetExtraFields(extra)
	}
	return p, nil
}

// minThinking is the least thinking budget Claude takes.
const minThinking = 1024

// thinking sets extended thinking: the client's budget as the default, what the request's reasoning options set
// over it (an effort stands for a budget, see [providerkit.Budget]; ReasoningNone turns thinking off). The cap on
// the answer grows to leave room for the budget.
func thinking(p *sdk.MessageNewParams, budget int64, ro *chat.ReasoningOptions) error {
	display := sdk.ThinkingConfigEnabledDisplay("")
	if ro != nil {
		switch {
		case ro.Effort == chat.ReasoningNone:
			p.Thinking = sdk.ThinkingConfigParamUnion{OfDisabled: &sdk.ThinkingConfigDisabledParam{}}
			return nil
		case ro.BudgetTokens > 0:
			budget = int64(ro.BudgetTokens)
		case ro.Effort != "":
			b := providerkit.Budget(ro.Effort)
			if b == 0 {
				return fmt.Errorf("%s: reasoning effort %q: %w: Claude takes minimal, low, medium, high or none (or a BudgetTokens)", ProviderName, ro.Effort, chat.ErrInvalidRequest)
			}
			budget = int64(b)
		}
		if ro.IncludeThoughts != nil {
			display = sdk.ThinkingConfigEnabledDisplaySummarized
			if !*ro.IncludeThoughts {
				display = sdk.ThinkingConfigEnabledDisplayOmitted
			}
		}
	}
	if budget <= 0 {
		return nil
	}
	if budget < minThinking {
		return fmt.Errorf("%s: a thinking budget of %d tokens: %w: Claude takes at least %d", ProviderName, budget, chat.ErrInvalidRequest, minThinking)
	}
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
	p.Thinking.OfEnabled.Display = display
	if p.MaxTokens <= budget {
		p.MaxTokens = budget + DefaultMaxTokens
	}
	return nil
}

// cacheControl returns the cache mark of a request with the given TTL: Claude's default (five minutes) for
// zero, or the one other TTL it takes, an hour.
func cacheControl(ttl time.Duration) (sdk.CacheControlEphemeralParam, error) {
	c := sdk.NewCacheControlEphemeralParam()
	switch ttl {
	case 0:
	case 5 * time.Minute:
		c.TTL = sdk.CacheControlEphemeralTTLTTL5m
	case time.Hour:
		c.TTL = sdk.CacheControlEphemeralTTLTTL1h
	default:
		return c, fmt.Errorf("%s: a cache TTL of %s: %w: Claude keeps a cache 5 minutes or an hour; set CacheTTL to 5*time.Minute or time.Hour", ProviderName, ttl, chat.ErrInvalidRequest)
	}
	return c, nil
}

// toolChoice sets the tool choice, and whether the model may call several tools at once.
func toolChoice(p *sdk.MessageNewParams, opts *chat.Options) error {
	disable := param.Opt[bool]{}
	if opts.ParallelToolCalls != nil && !*opts.ParallelToolCalls && len(opts.Tools) > 0 {
		disable = param.NewOpt(true)
	}
	if forced := opts.ToolChoice != "" && opts.ToolChoice != "auto" && opts.ToolChoice != "none"; forced && p.Thinking.OfEnabled != nil {
		// The API refuses a forced tool with extended thinking: only auto and none go with it.
		return fmt.Errorf("%s: tool choice %q with extended thinking: %w: Claude takes only \"auto\" or \"none\" while thinking; "+
			"ask for the answer by ResponseFormat, or turn thinking off (Reasoning.Effort \"none\")", ProviderName, opts.ToolChoice, chat.ErrInvalidRequest)
	}
	switch opts.ToolChoice {
	case "", "auto":
		if opts.ToolChoice != "" || disable.Valid() {
			p.ToolChoice.OfAuto = &sdk.ToolChoiceAutoParam{DisableParallelToolUse: disable}
		}
	case "none":
		p.ToolChoice.OfNone = &sdk.ToolChoiceNoneParam{}
	case "required":
		p.ToolChoice.OfAny = &sdk.ToolChoiceAnyParam{DisableParallelToolUse: disable}
	default:
		p.ToolChoice.OfTool = &sdk.ToolChoiceToolParam{Name: opts.ToolChoice, DisableParallelToolUse: disable}
	}
	return nil
}

// builder turns messages into the API's turns: user and assistant alternate, tool results are user content,
// consecutive messages of one role join into one turn.
type builder struct {
	out     []sdk.MessageParam
	cacheAt int // the index of the message that ends the stable prefix, or -1
	cache   sdk.CacheControlEphemeralParam
}

// blocks returns the content of the last turn when it has role user (or assistant), starting a new turn when
// the last one has the other role.
func (b *builder) blocks(user bool) *[]sdk.ContentBlockParamUnion {
	if n := len(b.out); n > 0 {
		last := &b.out[n-1]
		if user && last.OfUser != nil {
			return &last.OfUser.Content
		}
		if !user && last.OfAssistant != nil {
			return &last.OfAssistant.Content
		}
	}
	if user {
		b.out = append(b.out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{}})
		return &b.out[len(b.out)-1].OfUser.Content
	}
	b.out = append(b.out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{}})
	return &b.out[len(b.out)-1].OfAssistant.Content
}

// add appends m's parts. Approval parts are the pipeline's business and usage is bookkeeping: neither is sent.
// Reasoning goes back only to the provider that wrote it. A message left with nothing to send adds no turn.
func (b *builder) add(m chat.Message) error {
	var content []sdk.ContentBlockParamUnion
	for _, part := range m.Parts {
		switch part := part.(type) {
		case chat.Text:
			if part.Text != "" {
				content = append(content, sdk.NewTextBlock(part.Text))
			}
		case chat.File:
			blk, err := fileBlock(part)
			if err != nil {
				return err
			}
			content = append(content, blk)
		case chat.Reasoning:
			if part.Provider != ProviderName {
				continue
			}
			switch {
			case part.Encrypted != "":
				content = append(content, sdk.NewRedactedThinkingBlock(part.Encrypted))
			case part.Signature != "":
				content = append(content, sdk.NewThinkingBlock(part.Signature, part.Text))
			}
		case chat.ToolCall:
			content = append(content, sdk.NewToolUseBlock(part.ID, toolInput(part.Arguments), part.Name))
		case chat.ToolResult:
			text, isErr := providerkit.ResultText(part), part.Error != ""
			blk := sdk.ToolResultBlockParam{ToolUseID: part.CallID}
			if text != "" {
				blk.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: text}}}
			}
			for _, f := range part.Files {
				blk.Content = append(blk.Content, toolResultFile(f))
			}
			if isErr {
				blk.IsError = param.NewOpt(true)
			}
			content = append(content, sdk.ContentBlockParamUnion{OfToolResult: &blk})
		}
	}
	if len(content) == 0 {
		return nil
	}
	if m.Role == chat.RoleAssistant && hasToolResult(content) {
		return fmt.Errorf("%s: tool results in an assistant message", ProviderName)
	}
	blocks := b.blocks(m.Role != chat.RoleAssistant)
	*blocks = append(*blocks, content...)
	return nil
}

func hasToolResult(content []sdk.ContentBlockParamUnion) bool {
	for _, c := range content {
		if c.OfToolResult != nil {
			return true
		}
	}
	return false
}

// mark puts a cache breakpoint on the last block sent so far that can carry one (thinking blocks cannot).
func (b *builder) mark() {
	for i := len(b.out) - 1; i >= 0; i-- {
		var content []sdk.ContentBlockParamUnion
		if b.out[i].OfUser != nil {
			content = b.out[i].OfUser.Content
		} else if b.out[i].OfAssistant != nil {
			content = b.out[i].OfAssistant.Content
		}
		for j := len(content) - 1; j >= 0; j-- {
			if cc := content[j].GetCacheControl(); cc != nil {
				*cc = b.cache
				return
			}
		}
	}
}

// toolInput returns a call's arguments as the object the API wants back. Arguments that are not a JSON object
// (a model's malformed call, which the tool loop answered with an error) go back as an empty object.
func toolInput(args json.RawMessage) json.RawMessage {
	trimmed := strings.TrimSpace(string(args))
	if strings.HasPrefix(trimmed, "{") && json.Valid(args) {
		return args
	}
	return json.RawMessage(`{}`)
}

// imageBlock returns f as an image block, by its URL or its bytes, and false when f is no image Claude takes.
func imageBlock(f chat.File) (sdk.ContentBlockParamUnion, bool) {
	if !f.IsImage() {
		return sdk.ContentBlockParamUnion{}, false
	}
	if len(f.Data) == 0 {
		return sdk.NewImageBlock(sdk.URLImageSourceParam{URL: f.URL}), true
	}
	switch f.MediaType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return sdk.NewImageBlockBase64(f.MediaType, base64.StdEncoding.EncodeToString(f.Data)), true
	}
	return sdk.ContentBlockParamUnion{}, false
}

// fileBlock returns an image or document block for f.
func fileBlock(f chat.File) (sdk.ContentBlockParamUnion, error) {
	if blk, ok := imageBlock(f); ok {
		return blk, nil
	}
	data := base64.StdEncoding.EncodeToString(f.Data)
	switch {
	case f.MediaType == "application/pdf":
		var blk sdk.ContentBlockParamUnion
		if len(f.Data) == 0 {
			blk = sdk.NewDocumentBlock(sdk.URLPDFSourceParam{URL: f.URL})
		} else {
			blk = sdk.NewDocumentBlock(sdk.Base64PDFSourceParam{Data: data})
		}
		if f.Name != "" {
			blk.OfDocument.Title = param.NewOpt(f.Name)
		}
		return blk, nil
	case f.MediaType == "text/plain" && len(f.Data) > 0:
		blk := sdk.NewDocumentBlock(sdk.PlainTextSourceParam{Data: string(f.Data)})
		if f.Name != "" {
			blk.OfDocument.Title = param.NewOpt(f.Name)
		}
		return blk, nil
	}
	return sdk.ContentBlockParamUnion{}, fmt.Errorf("%s: file %q of type %q: %w: Claude takes JPEG, PNG, GIF and WebP images and PDF documents (by bytes or URL) and plain text documents (by bytes); convert the file, or set its MediaType to one of these", ProviderName, fileName(f), f.MediaType, chat.ErrInvalidRequest)
}

// fileName names f in an error: its name, else its URL.
func fileName(f chat.File) string {
	if f.Name != "" {
		return f.Name
	}
	return f.URL
}

// notShown says why a tool result's file is not shown to Claude.
const notShown = "Claude takes JPEG, PNG, GIF and WebP images in a tool result"

// toolResultFile returns an image a tool returned as an image block of its tool_result, after the result's
// text; in place of a file Claude does not take there, a text block naming it.
func toolResultFile(f chat.File) sdk.ToolResultBlockParamContentUnion {
	if blk, ok := imageBlock(f); ok {
		return sdk.ToolResultBlockParamContentUnion{OfImage: blk.OfImage}
	}
	return sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: f.NotShown(notShown)}}
}

// schemaCache keeps each tool schema as the SDK's input schema: a run offers the same tools on every round.
var (
	schemaCache     sync.Map // string -> sdk.ToolInputSchemaParam
	schemaCacheSize atomic.Int64
)

// maxCachedSchemas bounds the cache for programs that make tools at run time (MCP servers).
const maxCachedSchemas = 4096

// inputSchema splits a tool's JSON Schema into the SDK's input schema: properties, required and the other
// keywords as extra fields, their values kept as raw JSON.
func inputSchema(schema json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	if len(schema) == 0 {
		return sdk.ToolInputSchemaParam{Properties: map[string]any{}}, nil
	}
	if v, ok := schemaCache.Load(string(schema)); ok {
		return v.(sdk.ToolInputSchemaParam), nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	var s sdk.ToolInputSchemaParam
	for k, v := range top {
		switch k {
		case "type":
			if string(v) != `"object"` {
				return s, fmt.Errorf("schema of type %s: Claude takes tools whose input is an object", v)
			}
		case "properties":
			s.Properties = v
		case "required":
			if err := json.Unmarshal(v, &s.Required); err != nil {
				return s, fmt.Errorf("schema's required: %w", err)
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	if schemaCacheSize.Add(1) <= maxCachedSchemas {
		schemaCache.Store(string(schema), s)
	}
	return s, nil
}
