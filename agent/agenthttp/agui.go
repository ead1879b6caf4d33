package agenthttp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// This file serves AG-UI: the request is a RunAgentInput, the answer its events as Server-Sent Events. An approval
// request ends the run with an interrupt outcome; the next run's resume entries answer it.

// aguiInput is AG-UI's RunAgentInput. Fields of later protocol versions are ignored.
type aguiInput struct {
	// ThreadID is the conversation's id.
	ThreadID string `json:"threadId"`
	RunID    string `json:"runId"`
	// Messages is the client's copy of the thread; only the last message is read, and only when it is the
	// user's. The history is the stored one.
	Messages []aguiMessage `json:"messages"`
	// ForwardedProps may hold "mode" (one of Options.ClientModes); other props are the application's.
	ForwardedProps json.RawMessage `json:"forwardedProps"`
	// Resume answers the interrupts of the thread's last run: its open approval requests.
	Resume []aguiResume `json:"resume"`
}

type aguiMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type aguiResume struct {
	InterruptID string `json:"interruptId"`
	// Status is "resolved" or "cancelled"; a cancelled interrupt denies its call.
	Status string `json:"status"`
	// Payload of a resolved interrupt: {"approved": bool, "reason": string, "always": "tool"|"arguments"}; an
	// absent payload approves.
	Payload json.RawMessage `json:"payload"`
}

type aguiPayload struct {
	Approved *bool  `json:"approved"`
	Reason   string `json:"reason"`
	Always   string `json:"always"`
}

// aguiRunInput reads the run's input from a RunAgentInput.
func (h *Handler) aguiRunInput(req *aguiInput) (input, error) {
	var in input
	if req.ThreadID == "" {
		return in, &fieldError{Pointer: "/threadId", Detail: "required: the conversation's id"}
	}
	if len(req.ForwardedProps) > 0 && string(req.ForwardedProps) != "null" {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(req.ForwardedProps, &props); err != nil {
			return in, &fieldError{Pointer: "/forwardedProps", Detail: "must be an object"}
		}
		if raw, ok := props["mode"]; ok {
			var mode string
			if err := json.Unmarshal(raw, &mode); err != nil {
				return in, &fieldError{Pointer: "/forwardedProps/mode", Detail: "must be a string"}
			}
			in.mode = &mode
		}
	}
	if len(req.Resume) > 0 {
		// A resumed run answers; the client's messages are its copy of the thread, already stored.
		list := make([]answerJSON, 0, len(req.Resume))
		for i, r := range req.Resume {
			at := "/resume/" + itoa(i)
			a := answerJSON{RequestID: r.InterruptID}
			var p aguiPayload
			if len(r.Payload) > 0 && string(r.Payload) != "null" {
				if err := decodeStrict(r.Payload, &p); err != nil {
					return in, &fieldError{Pointer: at + "/payload", Detail: `must be {"approved": bool, "reason": string, "always": "tool" | "arguments"}`}
				}
			}
			switch r.Status {
			case "resolved":
				a.Approved = p.Approved == nil || *p.Approved
			case "cancelled":
			default:
				return in, &fieldError{Pointer: at + "/status", Detail: `must be "resolved" or "cancelled"`}
			}
			a.Reason, a.Always = p.Reason, p.Always
			list = append(list, a)
		}
		answers, err := answersOf(list)
		if err != nil {
			if ve, ok := err.(validationError); ok {
				for i := range ve {
					ve[i].Pointer = strings.Replace(ve[i].Pointer, "/approvals/", "/resume/", 1)
				}
			}
			return in, err
		}
		in.answers = answers
		return in, nil
	}
	if len(req.Messages) == 0 {
		return in, &fieldError{Pointer: "/messages", Detail: "required: the user's new message"}
	}
	at := "/messages/" + itoa(len(req.Messages)-1)
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" {
		return in, &fieldError{Pointer: at + "/role", Detail: "the last message must be the user's, or resume the interrupts"}
	}
	text, files, err := aguiContent(at+"/content", last.Content)
	if err != nil {
		return in, err
	}
	in.text, in.files = text, files
	return in, nil
}

// aguiPart is a user message's content part: text, or an image, audio, video or document whose source carries
// its bytes ("data"), a URL ("url") or a provider's file handle ("file").
type aguiPart struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source *struct {
		Type     string `json:"type"`
		Value    string `json:"value"`
		MimeType string `json:"mimeType"`
	} `json:"source"`
	Metadata struct {
		Filename string `json:"filename"`
	} `json:"metadata"`
}

// aguiContent reads a user message's content: a string, or an array of text and media parts.
func aguiContent(at string, content json.RawMessage) (string, []chat.File, error) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, nil, nil
	}
	var parts []aguiPart
	if json.Unmarshal(content, &parts) != nil {
		return "", nil, &fieldError{Pointer: at, Detail: "must be text, or text and media parts"}
	}
	var texts []string
	var files []chat.File
	for i, p := range parts {
		pat := at + "/" + itoa(i)
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image", "audio", "video", "document":
			if p.Source == nil {
				return "", nil, &fieldError{Pointer: pat + "/source", Detail: "required"}
			}
			var data, url string
			switch p.Source.Type {
			case "data":
				data = p.Source.Value
			case "url", "file":
				url = p.Source.Value
			default:
				return "", nil, &fieldError{Pointer: pat + "/source/type", Detail: `must be "data", "url" or "file"`}
			}
			f, err := fileOf(pat+"/source", p.Source.MimeType, data, url, p.Metadata.Filename)
			if err != nil {
				return "", nil, err
			}
			files = append(files, f)
		}
	}
	return strings.Join(texts, "\n"), files, nil
}

// agui runs an agent for an AG-UI client.
func (h *Handler) agui(w http.ResponseWriter, r *http.Request) error {
	var req aguiInput
	host, err := h.protocolRequest(w, r, &req)
	if err != nil {
		return err
	}
	in, err := h.aguiRunInput(&req)
	if err != nil {
		return err
	}
	opts, err := h.options(in)
	if err != nil {
		return err
	}
	held, err := h.prepareProtocolRun(r, host, req.ThreadID, in)
	if err != nil {
		return err
	}
	runID := req.RunID
	if runID == "" {
		runID = newID()
	}
	s := &aguiSink{h: h, w: w, r: r, thread: req.ThreadID, run: runID, held: held,
		sent: map[string]bool{}, stream: h.newSSE(w, nil)}
	h.run(r, host, req.ThreadID, opts, s)
	return nil
}

// aguiSink writes a run as AG-UI events.
type aguiSink struct {
	h           *Handler
	w           http.ResponseWriter
	r           *http.Request
	stream      *sse
	thread, run string
	held        heldCalls       // the calls the client holds from the run that asked for their approval
	sent        map[string]bool // the calls this run has sent
	started     bool
	messageID   string // the open text message, or ""
	reasoningID string // the open reasoning message, or ""
	lastMessage string // the last assistant message, the parent of its tool calls
	// accepted is the accepted answer the stream sent, if any: the run's Result.Answer.
	accepted *answerEventJSON
}

// answer sends a value of the answer as a STATE_DELTA that puts it at /answer of the client's state: the fields
// complete so far while it streams, then the accepted answer (final). The run's last STATE_SNAPSHOT holds the
// accepted answer too.
func (s *aguiSink) answer(ev answerEventJSON) {
	if ev.Final {
		s.accepted = &ev
	}
	s.send("STATE_DELTA", map[string]any{"delta": []map[string]any{{"op": "add", "path": "/answer", "value": ev}}})
}

func (s *aguiSink) send(typ string, v map[string]any) {
	v["type"] = typ
	s.stream.event(s.h.opts.Heartbeat, "", "", v)
}

func (s *aguiSink) begin() {
	if s.started {
		return
	}
	s.started = true
	s.send("RUN_STARTED", map[string]any{"threadId": s.thread, "runId": s.run})
}

// reasoning streams a reasoning delta as a reasoning message of its own. Only the text reaches the client: the
// signature and the encrypted form are the provider's, kept in the stored conversation. A part that carries them
// ends its block, and the message.
func (s *aguiSink) reasoning(p chat.Reasoning) {
	if p.Text != "" {
		if s.reasoningID == "" {
			s.endText()
			s.reasoningID = newID()
			s.send("REASONING_START", map[string]any{"messageId": s.reasoningID})
			s.send("REASONING_MESSAGE_START", map[string]any{"messageId": s.reasoningID, "role": "reasoning"})
		}
		s.send("REASONING_MESSAGE_CONTENT", map[string]any{"messageId": s.reasoningID, "delta": p.Text})
	}
	if p.Signature != "" || p.Encrypted != "" {
		s.endReasoning()
	}
}

func (s *aguiSink) endReasoning() {
	if s.reasoningID != "" {
		s.send("REASONING_MESSAGE_END", map[string]any{"messageId": s.reasoningID})
		s.send("REASONING_END", map[string]any{"messageId": s.reasoningID})
		s.reasoningID = ""
	}
}

func (s *aguiSink) endText() {
	if s.messageID != "" {
		s.send("TEXT_MESSAGE_END", map[string]any{"messageId": s.messageID})
		s.messageID = ""
	}
}

// steering sends the steering input the run took in as a user message, where the stored conversation holds
// it: after what the run said so far, before its next model call. What follows starts a message of its own.
func (s *aguiSink) steering(u chat.Update) {
	s.endReasoning()
	s.endText()
	s.lastMessage = ""
	text := steeringText(u)
	if text == "" {
		return
	}
	id := newID()
	s.send("TEXT_MESSAGE_START", map[string]any{"messageId": id, "role": "user"})
	s.send("TEXT_MESSAGE_CONTENT", map[string]any{"messageId": id, "delta": text})
	s.send("TEXT_MESSAGE_END", map[string]any{"messageId": id})
}

// toolCall sends a call, unless the client holds it already: HttpAgent would append its arguments again.
func (s *aguiSink) toolCall(c chat.ToolCall) {
	if isHeld(s.held, c.ID) || s.sent[c.ID] {
		return
	}
	s.sent[c.ID] = true
	if s.lastMessage == "" {
		s.lastMessage = newID()
	}
	s.send("TOOL_CALL_START", map[string]any{"toolCallId": c.ID, "toolCallName": c.Name, "parentMessageId": s.lastMessage})
	s.send("TOOL_CALL_ARGS", map[string]any{"toolCallId": c.ID, "delta": string(jsonOrString(c.Arguments))})
	s.send("TOOL_CALL_END", map[string]any{"toolCallId": c.ID})
}

func (s *aguiSink) update(u chat.Update) {
	s.begin()
	if u.Steering {
		s.steering(u)
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
			if s.messageID == "" {
				s.messageID = newID()
				s.lastMessage = s.messageID
				s.send("TEXT_MESSAGE_START", map[string]any{"messageId": s.messageID, "role": "assistant"})
			}
			s.send("TEXT_MESSAGE_CONTENT", map[string]any{"messageId": s.messageID, "delta": p.Text})
		case chat.ToolCall:
			s.endText()
			s.toolCall(p)
		case chat.ApprovalRequest:
			s.endText()
			s.toolCall(p.Call)
		case chat.ToolResult:
			s.endText()
			content := p.Error
			if content == "" {
				content = string(jsonOrString(p.Result))
			}
			s.send("TOOL_CALL_RESULT", map[string]any{"messageId": newID(), "toolCallId": p.CallID, "content": content, "role": "tool"})
		}
	}
}

func (s *aguiSink) end(res *agent.Result, err error) {
	defer s.stream.close()
	s.begin()
	s.endReasoning()
	s.endText()
	state := map[string]any{"mode": res.Mode, "pending": requestsJSON(res.Pending)}
	if v := answerValue(res.Answer); v != nil {
		state["answer"] = answerEventJSON{Type: res.AnswerType, Value: v, Final: true}
	} else if s.accepted != nil && err == nil {
		state["answer"] = *s.accepted
	}
	s.send("STATE_SNAPSHOT", map[string]any{"snapshot": state})
	if err != nil {
		p := problemOf(err)
		s.send("RUN_ERROR", map[string]any{"message": p.Detail, "code": strings.TrimPrefix(p.Type, ProblemTypePrefix)})
		return
	}
	outcome := map[string]any{"type": "success"}
	if len(res.Pending) > 0 {
		interrupts := make([]map[string]any, 0, len(res.Pending))
		for _, p := range res.Pending {
			rq := requestOf(p)
			interrupts = append(interrupts, map[string]any{"id": p.ID, "reason": "tool_approval", "toolCallId": p.Call.ID,
				"message":  "Approve the call of " + p.Call.Name + "?",
				"metadata": map[string]any{"tool": rq.Tool, "tool_id": rq.ToolID, "arguments": rq.Arguments}})
		}
		outcome = map[string]any{"type": "interrupt", "interrupts": interrupts}
	}
	s.send("RUN_FINISHED", map[string]any{"threadId": s.thread, "runId": s.run, "outcome": outcome})
}

func (s *aguiSink) refuse(err error) { writeProblem(s.w, s.r, s.h.log, err) }

func (s *aguiSink) streams() bool { return true }

func (s *aguiSink) written() bool { return s.stream.opened() }
