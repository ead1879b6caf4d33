package gemini

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// assembler turns the responses of a call (one, or a stream's chunks) into updates: text and thoughts as they
// come, each function call whole (Gemini sends them whole), a thought signature as a reasoning part just before
// the part it was attached to (so that the thoughts before it and the signature join into one reasoning part);
// usage and the finish reason are kept for the end.
type assembler struct {
	id, model string
	finish    genai.FinishReason
	blocked   bool // the prompt was refused, with no candidate
	calls     int
	usage     chat.Usage
	hasUsage  bool
}

func (a *assembler) add(r *genai.GenerateContentResponse) []chat.Update {
	if r == nil {
		return nil
	}
	if r.ResponseID != "" {
		a.id = r.ResponseID
	}
	if r.ModelVersion != "" {
		a.model = r.ModelVersion
	}
	if u := r.UsageMetadata; u != nil {
		// Every chunk may carry the running totals: the last one counts.
		a.usage = usage(u)
		a.hasUsage = true
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" && len(r.Candidates) == 0 {
		a.blocked = true
		a.finish = genai.FinishReasonSafety
		return nil
	}
	var out []chat.Update
	for _, c := range r.Candidates {
		if c == nil || c.Index != 0 {
			continue
		}
		if c.Content != nil {
			var parts []chat.Part
			for _, p := range c.Content.Parts {
				parts = a.part(parts, p)
			}
			if len(parts) > 0 {
				out = append(out, chat.Update{ResponseID: a.id, Role: chat.RoleAssistant, Parts: parts})
			}
		}
		if c.FinishReason != "" && c.FinishReason != genai.FinishReasonUnspecified {
			a.finish = c.FinishReason
		}
	}
	return out
}

// part appends what one response part holds.
func (a *assembler) part(out []chat.Part, p *genai.Part) []chat.Part {
	if p == nil {
		return out
	}
	sig := ""
	if len(p.ThoughtSignature) > 0 {
		sig = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
	}
	switch {
	case p.Thought:
		return append(out, chat.Reasoning{Provider: ProviderName, Text: p.Text, Signature: sig})
	case p.FunctionCall != nil:
		if sig != "" {
			out = append(out, chat.Reasoning{Provider: ProviderName, Signature: sig})
		}
		a.calls++
		fc := p.FunctionCall
		id := fc.ID
		if id == "" {
			id = newCallID()
		}
		args, err := json.Marshal(fc.Args)
		if err != nil || fc.Args == nil {
			args = []byte("{}")
		}
		return append(out, chat.ToolCall{ID: id, Name: fc.Name, Arguments: args})
	case p.Text != "":
		if sig != "" {
			out = append(out, chat.Reasoning{Provider: ProviderName, Signature: sig})
		}
		return append(out, chat.Text{Text: p.Text})
	case sig != "":
		// A signature on an empty part (Gemini may end a streamed answer so): it goes back on an empty part.
		return append(out, chat.Reasoning{Provider: ProviderName, Signature: sig})
	}
	raw, err := json.Marshal(p)
	if err == nil && string(raw) != "{}" {
		out = append(out, chat.Raw{Provider: ProviderName, Data: raw})
	}
	return out
}

// newCallID makes up an id for a call Gemini sent without one: the run needs one to match the call's result.
func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return callPrefix + hex.EncodeToString(b[:])
}

func (a *assembler) modelName(asked string) string {
	if a.model != "" {
		return a.model
	}
	return asked
}

// finishReason maps Gemini's reason; a model that stopped after calling functions finished for them.
func (a *assembler) finishReason() chat.FinishReason {
	switch a.finish {
	case genai.FinishReasonStop:
		if a.calls > 0 {
			return chat.FinishToolCalls
		}
		return chat.FinishStop
	case genai.FinishReasonMaxTokens:
		return chat.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist, genai.FinishReasonProhibitedContent,
		genai.FinishReasonSPII, genai.FinishReasonImageSafety:
		return chat.FinishContentFilter
	case "":
		return ""
	}
	if a.calls > 0 {
		return chat.FinishToolCalls
	}
	return chat.FinishReason(strings.ToLower(string(a.finish)))
}

// usage converts Gemini's counts: its candidates' count leaves the thoughts out, which chat counts in the
// output; its prompt count holds the cached tokens.
func usage(u *genai.GenerateContentResponseUsageMetadata) chat.Usage {
	out := chat.Usage{
		InputTokens:     int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
		OutputTokens:    int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
		TotalTokens:     int64(u.TotalTokenCount),
		CacheReadTokens: int64(u.CachedContentTokenCount),
		ReasoningTokens: int64(u.ThoughtsTokenCount),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}
