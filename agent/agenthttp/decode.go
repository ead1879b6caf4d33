package agenthttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// isJSON reports whether a Content-Type names JSON: application/json or a type ending in +json.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// readBody reads a request body of at most limit bytes; a longer one is a *http.MaxBytesError (413). ServeHTTP
// has refused bodies that are not JSON already.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		return nil, badRequest("reading the body: %v", err)
	}
	return data, nil
}

// decodeBody reads the request body into v: JSON of v's shape, one value, no field v does not have.
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	data, err := readBody(w, r, limit)
	if err != nil {
		return err
	}
	return decodeStrict(data, v)
}

// decodeStrict decodes data into v, refusing unknown fields, trailing data and an empty body.
func decodeStrict(data []byte, v any) error {
	return decode(data, v, true)
}

// decodeLoose decodes data into v, ignoring unknown fields: the stream protocols' clients add fields of their
// own versions, which the protocols let a server ignore.
func decodeLoose(data []byte, v any) error {
	return decode(data, v, false)
}

func decode(data []byte, v any, strict bool) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("the body is empty: send a JSON object")
	}
	if err := checkText(data); err != nil {
		return err // before decoding, which would change the text
	}
	d := json.NewDecoder(bytes.NewReader(data))
	if strict {
		d.DisallowUnknownFields()
	}
	if err := d.Decode(v); err != nil {
		return badRequest("the body is not a valid request: %s", describeJSONError(err))
	}
	if _, err := d.Token(); err != io.EOF {
		return badRequest("the body holds more than one JSON value")
	}
	return nil
}

// describeJSONError says what encoding/json found, with the place of a type error as a JSON pointer.
func describeJSONError(err error) string {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		ptr := "/" + strings.ReplaceAll(te.Field, ".", "/")
		if te.Field == "" {
			ptr = ""
		}
		return fmt.Sprintf("%s: expected %s, got JSON %s", ptr, te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too early"
	}
	return err.Error()
}
