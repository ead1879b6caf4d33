// Package schemaprofile adapts the JSON Schemas of tools and response formats to what one provider, or one
// family of models, accepts.
//
// Generated tools describe their arguments in JSON Schema draft 2020-12. Providers take subsets of it: OpenAI's
// strict mode wants every property required and no additional properties, with optional fields written as
// nullable ones; Gemini takes a narrower set of keywords. A [Profile] rewrites a schema into its provider's
// subset while keeping what it means:
//
//   - an optional property stays optional: where the subset wants every property required, it becomes nullable,
//     and [Adapted.Restore] removes the nulls the model sends for it, so that the decoder sees the property absent
//     and applies its default;
//   - a constraint the subset has no keyword for (a maximum length, a default, a pattern) moves into the
//     property's description, where the model still reads it; the tool's generated decoder checks the original
//     schema whatever the provider was sent, so no check is lost;
//   - a shape the subset cannot express at all is an [*Error] naming the tool, the field and the provider,
//     reported when the host is built, not as a provider's 400 in the middle of a run.
//
// A profile's work is done once per schema: [Profile.Adapt] keeps what it made.
package schemaprofile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A Profile is the part of JSON Schema one provider accepts, and how a schema is brought into it. The profiles
// are [OpenAIStrict], [Gemini] and [Anthropic]; the zero Profile accepts every schema as it is.
type Profile struct {
	// Name names the profile, such as "openai-strict".
	Name string
	// Provider names the provider in errors, such as "openai".
	Provider string

	adapt func(a *adapter, root *object) error

	mu    sync.Mutex
	cache map[string]*Adapted
}

// maxCached bounds the adapted schemas a profile keeps; past it, the cache starts again.
const maxCached = 4096

// Adapted is a schema brought into a profile.
type Adapted struct {
	// Schema is the schema to send to the provider.
	Schema json.RawMessage
	// Changed reports that Schema differs from the original in meaning or in form.
	Changed bool

	restore *rnode // what Restore walks, or nil when the profile changed nothing a model's answer shows
}

// Adapt returns schema brought into the profile, or an [*Error] for a shape the profile cannot express. tool
// names the tool (or the response format) in errors. Results are kept: adapting the same schema again is a map
// look-up.
func (p *Profile) Adapt(tool string, schema json.RawMessage) (*Adapted, error) {
	if p == nil || p.adapt == nil {
		return &Adapted{Schema: schema}, nil
	}
	p.mu.Lock()
	a, ok := p.cache[string(schema)]
	p.mu.Unlock()
	if ok {
		return a, nil
	}
	a, err := p.adaptNew(tool, schema)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.cache == nil || len(p.cache) >= maxCached {
		p.cache = make(map[string]*Adapted)
	}
	p.cache[string(schema)] = a
	p.mu.Unlock()
	return a, nil
}

func (p *Profile) adaptNew(tool string, schema json.RawMessage) (*Adapted, error) {
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	v, err := parse(schema)
	if err != nil {
		return nil, &Error{Provider: p.Provider, Profile: p.Name, Tool: tool, Reason: "the schema is not valid JSON: " + err.Error()}
	}
	root, ok := v.(*object)
	if !ok {
		return nil, &Error{Provider: p.Provider, Profile: p.Name, Tool: tool, Reason: "the schema is not a JSON object"}
	}
	a := &adapter{p: p, tool: tool, root: root, defs: map[string]*rnode{}}
	if err := p.adapt(a, root); err != nil {
		return nil, err
	}
	out := appendJSON(nil, root)
	res := &Adapted{Schema: out, Changed: string(out) != compact(schema)}
	if a.restores {
		res.restore = a.rootNode
	}
	return res, nil
}

func compact(b []byte) string {
	v, err := parse(b)
	if err != nil {
		return string(b)
	}
	return string(appendJSON(nil, v))
}

// Restore turns a model's arguments, written against the adapted schema, back into what the original schema
// means: a null the model sent for a property the original leaves optional is removed, so the property is
// absent and its default applies. Arguments that are not valid JSON, or that need nothing, are returned as
// they are: the decoder answers them.
func (a *Adapted) Restore(args json.RawMessage) json.RawMessage {
	if a == nil || a.restore == nil {
		return args
	}
	v, err := parse(args)
	if err != nil {
		return args
	}
	if !a.restore.walk(v, 0) {
		return args
	}
	return appendJSON(nil, v)
}

// An Error is a schema a profile cannot express.
type Error struct {
	// Provider and Profile name what refused the schema.
	Provider, Profile string
	// Tool names the tool, or the response format.
	Tool string
	// Field is the path of the offending part, such as "window.from" or "$defs.Point"; empty for the whole.
	Field string
	// Reason says what the provider cannot take.
	Reason string
}

func (e *Error) Error() string {
	field := e.Field
	if field == "" {
		field = "(the arguments)"
	}
	return fmt.Sprintf("%s cannot take tool %q: field %s: %s", e.Provider, e.Tool, field, e.Reason)
}

// adapter holds one adaptation's state.
type adapter struct {
	p    *Profile
	tool string
	root *object
	// rootNode and defs are the Restore tree; restores says it has anything to do.
	rootNode *rnode
	defs     map[string]*rnode
	restores bool
}

func (a *adapter) fail(path, format string, args ...any) error {
	return &Error{Provider: a.p.Provider, Profile: a.p.Name, Tool: a.tool, Field: path, Reason: fmt.Sprintf(format, args...)}
}

// join builds a field path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// note appends a sentence to a schema's description: how a constraint the profile has no keyword for reaches
// the model.
func note(s *object, sentence string) {
	d, _ := s.get("description")
	ds, _ := d.(string)
	if ds != "" && !strings.HasSuffix(ds, ".") {
		ds += "."
	}
	if ds != "" {
		ds += " "
	}
	s.set("description", ds+sentence)
}

// constraintNotes say in words what a keyword means, for a description.
var constraintNotes = map[string]string{
	"default":          "Default: %s.",
	"pattern":          "Must match the regular expression %s.",
	"minLength":        "At least %s characters.",
	"maxLength":        "At most %s characters.",
	"minimum":          "At least %s.",
	"maximum":          "At most %s.",
	"exclusiveMinimum": "Greater than %s.",
	"exclusiveMaximum": "Less than %s.",
	"multipleOf":       "A multiple of %s.",
	"minItems":         "At least %s items.",
	"maxItems":         "At most %s items.",
	"uniqueItems":      "Items must be unique: %s.",
	"minProperties":    "At least %s entries.",
	"maxProperties":    "At most %s entries.",
	"format":           "Format: %s.",
	"contentEncoding":  "Encoded as %s.",
	"examples":         "Examples: %s.",
	"title":            "%s",
}

// moveToDescription removes keyword k from s and says it in the description instead.
func moveToDescription(s *object, k string) {
	v, ok := s.get(k)
	if !ok {
		return
	}
	s.del(k)
	if k == "uniqueItems" && v != true {
		return
	}
	if f, ok := constraintNotes[k]; ok {
		arg := text(v)
		if k == "title" || k == "format" || k == "contentEncoding" {
			if str, ok := v.(string); ok {
				arg = str
			}
		}
		if k == "title" {
			if _, has := s.get("description"); has {
				return // the description says more than the title
			}
		}
		note(s, fmt.Sprintf(f, arg))
	}
}

// keysOf returns o's keys in order of appearance: a copy, safe against changes while iterating.
func keysOf(o *object) []string { return slices.Clone(o.keys) }
