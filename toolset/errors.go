package toolset

import (
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// ArgumentError reports arguments a model sent that do not fit the tool's schema: malformed JSON, a missing
// required property, a wrong type or a value out of range. Its message names the JSON path and says what to fix.
// Generated decoders return it; match it with errors.As.
type ArgumentError = tooljson.Error

// RetryError asks the model to call the tool again, differently. Tools return it through [Retry]; the tool loop
// counts retries per tool and ends the run when a tool exceeds its limit.
type RetryError struct {
	// Message tells the model what to change; it reads it as the call's result.
	Message string
}

func (e *RetryError) Error() string { return e.Message }

// Retry returns an error that asks the model to try the call again, with a message saying what to change.
func Retry(format string, args ...any) error {
	return &RetryError{Message: fmt.Sprintf(format, args...)}
}

// PanicError reports a tool that panicked. The model reads only that the tool failed; the panic value and stack
// stay with the developer.
type PanicError struct {
	// Tool is the name of the tool that panicked.
	Tool string
	// Value is what it panicked with.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("tool %q failed unexpectedly", e.Tool)
}

// ErrStale reports generated code that no longer matches a toolset's declarations.
var ErrStale = errors.New("generated code is out of date: run typeshift generate (or go generate)")
