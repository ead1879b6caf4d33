package gemini

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/providerkit"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
)

// request is one generateContent call's arguments.
type request struct {
	model    string
	contents []*genai.Content
	config   *genai.GenerateContentConfig
}

// callPrefix marks the call ids this package makes up for calls Gemini sent without one; they are not sent back.
const callPrefix = "gemini_call_"

var no = false

// request builds the call of a conversation under opts.
func (c *Client) request(msgs []chat.Message, opts *chat.Options) (*request, error) {
	if opts == nil {
		opts = &chat.Options{}
	}
	r := &request{model: opts.Model, config: &genai.GenerateContentConfig{AutomaticContinuation: &no}}
	if r.model == "" {
		r.model = c.model
	}
	if r.model == "" {
		return nil, fmt.Errorf("%s: no model: set chat.Options.Model or the client's default model", ProviderName)
	}
	cfg := r.config
	var system []*genai.Part
	if opts.Instructions != "" {
		system = append(system, &genai.Part{Text: opts.Instructions})
	}
	// Function responses name their function; the history's calls say which.
	names := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tc, ok := p.(chat.ToolCall); ok {
				names[tc.ID] = tc.Name
			}
		}
	}
	for _, m := range msgs {
		if m.Role == chat.RoleSystem {
			if t := m.Text(); t != "" {
				system = append(system, &genai.Part{Text: t})
			}
			continue
		}
		content, results, err := convert(m, names, r.model)
		if err != nil {
			return nil, err
		}
		if content != nil {
			r.contents = append(r.contents, content)
		}
		if results != nil {
			r.contents = append(r.contents, results)
		}
	}
	r.contents = turns(r.contents)
	if len(system) > 0 {
		cfg.SystemInstruction = &genai.Content{Parts: system}
	}
	if opts.Temperature != nil {
		t := float32(*opts.Temperature)
		cfg.Temperature = &t
	}
	if opts.TopP != nil {
		p := float32(*opts.TopP)
		cfg.TopP = &p
	}
	if opts.MaxTokens != nil {
		cfg.MaxOutputTokens = int32(*opts.MaxTokens)
	}
	cfg.StopSequences = opts.Stop
	if opts.Seed != nil {
		s := int32(*opts.Seed)
		cfg.Seed = &s
	}
	if len(opts.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(opts.Tools))
		for _, t := range opts.Tools {
			a, err := schemaprofile.Gemini.Adapt(t.Name, t.Schema)
			if err != nil {
				return nil, err
			}
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: a.Schema})
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	switch opts.ToolChoice {
	case "", "auto":
	case "none":
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}}
	case "required":
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}}
	default:
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
			Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{opts.ToolChoice}}}
	}
	if rf := opts.ResponseFormat; rf != nil {
		name := rf.Name
		if name == "" {
			name = "response"
		}
		if g := generation(r.model); len(opts.Tools) > 0 && g > 0 && g < 3 {
			// Gemini 2 refuses the pair: "Function calling with a response mime type: 'application/json' is
			// unsupported". Gemini 3 takes it; a model whose name says no generation is left to the API.
			return nil, fmt.Errorf("%s: response format %q with tools: %w: %s takes a JSON schema answer or function calling, not both; "+
				"ask for the answer through a tool, or use a Gemini 3 model", ProviderName, name, chat.ErrInvalidRequest, r.model)
		}
		a, err := schemaprofile.Gemini.Adapt(name, rf.Schema)
		if err != nil {
			return nil, err
		}
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = a.Schema
	}
	if err := thinking(cfg, r.model, opts.Reasoning); err != nil {
		return nil, err
	}
	if len(opts.Extra) > 0 {
		// genai merges ExtraBody into its body map by map: decoded objects merge key by key, which raw JSON
		// would not. What the library set is checked first, on the body's shape.
		body, err := wireShape(r.contents, cfg)
		if err != nil {
			return nil, err
		}
		if err := providerkit.Merge(ProviderName, body, opts.Extra); err != nil {
			return nil, err
		}
		extra := make(map[string]any, len(opts.Extra))
		for k, raw := range opts.Extra {
			extra[k], _ = providerkit.Decode(raw) // Merge decoded each already
		}
		cfg.HTTPOptions = &genai.HTTPOptions{ExtraBody: extra}
	}
	return r, nil
}

// turns puts contents in the order Gemini takes: a user turn first ([providerkit.StartText] where the history
// has none: Gemini wants a function call right after a user turn or a function response); turns of one role in a row joined into one
// (function responses kept apart from other user content), and a user's content that came between a model's
// function calls and their responses moved after the responses, which must follow the calls.
func turns(contents []*genai.Content) []*genai.Content {
	out := contents[:0:0]
	for _, c := range contents {
		n := len(out)
		if n >= 2 && isResponses(c) && out[n-1].Role == genai.RoleUser && !isResponses(out[n-1]) && hasCalls(out[n-2]) {
			out[n-1], c = c, out[n-1]
			n--
			out = out[:n+1]
		}
		if n > 0 && out[n-1].Role == c.Role && isResponses(out[n-1]) == isResponses(c) {
			joined := *out[n-1]
			joined.Parts = append(append([]*genai.Part(nil), out[n-1].Parts...), c.Parts...)
			out[n-1] = &joined
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 || out[0].Role != genai.RoleUser || isResponses(out[0]) {
		out = append([]*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: providerkit.StartText}}}}, out...)
	}
	return out
}

// isResponses reports a user turn of function responses, which must follow the model's calls and be kept apart
// from other user content.
func isResponses(c *genai.Content) bool {
	return len(c.Parts) > 0 && c.Parts[0].FunctionResponse != nil
}

// hasCalls reports a model turn that calls functions.
func hasCalls(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			return true
		}
	}
	return false
}

// topLevel are the config's fields genai sends at the top of the body; the others go in generationConfig.
var topLevel = map[string]bool{"systemInstruction": true, "safetySettings": true, "tools": true, "toolConfig": true,
	"labels": true, "cachedContent": true, "serviceTier": true, "continuationToken": true, "store": true}

// clientOnly are the config's fields genai does not send.
var clientOnly = map[string]bool{"httpOptions": true, "automaticFunctionCalling": true, "shouldReturnHttpResponse": true}

// wireShape returns the body genai sends for contents and cfg, as far as Extra can collide with it: the config's
// fields where the API takes them, at the top or in generationConfig.
func wireShape(contents []*genai.Content, cfg *genai.GenerateContentConfig) (map[string]any, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: encode the request: %w", ProviderName, err)
	}
	v, err := providerkit.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: encode the request: %w", ProviderName, err)
	}
	body, gen := map[string]any{}, map[string]any{}
	for k, x := range v.(map[string]any) {
		switch {
		case clientOnly[k]:
		case topLevel[k]:
			body[k] = x
		default:
			gen[k] = x
		}
	}
	if len(gen) > 0 {
		body["generationConfig"] = gen
	}
	if len(contents) > 0 {
		body["contents"] = true // a list Extra cannot merge into
	}
	return body, nil
}

// thinking sets the thinking config of the request's reasoning options: a token budget (an effort stands for
// one on Gemini 2 models, see [providerkit.Budget]), or, on Gemini 3 models, a thinking level; none is a budget
// of zero; IncludeThoughts asks for the thoughts' summaries.
func thinking(cfg *genai.GenerateContentConfig, model string, ro *chat.ReasoningOptions) error {
	if ro == nil {
		return nil
	}
	tc := &genai.ThinkingConfig{}
	switch {
	case ro.Effort == chat.ReasoningNone:
		tc.ThinkingBudget = genai.Ptr[int32](0)
	case ro.BudgetTokens > 0:
		tc.ThinkingBudget = genai.Ptr(int32(ro.BudgetTokens))
	case ro.Effort != "":
		if generation(model) >= 3 {
			tc.ThinkingLevel = genai.ThinkingLevel(strings.ToUpper(string(ro.Effort)))
			if !providerkit.ValidEffort(ro.Effort) {
				return fmt.Errorf("%s: reasoning effort %q: %w: Gemini takes minimal, low, medium or high", ProviderName, ro.Effort, chat.ErrInvalidRequest)
			}
			break
		}
		b := providerkit.Budget(ro.Effort)
		if b == 0 {
			return fmt.Errorf("%s: reasoning effort %q: %w: Gemini takes minimal, low, medium, high or none (or a BudgetTokens)", ProviderName, ro.Effort, chat.ErrInvalidRequest)
		}
		tc.ThinkingBudget = genai.Ptr(int32(b))
	}
	if ro.IncludeThoughts != nil {
		tc.IncludeThoughts = *ro.IncludeThoughts
	}
	if tc.ThinkingBudget != nil || tc.ThinkingLevel != "" || tc.IncludeThoughts {
		cfg.ThinkingConfig = tc
	}
	return nil
}

// convert returns the contents of one message for model: the message itself, and a user content holding the
// function responses of its tool results. Approval parts belong to the run pipeline, usage is bookkeeping and
// another provider's reasoning is left out; none is sent.
func convert(m chat.Message, names map[string]string, model string) (content, results *genai.Content, err error) {
	role := genai.RoleUser
	if m.Role == chat.RoleAssistant {
		role = genai.RoleModel
	}
	var parts, responses []*genai.Part
	var signature []byte // a thought signature waiting for the part it was attached to
	attach := func(p *genai.Part) *genai.Part {
		if signature != nil {
			p.ThoughtSignature, signature = signature, nil
		}
		return p
	}
	for _, part := range m.Parts {
		switch part := part.(type) {
		case chat.Text:
			if part.Text != "" {
				parts = append(parts, attach(&genai.Part{Text: part.Text}))
			}
		case chat.Reasoning:
			if part.Provider != ProviderName {
				continue
			}
			var sig []byte
			if part.Signature != "" {
				if sig, err = base64.StdEncoding.DecodeString(part.Signature); err != nil {
					return nil, nil, fmt.Errorf("%s: a thought signature that is not base64: %w", ProviderName, err)
				}
			}
			// The thoughts' text is a summary Gemini does not need back; the signature goes on the part after
			// it, where Gemini put it.
			if sig != nil {
				if signature != nil {
					parts = append(parts, &genai.Part{ThoughtSignature: signature})
				}
				signature = sig
			}
		case chat.ToolCall:
			args := map[string]any{}
			if len(part.Arguments) > 0 && json.Valid(part.Arguments) {
				if err := json.Unmarshal(part.Arguments, &args); err != nil {
					args = map[string]any{} // arguments that were not an object: the tool loop answered them
				}
			}
			id := part.ID
			if strings.HasPrefix(id, callPrefix) {
				id = ""
			}
			parts = append(parts, attach(&genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: part.Name, Args: args}}))
		case chat.ToolResult:
			resp := map[string]any{}
			if part.Error != "" {
				resp["error"] = part.Error
			} else {
				var v any = json.RawMessage(part.Result)
				if len(part.Result) == 0 || !json.Valid(part.Result) {
					v = string(part.Result)
				}
				resp["output"] = v
			}
			id := part.CallID
			if strings.HasPrefix(id, callPrefix) {
				id = ""
			}
			fr := &genai.FunctionResponse{ID: id, Name: names[part.CallID], Response: resp}
			var notShown []string
			for _, f := range part.Files {
				switch p := responsePart(f); {
				case !mediaResponses(model):
					notShown = append(notShown, f.NotShown(model+" takes no images in a function response; Gemini 3 models do"))
				case p == nil:
					notShown = append(notShown, f.NotShown("Gemini takes PNG, JPEG and WebP images in a function response"))
				default:
					fr.Parts = append(fr.Parts, p)
				}
			}
			if notShown != nil {
				resp["not_shown"] = notShown
			}
			responses = append(responses, &genai.Part{FunctionResponse: fr})
		case chat.File:
			p, err := filePart(part)
			if err != nil {
				return nil, nil, err
			}
			parts = append(parts, p)
		}
	}
	if signature != nil { // a signature Gemini sent on an empty part goes back so
		parts = append(parts, &genai.Part{ThoughtSignature: signature})
	}
	if len(parts) > 0 {
		content = &genai.Content{Role: role, Parts: parts}
	}
	if len(responses) > 0 {
		results = &genai.Content{Role: genai.RoleUser, Parts: responses}
	}
	return content, results, nil
}

// mediaResponses reports whether model takes images in a function response (multimodal function responses):
// Gemini 3 models and later do; a Gemini 2 model refuses the whole request, and so may a model by another name
// (an alias, a tuned model), which this cannot tell.
func mediaResponses(model string) bool { return generation(model) >= 3 }

// generation returns the major version a Gemini model's name says ("gemini-3-pro-preview": 3), or 0 for a name
// that says none.
func generation(model string) int {
	rest, ok := strings.CutPrefix(model[strings.LastIndexByte(model, '/')+1:], "gemini-")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	major, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return major
}

// responsePart returns an image a tool returned as a part of its function response (a multimodal function
// response: the bytes inline, or a URL as file data), or nil for a file Gemini does not take there.
func responsePart(f chat.File) *genai.FunctionResponsePart {
	if !f.IsImage() {
		return nil
	}
	if len(f.Data) == 0 {
		p, err := filePart(f)
		if err != nil {
			return nil
		}
		return genai.NewFunctionResponsePartFromURI(p.FileData.FileURI, p.FileData.MIMEType)
	}
	switch f.MediaType {
	case "image/png", "image/jpeg", "image/webp":
		return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: f.MediaType, Data: f.Data}}
	}
	return nil
}

// filePart returns an image or a document: its bytes inline, or its URL (an https URL, or a file the Files API
// holds) as file data.
func filePart(f chat.File) (*genai.Part, error) {
	if f.URL == "" {
		if f.MediaType == "" {
			return nil, fmt.Errorf("%s: file %q: %w: Gemini needs the media type of a file's bytes; set File.MediaType", ProviderName, f.Name, chat.ErrInvalidRequest)
		}
		return &genai.Part{InlineData: &genai.Blob{MIMEType: f.MediaType, Data: f.Data}}, nil
	}
	mt := f.MediaType
	if mt == "" {
		if u, err := url.Parse(f.URL); err == nil {
			mt = mime.TypeByExtension(path.Ext(u.Path))
		}
		if i := strings.IndexByte(mt, ';'); i >= 0 {
			mt = mt[:i]
		}
	}
	if mt == "" {
		return nil, fmt.Errorf("%s: file %s: %w: Gemini needs a file's media type, and its URL's name has no extension that says it; set File.MediaType (such as \"image/png\" or \"application/pdf\")", ProviderName, f.URL, chat.ErrInvalidRequest)
	}
	return &genai.Part{FileData: &genai.FileData{FileURI: f.URL, MIMEType: mt}}, nil
}
