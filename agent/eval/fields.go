package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ScoreFields is the name of the scorer of Expect.Fields: the checks of the fields of a typed answer.
const ScoreFields = "answer_fields"

// A Field checks one field of the run's typed answer, the value an agent that declares an answer type with
// agent.Returns answers with (agent.Result.Answer): Path finds it, and each of Equals, Pattern and Schema that is
// set is one check of it.
type Field struct {
	// Path finds the field in the answer: a JSON pointer ("/route/team", "/reasons/0"; "" is the whole answer)
	// or a dotted path ("route.team", "reasons.0"), whose numbers index arrays. A key holding a dot needs the
	// pointer.
	Path string `json:"path"`
	// Equals is the value the field must have, equal as a JSON value (1 equals 1.0; key order does not count).
	Equals json.RawMessage `json:"equals,omitempty"`
	// Pattern is a regular expression (RE2 syntax) a string field must match; a field of another kind is matched
	// as its JSON text.
	Pattern string `json:"pattern,omitempty"`
	// Schema is a JSON Schema the field must match.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// label is how a failure names the field: as the case wrote it.
func (f Field) label() string {
	if f.Path == "" {
		return "the answer"
	}
	return f.Path
}

// checkField checks a field expectation of a case file, naming it by its index.
func checkField(i int, f Field) error {
	at := fmt.Sprintf("answer field %d (%q)", i+1, f.Path)
	if _, err := parsePath(f.Path); err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	if len(f.Equals) == 0 && f.Pattern == "" && len(f.Schema) == 0 {
		return fmt.Errorf(`%s: give "equals", "pattern" or "schema"`, at)
	}
	if len(f.Equals) > 0 && !json.Valid(f.Equals) {
		return fmt.Errorf("%s: equals is not JSON", at)
	}
	if f.Pattern != "" {
		if _, err := compileRegex(f.Pattern); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	if len(f.Schema) > 0 {
		if _, err := compileSchema(f.Schema); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	return nil
}

// parsePath reads a JSON pointer or a dotted path into its keys.
func parsePath(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if strings.HasPrefix(p, "/") {
		keys := strings.Split(p[1:], "/")
		for i, k := range keys {
			if strings.Contains(strings.NewReplacer("~0", "", "~1", "").Replace(k), "~") {
				return nil, fmt.Errorf("%q is not a JSON pointer: ~ must be written ~0, and / inside a key ~1", p)
			}
			keys[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
		}
		return keys, nil
	}
	keys := strings.Split(p, ".")
	for _, k := range keys {
		if k == "" {
			return nil, fmt.Errorf("%q is not a path: an empty key between dots (a JSON pointer such as /a/b names any key)", p)
		}
	}
	return keys, nil
}

// lookup finds the value at keys in v, a JSON value as encoding/json reads it with UseNumber.
func lookup(v any, keys []string) (any, error) {
	for i, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[k]
			if !ok {
				return nil, fmt.Errorf("%s holds no %q", where(keys[:i]), k)
			}
			v = next
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(x) {
				return nil, fmt.Errorf("%s is a list of %d, which has no item %q", where(keys[:i]), len(x), k)
			}
			v = x[n]
		default:
			return nil, fmt.Errorf("%s is %s, which has no field %q", where(keys[:i]), show(x), k)
		}
	}
	return v, nil
}

// where names the place keys lead to, for a failure.
func where(keys []string) string {
	if len(keys) == 0 {
		return "the answer"
	}
	return strings.Join(keys, ".")
}

// show writes a JSON value for a failure, cut when long.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

// scoreFields gives the share of the field checks that hold on the typed answer, naming each that does not.
func scoreFields(fields []Field, answer json.RawMessage) Score {
	checks := 0
	for _, f := range fields {
		for _, set := range []bool{len(f.Equals) > 0, f.Pattern != "", len(f.Schema) > 0} {
			if set {
				checks++
			}
		}
	}
	if checks == 0 {
		return Score{Name: ScoreFields, Value: 1, Reason: "no checks"}
	}
	if len(answer) == 0 {
		return Score{Name: ScoreFields, Reason: fmt.Sprintf("the run has no typed answer to check %d fields of: "+
			"its agent answers with text (it declares no answer type with agent.Returns), or the run accepted no answer", len(fields))}
	}
	d := json.NewDecoder(bytes.NewReader(answer))
	d.UseNumber()
	var root any
	if err := d.Decode(&root); err != nil {
		return Score{Name: ScoreFields, Reason: fmt.Sprintf("the typed answer is not JSON (%v): %q", err, clip(string(answer)))}
	}
	passed := 0
	var fails []string
	for _, f := range fields {
		keys, err := parsePath(f.Path)
		if err != nil {
			fails = append(fails, err.Error())
			continue
		}
		v, err := lookup(root, keys)
		if err != nil {
			fails = append(fails, fmt.Sprintf("%s is missing: %v", f.label(), err))
			continue
		}
		if len(f.Equals) > 0 {
			if got, _ := json.Marshal(v); sameJSON(got, f.Equals) {
				passed++
			} else {
				fails = append(fails, fmt.Sprintf("%s is %s, want %s", f.label(), show(v), compact(f.Equals)))
			}
		}
		if f.Pattern != "" {
			text, ok := v.(string)
			if !ok {
				b, _ := json.Marshal(v)
				text = string(b)
			}
			if re, err := compileRegex(f.Pattern); err != nil {
				fails = append(fails, err.Error())
			} else if re.MatchString(text) {
				passed++
			} else {
				fails = append(fails, fmt.Sprintf("%s is %s, which does not match %s", f.label(), show(v), f.Pattern))
			}
		}
		if len(f.Schema) > 0 {
			if err := validateValue(f.Schema, v); err != nil {
				fails = append(fails, fmt.Sprintf("%s is %s, which %v", f.label(), show(v), err))
			} else {
				passed++
			}
		}
	}
	s := Score{Name: ScoreFields, Value: float64(passed) / float64(checks)}
	if len(fails) == 0 {
		s.Reason = fmt.Sprintf("%d of %d checks hold", checks, checks)
	} else {
		s.Reason = fmt.Sprintf("answer fields: %s; the answer: %s", strings.Join(fails, "; "), clip(compact(answer)))
	}
	return s
}

// validateValue checks a JSON value, as read with UseNumber, against a schema.
func validateValue(schema json.RawMessage, v any) error {
	s, err := compileSchema(schema)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("does not match the schema (%s)", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return nil
}
