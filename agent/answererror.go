package agent

import "fmt"

// AnswerError ends a run whose agent declares an answer type (see [Returns]) when the model's answer was still
// not accepted after the retries the agent allows: it did not decode, or a validator refused it. It keeps the
// last answer as the model wrote it, so that nothing the model said is lost.
type AnswerError struct {
	// Type is the answer type's name.
	Type string
	// Raw is the model's last answer, as it wrote it.
	Raw string
	// Attempts is how many answers the run read, the first one included: 0 when the run's model calls were spent
	// before the model answered (Raw is empty then).
	Attempts int
	// Err is why the last answer was refused: the decoder's error (a *tooljson.Error) or a validator's; or why
	// there was none.
	Err error
}

func (e *AnswerError) Error() string {
	if e.Attempts == 0 {
		return fmt.Sprintf("agent: no %s answer: %v", e.Type, e.Err)
	}
	return fmt.Sprintf("agent: no %s answer accepted after %d attempts: %v", e.Type, e.Attempts, e.Err)
}

func (e *AnswerError) Unwrap() error { return e.Err }
