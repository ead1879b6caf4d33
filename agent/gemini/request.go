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
		a, err := schemaprofile.Gemini.Adapt(name, rf.Schema)
		if err != nil {
			return nil, err
		}
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = a.Schema
	}
	if len(opts.Extra) > 0 {
		extra := make(map[string]any, len(opts.Extra))
		for k, v := range opts.Extra {
			extra[k] = v
		}
		cfg.HTTPOptions = &genai.HTTPOptions{ExtraBody: extra}
	}
	return r, nil
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
func mediaResponses(model string) bool {
	rest, ok := strings.CutPrefix(model[strings.LastIndexByte(model, '/')+1:], "gemini-")
	if !ok {
		return false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	major, err := strconv.Atoi(rest[:end])
	return err == nil && major >= 3
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
			return nil, fmt.Errorf("%s: file %q has no media type", ProviderName, f.Name)
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
		return nil, fmt.Errorf("%s: file %s: Gemini needs its media type, and its name does not say it", ProviderName, f.URL)
	}
	return &genai.Part{FileData: &genai.FileData{FileURI: f.URL, MIMEType: mt}}, nil
}
