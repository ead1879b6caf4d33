package schemaprofile

import (
	"encoding/json"
	"slices"
	"strings"
)

// OpenAIStrict is the subset of JSON Schema that OpenAI's strict mode (strict function tools, json_schema
// response formats with strict) accepts: objects list every property as required and forbid additional ones,
// so an optional property becomes nullable and its nulls are removed again by [Adapted.Restore]; a default,
// string lengths, unique items, entry counts, formats outside the supported ones and patterns with a lookaround
// move into descriptions.
// It cannot express a value of any type ({}), an object whose keys are not declared (a Go map) or an array
// without an item schema, nor allOf, not, conditionals, patternProperties or tuples: those are [*Error]s, and
// the openai provider sends such a tool without strict mode instead.
var OpenAIStrict = &Profile{Name: "openai-strict", Provider: "openai", adapt: adaptStrict}

// Gemini is the subset of JSON Schema the Gemini API accepts in a function declaration's parametersJsonSchema
// and a response's responseJsonSchema: types (nullable ones as type lists), properties, required,
// additionalProperties, items, prefixItems, item counts, minimum and maximum, enums of strings and numbers,
// anyOf (oneOf is read as anyOf), $ref into $defs with nothing beside it, and the date and time formats.
// Optional properties stay optional. Other constraints (patterns, lengths, exclusive bounds, defaults) move
// into descriptions. A recursive reference is unrolled by Gemini only a few levels and only under a property the
// model may leave out: one under a field the model must fill is an [*Error], as are allOf, not, conditionals,
// patternProperties, propertyNames and the unevaluated keywords.
var Gemini = &Profile{Name: "gemini", Provider: "gemini", adapt: adaptGemini}

// Keywords that describe no value's shape: annotations the providers ignore or refuse, dropped by every profile.
var dropped = []string{"$schema", "$comment", "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "deprecated", "readOnly", "writeOnly", "contentMediaType"}

// Keywords of shapes that no profile here can express.
var inexpressible = []string{"allOf", "not", "if", "then", "else", "dependentSchemas", "dependentRequired", "patternProperties",
	"propertyNames", "unevaluatedProperties", "unevaluatedItems", "contains", "minContains", "maxContains", "$recursiveRef"}

// rnode is what Restore walks: per object, the properties whose null means absent, and where to look deeper.
type rnode struct {
	ref      string // a $ref, resolved through a
	a        *adapter
	props    map[string]*rnode
	optional map[string]bool
	items    *rnode
	anyOf    []*rnode
}

func (n *rnode) target() *rnode {
	switch {
	case n.ref == "#":
		return n.a.rootNode
	case strings.HasPrefix(n.ref, "#/$defs/"):
		return n.a.defs[strings.TrimPrefix(n.ref, "#/$defs/")]
	case strings.HasPrefix(n.ref, "#/definitions/"):
		return n.a.defs[strings.TrimPrefix(n.ref, "#/definitions/")]
	}
	return nil
}

// walk removes, in v, the nulls of optional properties, and reports whether it removed any.
func (n *rnode) walk(v any, depth int) bool {
	if n == nil || depth > maxDepth {
		return false
	}
	if n.ref != "" {
		return n.target().walk(v, depth+1)
	}
	changed := false
	for _, b := range n.anyOf {
		if b.walk(v, depth+1) {
			changed = true
		}
	}
	switch v := v.(type) {
	case *object:
		for _, k := range keysOf(v) {
			x := v.vals[k]
			if x == nil && n.optional[k] {
				v.del(k)
				changed = true
				continue
			}
			if p := n.props[k]; p != nil && p.walk(x, depth+1) {
				changed = true
			}
		}
	case []any:
		for _, x := range v {
			if n.items.walk(x, depth+1) {
				changed = true
			}
		}
	}
	return changed
}

// types returns the types a schema names.
func types(s *object) []string {
	switch t := s.vals["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func adaptStrict(a *adapter, root *object) error {
	if _, ok := root.get("anyOf"); ok {
		return a.fail("", "strict mode wants an object at the top, not anyOf")
	}
	_, hasProps := root.get("properties")
	if ts := types(root); !slices.Equal(ts, []string{"object"}) && (len(ts) > 0 || !hasProps) {
		return a.fail("", "strict mode wants an object at the top")
	}
	a.rootNode = &rnode{a: a}
	for _, k := range []string{"$defs", "definitions"} {
		defs, ok := root.vals[k].(*object)
		if !ok {
			continue
		}
		for _, name := range defs.keys {
			d := &rnode{a: a}
			a.defs[name] = d
		}
		for _, name := range defs.keys {
			s, ok := defs.vals[name].(*object)
			if !ok {
				return a.fail(join(k, name), "a definition that is not a schema object")
			}
			if err := strictNode(a, s, join(k, name), a.defs[name]); err != nil {
				return err
			}
		}
	}
	return strictNode(a, root, "", a.rootNode)
}

// strictFormats are the string formats strict mode accepts.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// strictNode brings one schema into strict mode, filling n with what Restore needs.
func strictNode(a *adapter, s *object, path string, n *rnode) error {
	for _, k := range inexpressible {
		if _, ok := s.get(k); ok {
			return a.fail(path, "strict mode has no %s", k)
		}
	}
	if _, ok := s.get("prefixItems"); ok {
		return a.fail(path, "strict mode has no tuples (prefixItems)")
	}
	for _, k := range dropped {
		s.del(k)
	}
	if v, ok := s.get("oneOf"); ok { // the decoder still holds the value to exactly one branch
		s.del("oneOf")
		s.set("anyOf", v)
	}
	for _, k := range []string{"default", "examples", "title", "minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties", "contentEncoding"} {
		moveToDescription(s, k)
	}
	if f, ok := s.vals["format"].(string); ok && !slices.Contains(strictFormats, f) {
		moveToDescription(s, "format")
	}
	if p, ok := s.vals["pattern"].(string); ok && hasLookaround(p) {
		// Strict mode takes patterns, but refuses any with a lookahead or lookbehind ("regex lookaround is not
		// supported").
		moveToDescription(s, "pattern")
	}
	for _, k := range keysOf(s) {
		if strings.HasPrefix(k, "x-") {
			s.del(k)
		}
	}
	if ref, ok := s.vals["$ref"].(string); ok {
		if ref != "#" && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/") {
			return a.fail(path, "a reference outside the schema (%s)", ref)
		}
		n.ref = ref
		if n.target() == nil {
			return a.fail(path, "a reference to a missing definition (%s)", ref)
		}
		return nil
	}
	if branches, ok := s.vals["anyOf"].([]any); ok {
		for i, b := range branches {
			bs, ok := b.(*object)
			if !ok {
				return a.fail(path, "an anyOf branch that is not a schema object")
			}
			c := &rnode{a: a}
			if err := strictNode(a, bs, path, c); err != nil {
				return err
			}
			branches[i] = bs
			n.anyOf = append(n.anyOf, c)
		}
		return nil
	}
	ts := types(s)
	_, hasEnum := s.get("enum")
	_, hasConst := s.get("const")
	if len(ts) == 0 && !hasEnum && !hasConst {
		if _, hasProps := s.get("properties"); hasProps {
			ts = []string{"object"}
			s.set("type", "object")
		} else {
			return a.fail(path, "a value of any type, which strict mode cannot describe")
		}
	}
	if slices.Contains(ts, "object") {
		if err := strictObject(a, s, path, n); err != nil {
			return err
		}
	}
	if slices.Contains(ts, "array") {
		items, ok := s.vals["items"].(*object)
		if !ok {
			return a.fail(path, "an array without an item schema, which strict mode cannot describe")
		}
		n.items = &rnode{a: a}
		if err := strictNode(a, items, path+"[]", n.items); err != nil {
			return err
		}
	}
	return nil
}

func strictObject(a *adapter, s *object, path string, n *rnode) error {
	props, _ := s.vals["properties"].(*object)
	switch ap := s.vals["additionalProperties"].(type) {
	case *object:
		if len(ap.keys) > 0 || props == nil {
			return a.fail(path, "an object whose keys are not declared (a map), which strict mode cannot describe")
		}
	case bool:
		if ap && props == nil {
			return a.fail(path, "an object whose keys are not declared (a map), which strict mode cannot describe")
		}
	case nil:
		if props == nil {
			return a.fail(path, "an object whose keys are not declared, which strict mode cannot describe")
		}
	}
	if props == nil {
		props = newObject()
		s.set("properties", props)
	}
	required := map[string]bool{}
	if r, ok := s.vals["required"].([]any); ok {
		for _, x := range r {
			if name, ok := x.(string); ok {
				required[name] = true
			}
		}
	}
	n.props = map[string]*rnode{}
	all := make([]any, 0, len(props.keys))
	for _, name := range props.keys {
		ps, ok := props.vals[name].(*object)
		if !ok {
			return a.fail(join(path, name), "a property whose schema is not an object")
		}
		c := &rnode{a: a}
		if err := strictNode(a, ps, join(path, name), c); err != nil {
			return err
		}
		n.props[name] = c
		if !required[name] {
			props.vals[name] = nullable(ps)
			if n.optional == nil {
				n.optional = map[string]bool{}
			}
			n.optional[name] = true
			a.restores = true
		}
		all = append(all, name)
	}
	s.set("required", all)
	s.set("additionalProperties", false)
	return nil
}

// nullable returns s admitting null too, as strict mode writes an optional property.
func nullable(s *object) *object {
	if ts := types(s); len(ts) > 0 {
		if !slices.Contains(ts, "null") {
			list := make([]any, 0, len(ts)+1)
			for _, t := range ts {
				list = append(list, t)
			}
			s.set("type", append(list, "null"))
		}
		if c, ok := s.get("const"); ok {
			s.del("const")
			s.set("enum", []any{c, nil})
		}
		if e, ok := s.vals["enum"].([]any); ok && !slices.Contains(e, nil) {
			s.set("enum", append(e, nil))
		}
		return s
	}
	if branches, ok := s.vals["anyOf"].([]any); ok {
		for _, b := range branches {
			if bs, ok := b.(*object); ok && slices.Equal(types(bs), []string{"null"}) {
				return s
			}
		}
		s.set("anyOf", append(branches, nullSchema()))
		return s
	}
	w := newObject()
	if d, ok := s.get("description"); ok {
		s.del("description")
		w.set("description", d)
	}
	w.set("anyOf", []any{s, nullSchema()})
	return w
}

func nullSchema() *object {
	o := newObject()
	o.set("type", "null")
	return o
}

// geminiKeep are the keywords Gemini's JSON Schema fields take, its own propertyOrdering among them.
var geminiKeep = []string{"$defs", "$ref", "type", "format", "title", "description", "enum", "items", "prefixItems", "minItems",
	"maxItems", "minimum", "maximum", "anyOf", "properties", "additionalProperties", "required", "propertyOrdering"}

// geminiFormats are the string formats Gemini takes.
var geminiFormats = []string{"date-time", "date", "time"}

func adaptGemini(a *adapter, root *object) error {
	if ts := types(root); len(ts) > 0 && !slices.Equal(ts, []string{"object"}) {
		return a.fail("", "function parameters must be an object")
	}
	if defs, ok := root.vals["definitions"].(*object); ok { // $defs is the name Gemini reads
		root.del("definitions")
		if have, ok := root.vals["$defs"].(*object); ok {
			for _, k := range defs.keys {
				have.set(k, defs.vals[k])
			}
		} else {
			root.set("$defs", defs)
		}
	}
	g := &geminiAdapter{a: a, root: root}
	g.findCycles()
	return g.node(root, "", false, 0)
}

// geminiAdapter brings a schema into Gemini's subset.
type geminiAdapter struct {
	a    *adapter
	root *object
	// cyclic names the definitions that reach themselves ("#" is the root).
	cyclic map[string]bool
}

// refName returns the definition a reference names: "#" for the root, the $defs name otherwise.
func refName(ref string) string {
	if ref == "#" {
		return "#"
	}
	if n, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
		return n
	}
	return strings.TrimPrefix(ref, "#/$defs/")
}

// findCycles marks the definitions (and the root) that reach themselves through references: Gemini unrolls
// those only a few levels, and only under properties the model may leave out.
func (g *geminiAdapter) findCycles() { g.cyclic = cyclicDefs(g.root) }

// cyclicDefs returns the definitions of root ("#" for root itself) that reach themselves through references.
func cyclicDefs(root *object) map[string]bool {
	refs := map[string][]string{}
	var collect func(v any, owner string)
	collect = func(v any, owner string) {
		switch v := v.(type) {
		case *object:
			for _, k := range v.keys {
				if (k == "$defs" || k == "definitions") && v == root {
					continue
				}
				if k == "$ref" {
					if r, ok := v.vals[k].(string); ok {
						refs[owner] = append(refs[owner], refName(r))
					}
					continue
				}
				collect(v.vals[k], owner)
			}
		case []any:
			for _, x := range v {
				collect(x, owner)
			}
		}
	}
	collect(root, "#")
	for _, dk := range []string{"$defs", "definitions"} {
		if defs, ok := root.vals[dk].(*object); ok {
			for _, k := range defs.keys {
				collect(defs.vals[k], k)
			}
		}
	}
	cyclic := map[string]bool{}
	for start := range refs {
		seen := map[string]bool{}
		stack := slices.Clone(refs[start])
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == start {
				cyclic[start] = true
				break
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, refs[n]...)
			}
		}
	}
	return cyclic
}

// node brings one schema into Gemini's subset. optional says a property the model may leave out lies on the
// way to it.
func (g *geminiAdapter) node(s *object, path string, optional bool, depth int) error {
	a := g.a
	if depth > maxDepth {
		return a.fail(path, "nested too deeply")
	}
	for _, k := range inexpressible {
		if _, ok := s.get(k); ok {
			return a.fail(path, "Gemini has no %s", k)
		}
	}
	for _, k := range dropped {
		s.del(k)
	}
	if v, ok := s.get("oneOf"); ok { // Gemini reads oneOf as anyOf; the decoder still holds to one branch
		s.del("oneOf")
		s.set("anyOf", v)
	}
	if c, ok := s.get("const"); ok {
		s.del("const")
		s.set("enum", []any{c})
	}
	if e, ok := s.vals["enum"].([]any); ok {
		// Gemini's enums hold strings and numbers; a null in one is said by the type instead.
		kept := make([]any, 0, len(e))
		other := false
		for _, x := range e {
			switch x.(type) {
			case string, json.Number:
				kept = append(kept, x)
			case nil:
			default:
				other = true
			}
		}
		if other {
			s.del("enum")
			note(s, "One of: "+text(e)+".")
		} else {
			s.set("enum", kept)
		}
	}
	if f, ok := s.vals["format"].(string); ok && !slices.Contains(geminiFormats, f) {
		moveToDescription(s, "format")
	}
	for _, k := range keysOf(s) {
		if !slices.Contains(geminiKeep, k) {
			moveToDescription(s, k)
			s.del(k)
		}
	}
	if ref, ok := s.vals["$ref"].(string); ok {
		if ref != "#" && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/") {
			return a.fail(path, "a reference outside the schema (%s)", ref)
		}
		name := refName(ref)
		if name != "#" {
			defs, _ := g.root.vals["$defs"].(*object)
			if defs == nil {
				return a.fail(path, "a reference to a missing definition (%s)", ref)
			}
			if _, ok := defs.get(name); !ok {
				return a.fail(path, "a reference to a missing definition (%s)", ref)
			}
			s.set("$ref", "#/$defs/"+name)
		}
		if g.cyclic[name] && !optional {
			return a.fail(path, "a recursive reference in a field the model must fill, which Gemini cannot unroll")
		}
		if len(s.keys) > 1 { // nothing may stand beside a $ref: the rest goes on a wrapper
			inner := newObject()
			inner.set("$ref", s.vals["$ref"])
			s.del("$ref")
			s.set("anyOf", []any{inner})
		}
		return nil
	}
	required := map[string]bool{}
	if r, ok := s.vals["required"].([]any); ok {
		for _, x := range r {
			if name, ok := x.(string); ok {
				required[name] = true
			}
		}
	}
	if m, ok := s.vals["properties"].(*object); ok {
		if len(m.keys) > 1 {
			// Gemini's own keyword for the order of the properties: its SDK sends the schema through a map, which
			// sorts the keys, and the model writes the properties in the order it reads them.
			order := make([]any, len(m.keys))
			for i, k := range m.keys {
				order[i] = k
			}
			s.set("propertyOrdering", order)
		}
		for _, name := range m.keys {
			ps, ok := m.vals[name].(*object)
			if !ok {
				return a.fail(join(path, name), "a schema that is not an object")
			}
			if err := g.node(ps, join(path, name), optional || !required[name], depth+1); err != nil {
				return err
			}
		}
	}
	if s == g.root {
		if defs, ok := s.vals["$defs"].(*object); ok {
			for _, name := range defs.keys {
				ds, ok := defs.vals[name].(*object)
				if !ok {
					return a.fail(join("$defs", name), "a definition that is not a schema object")
				}
				// A definition's own cycles are checked where it is used.
				if err := g.node(ds, join("$defs", name), true, depth+1); err != nil {
					return err
				}
			}
		}
	}
	// Entries of an array or of a map may be left out: the model may send none.
	for _, k := range []string{"items", "additionalProperties"} {
		if c, ok := s.vals[k].(*object); ok {
			if err := g.node(c, path+"[]", true, depth+1); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"anyOf", "prefixItems"} {
		if list, ok := s.vals[k].([]any); ok {
			for _, b := range list {
				bs, ok := b.(*object)
				if !ok {
					return a.fail(path, "a %s entry that is not a schema object", k)
				}
				if err := g.node(bs, path, optional, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Anthropic is what the Messages API accepts as a tool's input_schema: any JSON Schema whose top is an object.
// Claude reads the schema as it is, so nothing is rewritten; what it refuses is a top that is not an object (a
// tool's input is always one) or that combines schemas with anyOf, oneOf or allOf, and a reference it would have
// to fetch from outside the schema. Those are [*Error]s.
var Anthropic = &Profile{Name: "anthropic", Provider: "anthropic", adapt: adaptAnthropic}

func adaptAnthropic(a *adapter, root *object) error {
	if ts := types(root); len(ts) > 0 && !slices.Equal(ts, []string{"object"}) {
		return a.fail("", "Claude takes a tool's input as an object, not %s", strings.Join(ts, " or "))
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := root.get(k); ok {
			return a.fail("", "Claude takes no %s at the top of a tool's input schema: move it into a property", k)
		}
	}
	return outsideRefs(a, root, "", 0)
}

// outsideRefs reports the first $ref that points outside the schema.
func outsideRefs(a *adapter, v any, path string, depth int) error {
	if depth > maxDepth {
		return a.fail(path, "nested too deeply")
	}
	switch v := v.(type) {
	case *object:
		if ref, ok := v.vals["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
			return a.fail(path, "a reference outside the schema (%s)", ref)
		}
		for _, k := range v.keys {
			p := path
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue // values, not schemas
			}
			if named, ok := v.vals[k].(*object); ok && (k == "properties" || k == "$defs" || k == "definitions") {
				for _, name := range named.keys {
					sub := join(path, name)
					if k != "properties" {
						sub = join(k, name)
					}
					if err := outsideRefs(a, named.vals[name], sub, depth+1); err != nil {
						return err
					}
				}
				continue
			}
			if k == "items" || k == "additionalProperties" {
				p = path + "[]"
			}
			if err := outsideRefs(a, v.vals[k], p, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := outsideRefs(a, x, path, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
