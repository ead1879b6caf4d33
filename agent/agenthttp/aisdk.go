package agenthttp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// This file serves the AI SDK's UI message stream (the protocol useChat's default transport reads): the request
// is what the transport posts, the answer a stream of UI message chunks as Server-Sent Events.

// uiChatRequest is what useChat's default transport posts. Fields the application adds to the body are
// ignored.
type uiChatRequest struct {
	// ID is the chat's id: the conversation's.
	ID string `json:"id"`
	// Messages is the client's copy of the chat. Only the last message is read: the user's new message, or the
	// assistant message holding the answers to its approval requests. The history is the stored one.
	Messages []uiMessage `json:"messages"`
	// Trigger is "submit-message" or "regenerate-message".
	Trigger string `json:"trigger"`
	// Mode, which the application adds to the body (the transport's body option), runs in this mode (one of
	// Options.ClientModes); otherwise the conversation's mode goes on.
	Mode *string `json:"mode"`
}

type uiMessage struct {
	ID    string            `json:"id"`
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

// uiPart is the fields of the message parts this endpoint reads.
type uiPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	MediaType string `json:"mediaType"`
	URL       string `json:"url"`
	Filename  string `json:"filename"`
	State     string `json:"state"`
	Approval  *struct {
		ID       string `json:"id"`
		Approved *bool  `json:"approved"`
		Reason   string `json:"reason"`
	} `json:"approval"`
}

// uiInput reads the run's input from the last message.
func uiInput(req *uiChatRequest) (input, error) {
	if req.ID == "" {
		return input{}, &fieldError{Pointer: "/id", Detail: "required: the chat's id"}
	}
	if req.Trigger == "regenerate-message" {
		return input{}, &fieldError{Pointer: "/trigger", Detail: "regenerating a message is not supported: send a new message"}
	}
	if len(req.Messages) == 0 {
		return input{}, &fieldError{Pointer: "/messages", Detail: "required: the new message"}
	}
	at := "/messages/" + itoa(len(req.Messages)-1)
	last := req.Messages[len(req.Messages)-1]
	var in input
	var texts []string
	for i, raw := range last.Parts {
		var p uiPart
		if err := json.Unmarshal(raw, &p); err != nil {
			return input{}, &fieldError{Pointer: at + "/parts/" + itoa(i), Detail: "not a message part"}
		}
		switch {
		case last.Role == "user" && p.Type == "text":
			texts = append(texts, p.Text)
		case last.Role == "user" && p.Type == "file":
			f, err := fileOf(at+"/parts/"+itoa(i), p.MediaType, "", p.URL, p.Filename)
			if err != nil {
				return input{}, err
			}
			in.files = append(in.files, f)
		case last.Role == "user":
			return input{}, &fieldError{Pointer: at + "/parts/" + itoa(i) + "/type", Detail: "only text and file parts are taken from the user"}
		case last.Role == "assistant" && isUITool(p.Type) && p.State == "approval-responded" && p.Approval != nil:
			if p.Approval.Approved == nil {
				return input{}, &fieldError{Pointer: at + "/parts/" + itoa(i) + "/approval/approved", Detail: "required"}
			}
			in.answers = append(in.answers, chat.ApprovalAnswer{RequestID: p.Approval.ID, Approved: *p.Approval.Approved,
				Reason: p.Approval.Reason})
		}
	}
	switch last.Role {
	case "user", "assistant":
	default:
		return input{}, &fieldError{Pointer: at + "/role", Detail: `the last message must be the user's, or the assistant's with approval answers`}
	}
	in.text = strings.Join(texts, "\n")
	in.mode = req.Mode
	if in.text == "" && len(in.files) == 0 && len(in.answers) == 0 {
		return input{}, &fieldError{Pointer: at, Detail: "the message holds no text, no file and no approval answer"}
	}
	return in, nil
}

func isUITool(typ string) bool { return typ == "dynamic-tool" || strings.HasPrefix(typ, "tool-") }

// uiMessageStream runs an agent for useChat.
func (h *Handler) uiMessageStream(w http.ResponseWriter, r *http.Request) error {
	var req uiChatRequest
	host, err := h.protocolRequest(w, r, &req)
	if err != nil {
		return err
	}
	in, err := uiInput(&req)
	if err != nil {
		return err
	}
	opts, err := h.options(in)
	if err != nil {
		return err
	}
	held, err := h.prepareProtocolRun(r, host, req.ID, in)
	if err != nil {
		return err
	}
	msgID := newID()
	if last := req.Messages[len(req.Messages)-1]; last.Role == "assistant" && last.ID != "" {
		msgID = last.ID // the answers continue the assistant's message
	}
	s := &uiSink{h: h, w: w, r: r, held: held, sent: map[string]bool{}, messageID: msgID,
		stream: h.newSSE(w, func(hd http.Header) {
			hd.Set("X-Vercel-Ai-Ui-Message-Stream", "v1")
		})}
	h.run(r, host, req.ID, opts, s)
	return nil
}

// protocolRequest finds the agent a protocol endpoint names and decodes its body into v, loosely: the
// protocols' clients send fields of their own that the server does not read.
func (h *Handler) protocolRequest(w http.ResponseWriter, r *http.Request, v any) (*agent.Host, error) {
	host, err := h.host(r.PathValue("agent"))
	if err != nil {
		return nil, err
	}
	data, err := readBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	if err := decodeLoose(data, v); err != nil {
		return nil, err
	}
	return host, nil
}

// prepareProtocolRun checks a stream protocol's run on a conversation the client names: answers need the
// tenant's conversation to exist (another tenant's is not found, as one that does not exist), while text starts
// a new one. It returns the calls the client already holds: those of the requests the answers name.
func (h *Handler) prepareProtocolRun(r *http.Request, host *agent.Host, id string, in input) (heldCalls, error) {
	held := heldCalls{}
	if len(in.answers) == 0 {
		return held, nil
	}
	st, err := h.conversationState(r.Context(), host, principal(r).SettingsID, id)
	if err != nil {
		return nil, err
	}
	for _, a := range in.answers {
		for _, p := range st.Pending {
			if p.ID == a.RequestID {
				held[p.Call.ID] = a.Approved
			}
		}
	}
	return held, nil
}

// heldCalls maps the ids of the calls a client already holds, from an earlier stream, to whether their answer
// approved them. A resumed run sends their results onto the calls the client holds, never the calls again: the
// protocols' clients would append the arguments a second time (AG-UI) or show the call twice (the AI SDK).
type heldCalls map[string]bool

// uiSink writes a run as UI message chunks.
type uiSink struct {
	h         *Handler
	w         http.ResponseWriter
	r         *http.Request
	stream    *sse
	held      heldCalls       // the calls the client holds from the stream that asked for their approval
	sent      map[string]bool // the calls this stream has sent
	started   bool
	stepOpen  bool
	messageID string
	textID    string // the open text part, or ""
	reasonID  string // the open reasoning part, or ""
	answerID  string // the answer's data part, once its first value went out
	answered  bool   // the accepted answer went out
}

// answer sends the answer as the message's data-answer part: every value of it under one id, which the AI SDK's
// client replaces in place, so the chat ends with the accepted answer as the part's data.
func (s *uiSink) answer(ev answerEventJSON) {
	if s.answerID == "" {
		s.answerID = newID()
	}
	s.answered = ev.Final
	s.chunk(map[string]any{"type": "data-answer", "id": s.answerID, "data": ev})
}

// reasoning streams a reasoning delta as a reasoning part. Only the text reaches the client: the signature and
// the encrypted form are the provider's, kept in the stored conversation. A part that carries them ends its
// block, and the part.
func (s *uiSink) reasoning(p chat.Reasoning) {
	if p.Text != "" {
		if s.reasonID == "" {
			s.endText()
			s.step()
			s.reasonID = newID()
			s.chunk(map[string]any{"type": "reasoning-start", "id": s.reasonID})
		}
		s.chunk(map[string]any{"type": "reasoning-delta", "id": s.reasonID, "delta": p.Text})
	}
	if p.Signature != "" || p.Encrypted != "" {
		s.endReasoning()
	}
}

func (s *uiSink) endReasoning() {
	if s.reasonID != "" {
		s.chunk(map[string]any{"type": "reasoning-end", "id": s.reasonID})
		s.reasonID = ""
	}
}

func (s *uiSink) chunk(v map[string]any) { s.stream.event(s.h.opts.Heartbeat, "", "", v) }

func (s *uiSink) begin() {
	if s.started {
		return
	}
	s.started = true
	if s.messageID == "" { // a resumed stream: the chat keeps the id of the message it streams
		s.chunk(map[string]any{"type": "start"})
		return
	}
	s.chunk(map[string]any{"type": "start", "messageId": s.messageID})
}

// step opens the stream's step before its first model output. The results of the calls the client holds come
// before it, as the AI SDK's own server sends the results of approved tools.
func (s *uiSink) step() {
	if !s.stepOpen {
		s.stepOpen = true
		s.chunk(map[string]any{"type": "start-step"})
	}
}

func (s *uiSink) endText() {
	if s.textID != "" {
		s.chunk(map[string]any{"type": "text-end", "id": s.textID})
		s.textID = ""
	}
}

// toolInput sends a call, unless the client holds it already.
func (s *uiSink) toolInput(c chat.ToolCall) {
	if isHeld(s.held, c.ID) || s.sent[c.ID] {
		return
	}
	s.sent[c.ID] = true
	s.step()
	s.chunk(map[string]any{"type": "tool-input-start", "toolCallId": c.ID, "toolName": c.Name, "dynamic": true})
	s.chunk(map[string]any{"type": "tool-input-available", "toolCallId": c.ID, "toolName": c.Name,
		"input": jsonOrString(c.Arguments), "dynamic": true})
}

func (s *uiSink) update(u chat.Update) {
	s.begin()
	if u.Steering {
		// The UI message stream writes one assistant message: the input the run took in is a data part of it,
		// where the stored conversation holds it.
		s.endReasoning()
		s.endText()
		if text := steeringText(u); text != "" {
			s.chunk(map[string]any{"type": "data-steering", "id": newID(), "data": map[string]string{"text": text}})
		}
		return
	}
	if u.Answer != nil {
		if ev, ok := answerEventOf(u.Answer); ok {
			s.answer(ev)
		}
		return
	}
	for _, p := range u.Parts {
		if r, ok := p.(chat.Reasoning); ok {
			if u.Role == chat.RoleAssistant {
				s.reasoning(r)
			}
			continue
		}
		if _, ok := p.(chat.UsagePart); !ok {
			s.endReasoning()
		}
		switch p := p.(type) {
		case chat.Text:
			if p.Text == "" || u.Role != chat.RoleAssistant {
				continue
			}
			if s.textID == "" {
				s.step()
				s.textID = newID()
				s.chunk(map[string]any{"type": "text-start", "id": s.textID})
			}
			s.chunk(map[string]any{"type": "text-delta", "id": s.textID, "delta": p.Text})
		case chat.ToolCall:
			s.endText()
			s.toolInput(p)
		case chat.ApprovalRequest:
			s.endText()
			s.toolInput(p.Call)
			s.chunk(map[string]any{"type": "tool-approval-request", "approvalId": p.ID, "toolCallId": p.Call.ID})
		case chat.ToolResult:
			s.endText()
			if !isHeld(s.held, p.CallID) {
				s.step()
			}
			switch {
			case isHeld(s.held, p.CallID) && !s.held[p.CallID]:
				s.chunk(map[string]any{"type": "tool-output-denied", "toolCallId": p.CallID})
			case p.Error != "":
				s.chunk(map[string]any{"type": "tool-output-error", "toolCallId": p.CallID, "errorText": p.Error, "dynamic": true})
			default:
				s.chunk(map[string]any{"type": "tool-output-available", "toolCallId": p.CallID, "output": jsonOrString(p.Result), "dynamic": true})
			}
		}
	}
}

func (s *uiSink) end(res *agent.Result, err error) {
	defer s.stream.close()
	s.begin()
	s.endReasoning()
	s.endText()
	if v := answerValue(res.Answer); v != nil && err == nil && !s.answered {
		s.answer(answerEventJSON{Type: res.AnswerType, Value: v, Final: true})
	}
	if err != nil {
		s.chunk(map[string]any{"type": "error", "errorText": problemOf(err).Detail})
	}
	if s.stepOpen {
		s.chunk(map[string]any{"type": "finish-step"})
	}
	reason := "stop"
	switch {
	case err != nil:
		reason = "error"
	case len(res.Pending) > 0:
		reason = "tool-calls"
	case res.FinishReason == chat.FinishLength:
		reason = "length"
	case res.FinishReason == chat.FinishContentFilter:
		reason = "content-filter"
	}
	s.chunk(map[string]any{"type": "finish", "finishReason": reason})
	s.stream.raw("[DONE]")
}

// isHeld reports whether the client holds the call.
func isHeld(held heldCalls, callID string) bool {
	_, ok := held[callID]
	return ok
}

func (s *uiSink) refuse(err error) { writeProblem(s.w, s.r, s.h.log, err) }

func (s *uiSink) streams() bool { return true }

func (s *uiSink) written() bool { return s.stream.opened() }
