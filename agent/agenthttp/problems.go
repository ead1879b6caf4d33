package agenthttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// This file is the one place that decides what an error answers: its status and its problem type. Handlers return
// errors; writeProblem maps them.

// ProblemTypePrefix begins every problem type the API answers with; the rest names the problem, such as
// "conversation-busy". The types are stable: clients branch on them.
const ProblemTypePrefix = "urn:typeshift:problem:"

// The problem types, without ProblemTypePrefix.
const (
	ProblemBadRequest            = "bad-request"
	ProblemUnsupportedMediaType  = "unsupported-media-type"
	ProblemBodyTooLarge          = "body-too-large"
	ProblemUnauthenticated       = "unauthenticated"
	ProblemNotFound              = "not-found"
	ProblemUnknownAgent          = "unknown-agent"
	ProblemConversationBusy      = "conversation-busy"
	ProblemNotRunning            = "not-running"
	ProblemValidation            = "validation"
	ProblemPreconditionFailed    = "precondition-failed"
	ProblemPreconditionRequired  = "precondition-required"
	ProblemApprovalUnknown       = "approval-unknown"
	ProblemApprovalClosed        = "approval-closed"
	ProblemApprovalAnsweredTwice = "approval-answered-twice"
	ProblemApprovalTampered      = "approval-tampered"
	ProblemApprovalForged        = "approval-forged"
	ProblemSettings              = "settings"
	ProblemRunFailed             = "run-failed"
	ProblemAnswerRefused         = "answer-refused"
	ProblemOperatorOnly          = "operator-only"
	ProblemBudgetExceeded        = "budget-exceeded"
	ProblemTooManyRuns           = "too-many-runs"
	ProblemNoTurn                = "no-turn"
	ProblemInternal              = "internal"
)

// Problem is an error response, application/problem+json (RFC 9457).
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Errors lists each fault of a request that failed validation, by the JSON pointer of its place in the body.
	Errors []FieldError `json:"errors,omitempty"`
	// RequestID names the approval request an approval problem is about.
	RequestID string `json:"request_id,omitempty"`
	// Window names the budget window that refused a run ("day", "month", "conversation", "run", "live_runs"),
	// and ResetAt when it starts over, for budget-exceeded and too-many-runs.
	Window  string     `json:"window,omitempty"`
	ResetAt *time.Time `json:"reset_at,omitempty"`
}

// FieldError is one fault of a request body.
type FieldError struct {
	// Pointer is the JSON pointer (RFC 6901) of the faulty value in the request body; "" is the body itself.
	Pointer string `json:"pointer"`
	// Detail says what is wrong with it.
	Detail string `json:"detail"`
}

// The errors handlers return for what they find wrong themselves.
var (
	errUnauthenticated = &httpError{status: http.StatusUnauthorized, kind: ProblemUnauthenticated, detail: "the request is not authenticated"}
	errMediaType       = &httpError{status: http.StatusUnsupportedMediaType, kind: ProblemUnsupportedMediaType, detail: "send the body as application/json"}
	errRoute           = &httpError{status: http.StatusNotFound, kind: ProblemNotFound, detail: "no such resource"}
	errNotFound        = &httpError{status: http.StatusNotFound, kind: ProblemNotFound, detail: "no such conversation"}
	errIfMatchRequired = &httpError{status: http.StatusPreconditionRequired, kind: ProblemPreconditionRequired,
		detail: "send If-Match with the ETag you read, or If-None-Match: * to create"}
	errStale = &httpError{status: http.StatusPreconditionFailed, kind: ProblemPreconditionFailed,
		detail: "the settings changed since they were read: read them again"}
)

// httpError is a problem a handler found itself.
type httpError struct {
	status int
	kind   string
	detail string
	errors []FieldError
}

func (e *httpError) Error() string { return e.detail }

// badRequest reports a body that cannot be read as the request it should be.
func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, kind: ProblemBadRequest, detail: fmt.Sprintf(format, args...)}
}

// fieldError is one validation fault; validationError several.
type fieldError FieldError

func (e *fieldError) Error() string { return e.Pointer + ": " + e.Detail }

type validationError []FieldError

func (e validationError) Error() string { return fmt.Sprintf("%d validation errors", len(e)) }

// unknownAgentError names an agent the handler does not serve.
type unknownAgentError struct{ Name string }

func (e *unknownAgentError) Error() string { return fmt.Sprintf("no agent is named %q", e.Name) }

// problemFor maps an error to its problem.
func problemFor(err error) Problem {
	var (
		he  *httpError
		fe  *fieldError
		ve  validationError
		ua  *unknownAgentError
		ae  *agent.ApprovalError
		se  *agent.SettingsError
		mbe *http.MaxBytesError
		be  *storage.BudgetExceededError
		ans *agent.AnswerError
	)
	switch {
	case errors.As(err, &he):
		return Problem{Status: he.status, Type: he.kind, Detail: he.detail, Errors: he.errors}
	case errors.As(err, &mbe):
		return Problem{Status: http.StatusRequestEntityTooLarge, Type: ProblemBodyTooLarge,
			Detail: fmt.Sprintf("the body is longer than %d bytes", mbe.Limit)}
	case errors.As(err, &fe):
		return Problem{Status: http.StatusUnprocessableEntity, Type: ProblemValidation, Detail: "the request is not valid",
			Errors: []FieldError{FieldError(*fe)}}
	case errors.As(err, &ve):
		return Problem{Status: http.StatusUnprocessableEntity, Type: ProblemValidation, Detail: "the request is not valid", Errors: ve}
	case errors.As(err, &ua):
		return Problem{Status: http.StatusNotFound, Type: ProblemUnknownAgent, Detail: ua.Error()}
	case errors.As(err, &ae):
		p := Problem{Status: http.StatusConflict, RequestID: ae.RequestID, Detail: string(ae.Reason)}
		switch ae.Reason {
		case agent.ApprovalUnknown:
			p.Type = ProblemApprovalUnknown
		case agent.ApprovalClosed:
			p.Type = ProblemApprovalClosed
		case agent.ApprovalAnsweredTwice:
			p.Type, p.Status = ProblemApprovalAnsweredTwice, http.StatusUnprocessableEntity
		case agent.ApprovalTampered:
			p.Type = ProblemApprovalTampered
		default:
			p.Type, p.Status = ProblemApprovalForged, http.StatusUnprocessableEntity
		}
		return p
	case errors.As(err, &be):
		p := Problem{Status: http.StatusTooManyRequests, Type: ProblemBudgetExceeded, Detail: be.Error(), Window: be.Window}
		if be.Window == storage.WindowLiveRuns {
			p.Type = ProblemTooManyRuns
		}
		if !be.ResetAt.IsZero() {
			reset := be.ResetAt
			p.ResetAt = &reset
		}
		return p
	case errors.Is(err, ErrNoTurn):
		return Problem{Status: http.StatusConflict, Type: ProblemNoTurn,
			Detail: "the conversation has no turn to make a case of: a user's message with text that the model answered"}
	case errors.Is(err, storage.ErrNotFound):
		return Problem{Status: http.StatusNotFound, Type: ProblemNotFound, Detail: "no such resource"}
	case errors.Is(err, storage.ErrConversationBusy):
		return Problem{Status: http.StatusConflict, Type: ProblemConversationBusy, Detail: "another run holds the conversation"}
	case errors.Is(err, agent.ErrNotRunning):
		return Problem{Status: http.StatusConflict, Type: ProblemNotRunning, Detail: "no run holds the conversation"}
	case errors.Is(err, storage.ErrConflict):
		return Problem{Status: http.StatusPreconditionFailed, Type: ProblemPreconditionFailed, Detail: errStale.detail}
	case errors.As(err, &se):
		return Problem{Status: http.StatusUnprocessableEntity, Type: ProblemSettings, Detail: se.Error()}
	case errors.Is(err, storage.ErrInvalid):
		return Problem{Status: http.StatusBadRequest, Type: ProblemBadRequest, Detail: "an id or value the store cannot hold"}
	case errors.Is(err, context.DeadlineExceeded):
		return Problem{Status: http.StatusGatewayTimeout, Type: ProblemRunFailed, Detail: "the run took longer than the server allows"}
	case errors.As(err, &ans):
		// The model's answer is the run's failure, not the request's: its reasons were written for the model, and
		// say what was wrong with it. The raw answer stays in the stored conversation.
		return Problem{Status: http.StatusBadGateway, Type: ProblemAnswerRefused, Detail: fmt.Sprintf(
			"the model gave no %s answer the agent accepts, in %d attempts: %v", ans.Type, ans.Attempts, ans.Err)}
	case isRunError(err):
		return Problem{Status: http.StatusBadGateway, Type: ProblemRunFailed, Detail: "the run failed"}
	}
	return Problem{Status: http.StatusInternalServerError, Type: ProblemInternal, Detail: "internal error"}
}

// isRunError reports the errors that end a run for a reason of the model or the tools, not of the request.
func isRunError(err error) bool {
	var (
		rl *agent.RetryLimitError
		tf *agent.ToolFailuresError
		ce *toolset.ConflictError
	)
	return errors.As(err, &rl) || errors.As(err, &tf) || errors.As(err, &ce) || errors.Is(err, agent.ErrNoClient)
}

// problemOf completes the problem of err: its type URI and title.
func problemOf(err error) Problem {
	p := problemFor(err)
	p.Type = ProblemTypePrefix + p.Type
	p.Title = http.StatusText(p.Status)
	return p
}

// writeProblem answers with err's problem. Errors the client is not told the detail of (5xx) are logged.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	p := problemOf(err)
	if p.Status >= 500 {
		log.LogAttrs(r.Context(), slog.LevelError, "agenthttp: request failed", slog.String("path", r.URL.Path),
			slog.String("error", err.Error()))
	}
	if rec, ok := w.(*recorder); ok {
		rec.problem = p.Type
	} else if rec, ok := unwrapRecorder(w); ok {
		rec.problem = p.Type
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	var be *storage.BudgetExceededError
	if errors.As(err, &be) {
		if s := retryAfter(be, time.Now()); s > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(s, 10))
		}
	}
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

func unwrapRecorder(w http.ResponseWriter) (*recorder, bool) {
	for {
		switch x := w.(type) {
		case *recorder:
			return x, true
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil, false
		}
	}
}
