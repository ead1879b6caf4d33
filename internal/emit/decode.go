package emit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// decoder returns the name of the function that reads the named struct type key, queueing it to be written.
func (g *gen) decoder(key string, rt *model.Type) string {
	if name, ok := g.decoders[key]; ok {
		return name
	}
	name := "typeshiftDecode" + g.typeIdent(key, rt.GoType)
	g.decoders[key] = name
	g.decQueue = append(g.decQueue, key)
	return name
}

// writeDecoder writes the decoder of one named struct type.
func (g *gen) writeDecoder(key string) error {
	rt := g.pkg.Types[key]
	g.n = 0
	g.p("")
	g.p("// %s reads a %s object into x, checking its required properties and constraints.", g.decoders[key], rt.GoType)
	g.p("func %s(d *tooljson.Decoder, x *%s) {", g.decoders[key], rt.GoType)
	g.p("if !d.Object() {")
	g.p("return")
	g.p("}")
	if err := g.fieldLoop(rt.Fields, "x", true); err != nil {
		return err
	}
	g.p("}")
	return nil
}

// fieldLoop writes the loop over an object's members that the caller has opened. With track it checks required
// properties and applies defaults afterwards; settings overrides do neither.
func (g *gen) fieldLoop(fields []*model.Field, x string, track bool) error {
	// Every field has a bit in seen, which refuses a property given twice and, with track, tells the required
	// and defaulted fields that are missing.
	var tracked []*model.Field
	if track {
		for _, f := range fields {
			if f.Required || f.Constraints.Default != "" {
				tracked = append(tracked, f)
			}
		}
	}
	bit := map[*model.Field]int{}
	for i, f := range fields {
		bit[f] = i
	}
	seen := ""
	if len(fields) > 0 {
		seen = g.local("seen")
		if len(fields) <= 64 {
			g.p("var %s %s", seen, bitsType(len(fields)))
		} else {
			g.p("var %s [%d]uint64", seen, (len(fields)+63)/64)
		}
	}
	// mask spells the bit of field i and word its word of seen.
	word := func(i int) string {
		if len(fields) <= 64 {
			return seen
		}
		return fmt.Sprintf("%s[%d]", seen, i/64)
	}
	mask := func(i int) string { return fmt.Sprintf("1<<%d", i%64) }
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.JSONName
	}
	g.p("for {")
	g.p("key, ok := d.Field()")
	g.p("if !ok {")
	g.p("break")
	g.p("}")
	g.p("switch string(key) {")
	for _, f := range fields {
		g.p("case %s:", strconv.Quote(f.JSONName))
		i := bit[f]
		g.p("if %s&(%s) != 0 {", word(i), mask(i))
		g.p("d.Duplicate()")
		g.p("}")
		g.p("%s |= %s", word(i), mask(i))
		target := x + "." + fieldPath(f)
		if err := g.decodeValue(f.Type, target, decodeOpts{cons: &f.Constraints, list: true, stringify: f.Stringify}); err != nil {
			return err
		}
	}
	g.p("default:")
	g.p("d.Unknown(key, %s)", strconv.Quote(strings.Join(names, ", ")))
	g.p("}")
	g.p("}")
	for _, f := range tracked {
		i := bit[f]
		g.p("if %s&(%s) == 0 {", word(i), mask(i))
		if f.Required {
			g.p("d.Missing(%s)", strconv.Quote(f.JSONName))
		} else {
			lit, err := goLiteral(f.Constraints.Default)
			if err != nil {
				return fmt.Errorf("default of %s: %w", f.JSONName, err)
			}
			target := x + "." + fieldPath(f)
			if f.Type.Kind == model.Pointer {
				g.p("%s = new(%s(%s))", target, f.Type.Elem.GoType, lit)
			} else {
				g.p("%s = %s", target, lit)
			}
		}
		g.p("}")
	}
	return nil
}

// fieldPath is a field's selector path from its struct.
func fieldPath(f *model.Field) string {
	if f.Path != "" {
		return f.Path
	}
	return f.GoName
}

// bitsType is the smallest unsigned type with n bits.
func bitsType(n int) string {
	switch {
	case n <= 8:
		return "uint8"
	case n <= 16:
		return "uint16"
	case n <= 32:
		return "uint32"
	}
	return "uint64"
}

// decodeOpts carry a field's options down to the value that they apply to.
type decodeOpts struct {
	// cons are the field's constraints; list says whether the item counts still apply here.
	cons *model.Constraints
	list bool
	// stringify is the ",string" option.
	stringify bool
	// typeEnumRead and consEnumRead say that the value was read by matching the type's or the field's enum, which
	// needs no further check.
	typeEnumRead, consEnumRead bool
}

// decodeValue writes statements that read the next value into target, an addressable expression of type t.
func (g *gen) decodeValue(t *model.Type, target string, o decodeOpts) error {
	switch t.Kind {
	case model.Bool:
		if o.stringify {
			s := g.local("s")
			g.p("switch %s := d.String(); %s {", s, s)
			g.p("case \"true\":")
			g.p("%s = true", target)
			g.p("case \"false\":")
			g.p("%s = false", target)
			g.p("default:")
			g.p("d.Failf(\"must be a string holding true or false, got %%q\", %s)", s)
			g.p("}")
		} else {
			g.p("%s = %s", target, convert(t.GoType, "bool", "d.Bool()"))
		}
	case model.Int, model.Uint, model.Float:
		read, native := numberReader(t)
		if o.stringify {
			g.stringNumber(t, target, read, native)
		} else {
			g.p("%s = %s", target, convert(t.GoType, native, "d."+read))
		}
	case model.String:
		// An enumerated string is matched without copying it and set to the matching literal, which costs no
		// allocation where d.String() would cost one.
		if cases, ok := stringEnum(t.Enum); ok {
			o.typeEnumRead = true
			g.enumRead(target, t.Enum, cases)
		} else if o.cons != nil {
			if cases, ok := stringEnum(o.cons.Enum); ok {
				o.consEnumRead = true
				g.enumRead(target, o.cons.Enum, cases)
			}
		}
		if !o.typeEnumRead && !o.consEnumRead {
			g.p("%s = %s", target, convert(t.GoType, "string", "d.String()"))
		}
	case model.Number:
		g.p("%s = %s", target, convert(t.GoType, "json.Number", "d.Number()"))
	case model.Bytes:
		g.p("if d.Null() {")
		g.p("%s = nil", target)
		g.p("} else {")
		g.p("%s = d.Bytes()", target)
		g.p("}")
		return nil
	case model.Time:
		g.p("%s = d.Time()", target)
	case model.Raw:
		if t.Any || t.Marshaler {
			g.p("d.Fallback(%s)", addr(target))
		} else {
			g.p("%s = d.Raw()", target)
		}
		return nil
	case model.Named:
		rt, err := g.resolve(t)
		if err != nil {
			return err
		}
		g.p("%s(d, %s)", g.decoder(t.Key, rt), addr(target))
		return nil
	case model.Struct:
		g.p("if d.Object() {")
		if err := g.fieldLoop(t.Fields, operand(target), true); err != nil {
			return err
		}
		g.p("}")
		return nil
	case model.Pointer:
		g.p("if d.Null() {")
		g.p("%s = nil", target)
		g.p("} else {")
		g.p("%s = new(%s)", target, t.Elem.GoType)
		if err := g.decodeValue(t.Elem, "*"+target, o); err != nil {
			return err
		}
		g.p("}")
		return nil
	case model.Slice:
		s, v := g.local("s"), g.local("v")
		g.p("if d.Null() {")
		g.p("%s = nil", target)
		g.p("} else if d.Array() {")
		// A small first capacity saves the slice growing from one, two, four.
		g.p("%s := make(%s, 0, 4)", s, t.GoType)
		g.p("for d.Elem() {")
		if read, ok := plainRead(t.Elem, o.cons); ok {
			g.p("%s = append(%s, %s)", s, s, read)
		} else {
			g.p("var %s %s", v, t.Elem.GoType)
			if err := g.decodeValue(t.Elem, v, decodeOpts{cons: o.cons}); err != nil {
				return err
			}
			g.p("%s = append(%s, %s)", s, s, v)
		}
		g.p("}")
		g.p("%s = %s", target, s)
		g.itemChecks(target, o)
		g.p("}")
		return nil
	case model.Array:
		i := g.local("i")
		g.p("if d.Array() {")
		g.p("%s := 0", i)
		g.p("for d.Elem() {")
		g.p("if %s < %d {", i, t.Len)
		if err := g.decodeValue(t.Elem, operand(target)+"["+i+"]", decodeOpts{cons: o.cons}); err != nil {
			return err
		}
		g.p("} else {")
		g.p("d.Skip()")
		g.p("}")
		g.p("%s++", i)
		g.p("}")
		g.p("if %s != %d {", i, t.Len)
		g.p("d.Failf(\"must have %s, got %%d\", %s)", plural(t.Len, "item"), i)
		g.p("}")
		g.p("}")
		return nil
	case model.Map:
		m, k, v := g.local("m"), g.local("k"), g.local("v")
		g.p("if d.Null() {")
		g.p("%s = nil", target)
		g.p("} else if d.Object() {")
		g.p("%s := %s{}", m, t.GoType)
		g.p("for {")
		g.p("key, ok := d.Field()")
		g.p("if !ok {")
		g.p("break")
		g.p("}")
		g.p("%s := %s(key)", k, t.MapKey)
		g.p("if _, dup := %s[%s]; dup {", m, k)
		g.p("d.Duplicate()")
		g.p("}")
		if read, ok := plainRead(t.Elem, nil); ok {
			g.p("%s[%s] = %s", m, k, read)
		} else {
			g.p("var %s %s", v, t.Elem.GoType)
			if err := g.decodeValue(t.Elem, v, decodeOpts{}); err != nil {
				return err
			}
			g.p("%s[%s] = %s", m, k, v)
		}
		g.p("}")
		g.p("%s = %s", target, m)
		g.p("}")
		return nil
	default:
		return fmt.Errorf("cannot decode %s (kind %d)", t.GoType, t.Kind)
	}
	return g.valueChecks(t, target, o)
}

// numberReader returns the Decoder call that reads a number of type t and the Go type it returns.
func numberReader(t *model.Type) (call, native string) {
	switch t.Kind {
	case model.Int:
		return fmt.Sprintf("Int(%d)", t.Bits), "int64"
	case model.Uint:
		return fmt.Sprintf("Uint(%d)", t.Bits), "uint64"
	}
	return fmt.Sprintf("Float(%d)", t.Bits), "float64"
}

// convert spells a conversion of expr, of type from, to goType, unless they are the same.
func convert(goType, from, expr string) string {
	if goType == from {
		return expr
	}
	return goType + "(" + expr + ")"
}

// stringNumber reads a number written inside a string (the ",string" option) with the rules of a JSON number.
func (g *gen) stringNumber(t *model.Type, target, read, native string) {
	s, sd := g.local("s"), g.local("sd")
	what := "an integer"
	if t.Kind == model.Float {
		what = "a number"
	}
	g.p("if %s := d.String(); d.Err() == nil {", s)
	g.p("%s := tooljson.NewDecoder([]byte(%s))", sd, s)
	g.p("%s = %s", target, convert(t.GoType, native, sd+"."+read))
	g.p("%s.End()", sd)
	g.p("if %s.Err() != nil || !tooljson.Unpadded(%s) {", sd, s)
	g.p("d.Failf(\"must be a string holding %s, got %%q\", %s)", what, s)
	g.p("}")
	g.p("}")
}

// itemChecks checks a list's minItems and maxItems.
func (g *gen) itemChecks(target string, o decodeOpts) {
	if o.cons == nil || !o.list {
		return
	}
	if c := o.cons.MinItems; c > 0 {
		g.p("if n := len(%s); n < %d {", target, c)
		g.p("d.Failf(\"must have at least %s, got %%d\", n)", plural(c, "item"))
		g.p("}")
	}
	if c := o.cons.MaxItems; c > 0 {
		g.p("if n := len(%s); n > %d {", target, c)
		g.p("d.Failf(\"must have at most %s, got %%d\", n)", plural(c, "item"))
		g.p("}")
	}
}

// valueChecks checks a scalar value just read against its type's enum and its field's constraints.
func (g *gen) valueChecks(t *model.Type, target string, o decodeOpts) error {
	if len(t.Enum) > 0 && !o.typeEnumRead {
		if err := g.enumCheck(target, t.Enum); err != nil {
			return err
		}
	}
	if o.cons == nil {
		return nil
	}
	c := o.cons
	if len(c.Enum) > 0 && !o.consEnumRead {
		if err := g.enumCheck(target, c.Enum); err != nil {
			return err
		}
	}
	switch t.Kind {
	case model.Int, model.Uint, model.Float:
		verb := "%d"
		if t.Kind == model.Float {
			verb = "%v"
		}
		for _, b := range []struct{ lit, op, text string }{
			{c.Minimum, "<", "at least"},
			{c.Maximum, ">", "at most"},
			{c.ExclusiveMinimum, "<=", "greater than"},
			{c.ExclusiveMaximum, ">=", "less than"},
		} {
			if b.lit == "" {
				continue
			}
			if t.Kind == model.Float {
				// Rounding to a float can make a number just past the bound equal to it, so equality is
				// settled on the literal as written.
				strict := b.op[:1]
				g.p("if %s %s %s || %s == %s && d.CompareNumber(%s) %s 0 {", target, strict, b.lit, target, b.lit,
					strconv.Quote(b.lit), b.op)
			} else {
				g.p("if %s %s %s {", target, b.op, b.lit)
			}
			g.p("d.Failf(\"must be %s %s, got %s\", %s)", b.text, b.lit, verb, target)
			g.p("}")
		}
	case model.Number:
		// The literal itself is compared, exactly.
		for _, b := range []struct{ lit, op, text string }{
			{c.Minimum, "<", "at least"},
			{c.Maximum, ">", "at most"},
			{c.ExclusiveMinimum, "<=", "greater than"},
			{c.ExclusiveMaximum, ">=", "less than"},
		} {
			if b.lit == "" {
				continue
			}
			g.p("if d.CompareNumber(%s) %s 0 {", strconv.Quote(b.lit), b.op)
			g.p("d.Failf(\"must be %s %s, got %%s\", %s)", b.text, b.lit, target)
			g.p("}")
		}
	case model.String:
		s := target
		if t.GoType != "string" {
			s = "string(" + target + ")"
		}
		if c.MinLength > 0 || c.MaxLength > 0 {
			n := g.local("n")
			g.p("if %s := utf8.RuneCountInString(%s); %s {", n, s, lengthCond(n, c))
			switch {
			case c.MinLength > 0 && c.MaxLength > 0:
				g.p("d.Failf(\"must be %d to %s long, got %%d\", %s)", c.MinLength, plural(c.MaxLength, "character"), n)
			case c.MinLength > 0:
				g.p("d.Failf(\"must be at least %s long, got %%d\", %s)", plural(c.MinLength, "character"), n)
			default:
				g.p("d.Failf(\"must be at most %s long, got %%d\", %s)", plural(c.MaxLength, "character"), n)
			}
			g.p("}")
		}
		if c.Pattern != "" {
			re := g.pattern(c.Pattern)
			g.p("if !%s.MatchString(%s) {", re, s)
			g.p("d.Failf(\"must match the pattern %%s\", %s)", re)
			g.p("}")
		}
		// The formats the decoder checks, with RFC 3339's rules as JSON Schema's date-time and date formats
		// state them; other formats are annotations for the model.
		switch c.Format {
		case "date-time":
			g.p("if !tooljson.IsDateTime(%s) {", s)
			g.p("d.Failf(\"must be a date-time in RFC 3339 form, such as 2026-01-02T15:04:05Z, got %%q\", %s)", s)
			g.p("}")
		case "date":
			g.p("if !tooljson.IsDate(%s) {", s)
			g.p("d.Failf(\"must be a date in RFC 3339 form, such as 2026-01-02, got %%q\", %s)", s)
			g.p("}")
		}
	}
	return nil
}

// lengthCond is the condition under which a string length n breaks the constraints.
func lengthCond(n string, c *model.Constraints) string {
	var parts []string
	if c.MinLength > 0 {
		parts = append(parts, fmt.Sprintf("%s < %d", n, c.MinLength))
	}
	if c.MaxLength > 0 {
		parts = append(parts, fmt.Sprintf("%s > %d", n, c.MaxLength))
	}
	return strings.Join(parts, " || ")
}

// enumCheck checks target against enum values, given as JSON literals.
func (g *gen) enumCheck(target string, enum []string) error {
	cases := make([]string, len(enum))
	for i, lit := range enum {
		v, err := goLiteral(lit)
		if err != nil {
			return err
		}
		cases[i] = v
	}
	g.p("switch %s {", target)
	g.p("case %s:", strings.Join(cases, ", "))
	g.p("default:")
	g.p("d.Failf(%s)", enumMessage(enum, cases))
	g.p("}")
	return nil
}

// enumMessage is the quoted format of the error for a value outside enum, whose Go literals are cases.
func enumMessage(enum, cases []string) string {
	shown := make([]string, len(enum))
	for i, lit := range enum {
		shown[i] = lit
		if s, err := strconv.Unquote(cases[i]); err == nil {
			shown[i] = s
		}
	}
	msg := "must be one of " + strings.Join(shown, ", ")
	return strconv.Quote(strings.ReplaceAll(msg, "%", "%%"))
}

// stringEnum returns the Go literals of enum values that are all JSON strings, false if there are none or one is
// not a string.
func stringEnum(enum []string) ([]string, bool) {
	if len(enum) == 0 {
		return nil, false
	}
	cases := make([]string, len(enum))
	for i, lit := range enum {
		if !strings.HasPrefix(lit, `"`) {
			return nil, false
		}
		v, err := goLiteral(lit)
		if err != nil {
			return nil, false
		}
		cases[i] = v
	}
	return cases, true
}

// enumRead reads a string into target by matching it against enum, whose Go literals are cases, so that target
// gets the literal rather than a copy of the input.
func (g *gen) enumRead(target string, enum, cases []string) {
	g.p("switch string(d.StringBytes()) {")
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c] {
			continue
		}
		seen[c] = true
		g.p("case %s:", c)
		g.p("%s = %s", target, c)
	}
	g.p("default:")
	g.p("d.Failf(%s)", enumMessage(enum, cases))
	g.p("}")
}

// goLiteral turns a JSON literal (string, number or boolean) into a Go literal.
func goLiteral(lit string) (string, error) {
	if strings.HasPrefix(lit, `"`) {
		var s string
		if err := json.Unmarshal([]byte(lit), &s); err != nil {
			return "", fmt.Errorf("bad string literal %s: %w", lit, err)
		}
		return strconv.Quote(s), nil
	}
	if lit == "" {
		return "", fmt.Errorf("empty literal")
	}
	return lit, nil
}

// pattern returns the package-level variable holding a compiled regular expression.
func (g *gen) pattern(re string) string {
	if v, ok := g.patterns[re]; ok {
		return v
	}
	v := fmt.Sprintf("typeshiftPattern%d", len(g.patternOrder))
	g.patterns[re] = v
	g.patternOrder = append(g.patternOrder, re)
	return v
}

// plural spells a count of things: 1 item, 2 items.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// plainRead returns the expression that reads a value of t when nothing needs checking after it, such as
// d.String() or int(d.Int(64)).
func plainRead(t *model.Type, cons *model.Constraints) (string, bool) {
	if len(t.Enum) > 0 || cons != nil && hasValueChecks(cons) {
		return "", false
	}
	switch t.Kind {
	case model.Bool:
		return convert(t.GoType, "bool", "d.Bool()"), true
	case model.Int, model.Uint, model.Float:
		read, native := numberReader(t)
		return convert(t.GoType, native, "d."+read), true
	case model.String:
		return convert(t.GoType, "string", "d.String()"), true
	case model.Time:
		return "d.Time()", true
	case model.Number:
		return convert(t.GoType, "json.Number", "d.Number()"), true
	}
	return "", false
}

// hasValueChecks reports whether constraints check a value after it is read.
func hasValueChecks(c *model.Constraints) bool {
	return len(c.Enum) > 0 || c.Minimum != "" || c.Maximum != "" || c.ExclusiveMinimum != "" ||
		c.ExclusiveMaximum != "" || c.MinLength > 0 || c.MaxLength > 0 || c.Pattern != "" || c.Format == "date-time" || c.Format == "date"
}
