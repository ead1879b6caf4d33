package tooljson

// Error is a problem with the arguments a model sent, with the JSON path it
// concerns. Message is the complete text, written for the model to act on,
// for example `"limit" must be at most 100, got 500` or
// `missing required property "query"`.
type Error struct {
	// Path is the JSON path of the value concerned, such as `filter.tags[2]`;
	// empty for the top-level value.
	Path string
	// Message is the full message; Error returns it unchanged.
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }
