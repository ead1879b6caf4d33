package emit

import (
	"fmt"
	"strconv"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// encodeOpts carry a field's ",string" option down to its value.
type encodeOpts struct {
	stringify bool
	// nonNil says that the caller has checked that the value is not nil.
	nonNil bool
}

// encoder returns the name of the function that appends the named struct type key, queueing it to be written.
func (g *gen) encoder(key string, rt *model.Type) string {
	if name, ok := g.encoders[key]; ok {
		return name
	}
	name := "typeshiftAppend" + g.typeIdent(key, rt.GoType)
	g.encoders[key] = name
	g.encQueue = append(g.encQueue, key)
	return name
}

// writeEncoder writes the encoder of one named struct type.
func (g *gen) writeEncoder(key string) error {
	rt := g.pkg.Types[key]
	g.n = 0
	g.needs["fail"] = true
	g.p("")
	g.p("// %s appends x as JSON, as encoding/json writes it. The first value JSON cannot hold is recorded in err.", g.encoders[key])
	g.p("func %s(b []byte, x *%s, err *error) []byte {", g.encoders[key], rt.GoType)
	if err := g.encodeFields(rt.Fields, "x"); err != nil {
		return err
	}
	g.p("return b")
	g.p("}")
	return nil
}

// encodeFields appends an object of fields, each read from x.<path>.
func (g *gen) encodeFields(fields []*model.Field, x string) error {
	if len(fields) == 0 {
		g.p("b = append(b, \"{}\"...)")
		return nil
	}
	// When the first field is always written, the object opens with it; otherwise every field writes a leading
	// comma and the first comma becomes the opening brace.
	fixedFirst := omitCond(fields[0], x+"."+fieldPath(fields[0])) == ""
	start := ""
	if !fixedFirst {
		start = g.local("start")
		g.p("%s := len(b)", start)
	}
	for i, f := range fields {
		expr := x + "." + fieldPath(f)
		lead := ","
		if i == 0 && fixedFirst {
			lead = "{"
		}
		key := lead + string(tooljson.AppendString(nil, f.JSONName)) + ":"
		cond := omitCond(f, expr)
		if cond != "" {
			g.p("if %s {", cond)
		}
		g.p("b = append(b, %s...)", goString(key))
		nonNil := cond != "" && (f.Type.Kind == model.Pointer || f.Type.Kind == model.Slice || f.Type.Kind == model.Map)
		if err := g.encodeValue(f.Type, expr, "err", encodeOpts{stringify: f.Stringify, nonNil: nonNil}); err != nil {
			return err
		}
		if cond != "" {
			g.p("}")
		}
	}
	if fixedFirst {
		g.p("b = append(b, '}')")
		return nil
	}
	g.p("if len(b) == %s {", start)
	g.p("b = append(b, '{')")
	g.p("} else {")
	g.p("b[%s] = '{'", start)
	g.p("}")
	g.p("b = append(b, '}')")
	return nil
}

// omitCond is the condition under which a field with omitempty or omitzero is written, "" if it always is.
func omitCond(f *model.Field, expr string) string {
	var conds []string
	t := f.Type
	if f.OmitEmpty {
		switch t.Kind {
		case model.Bool:
			conds = append(conds, expr)
		case model.Int, model.Uint, model.Float:
			conds = append(conds, expr+" != 0")
		case model.String, model.Number:
			conds = append(conds, expr+` != ""`)
		case model.Bytes, model.Slice, model.Map, model.Array:
			conds = append(conds, "len("+expr+") != 0")
		case model.Pointer:
			conds = append(conds, expr+" != nil")
		case model.Raw:
			if t.Any {
				conds = append(conds, expr+" != nil")
			} else if !t.Marshaler {
				conds = append(conds, "len("+expr+") != 0")
			}
		}
	}
	if f.OmitZero {
		switch {
		case t.HasIsZero:
			conds = append(conds, "!"+expr+".IsZero()")
		case t.Kind == model.Pointer && t.Elem.HasIsZero:
			// encoding/json calls the IsZero a pointer gets from its element, guarding against nil.
			conds = append(conds, expr+" != nil && !"+expr+".IsZero()")
		case t.Kind == model.Bool:
			conds = append(conds, expr)
		case t.Kind == model.Int, t.Kind == model.Uint, t.Kind == model.Float:
			conds = append(conds, expr+" != 0")
		case t.Kind == model.String, t.Kind == model.Number:
			conds = append(conds, expr+` != ""`)
		case t.Kind == model.Bytes, t.Kind == model.Slice, t.Kind == model.Map, t.Kind == model.Pointer,
			t.Kind == model.Raw && !t.Marshaler:
			conds = append(conds, expr+" != nil")
		default:
			conds = append(conds, expr+" != ("+t.GoType+"{})")
		}
	}
	switch len(conds) {
	case 0:
		return ""
	case 1:
		return conds[0]
	}
	return conds[0] + " && " + conds[1]
}

// encodeValue writes statements that append expr, an addressable expression of type t, to b. errVar is the
// *error that records values JSON cannot hold.
func (g *gen) encodeValue(t *model.Type, expr, errVar string, o encodeOpts) error {
	quote := func() {
		if o.stringify {
			g.p("b = append(b, '\"')")
		}
	}
	switch t.Kind {
	case model.Bool:
		quote()
		g.p("b = tooljson.AppendBool(b, %s)", convert("bool", t.GoType, expr))
		quote()
	case model.Int:
		quote()
		g.p("b = tooljson.AppendInt(b, %s)", convert("int64", t.GoType, expr))
		quote()
	case model.Uint:
		quote()
		g.p("b = tooljson.AppendUint(b, %s)", convert("uint64", t.GoType, expr))
		quote()
	case model.Float:
		g.needs["fail"] = true
		v := convert("float64", t.GoType, expr)
		g.p("if !tooljson.FloatOK(%s) {", v)
		g.p("typeshiftFail(%s, \"json: unsupported value: %%v\", %s)", errVar, v)
		g.p("}")
		quote()
		g.p("b = tooljson.AppendFloat(b, %s, %d)", v, t.Bits)
		quote()
	case model.String:
		g.p("b = tooljson.AppendString(b, %s)", convert("string", t.GoType, expr))
	case model.Number:
		g.needs["fail"] = true
		v := convert("json.Number", t.GoType, expr)
		g.p("if !tooljson.NumberOK(%s) {", v)
		g.p("typeshiftFail(%s, \"json: invalid number literal %%q\", %s)", errVar, v)
		g.p("}")
		g.p("b = tooljson.AppendNumber(b, %s)", v)
	case model.Bytes:
		g.p("b = tooljson.AppendBytes(b, %s)", expr)
	case model.Time:
		g.needs["fail"] = true
		g.p("if !tooljson.TimeOK(%s) {", expr)
		g.p("typeshiftFail(%s, \"json: time %%v cannot be written as RFC 3339\", %s)", errVar, expr)
		g.p("}")
		g.p("b = tooljson.AppendTime(b, %s)", expr)
	case model.Raw:
		g.needs["fail"] = true
		if t.Any || t.Marshaler {
			e := g.local("e")
			g.p("{")
			g.p("var %s error", e)
			g.p("if b, %s = tooljson.AppendFallback(b, %s); %s != nil {", e, expr, e)
			g.p("typeshiftFail(%s, \"%%w\", %s)", errVar, e)
			g.p("}")
			g.p("}")
			return nil
		}
		g.p("if !tooljson.RawOK(%s) {", expr)
		g.p("typeshiftFail(%s, \"json: invalid raw JSON in %s\")", errVar, t.GoType)
		g.p("}")
		g.p("b = tooljson.AppendRaw(b, %s)", expr)
	case model.Named:
		rt, err := g.resolve(t)
		if err != nil {
			return err
		}
		g.p("b = %s(b, %s, %s)", g.encoder(t.Key, rt), addr(expr), errVar)
	case model.Struct:
		return g.encodeFields(t.Fields, operand(expr))
	case model.Pointer:
		elem := encodeOpts{stringify: o.stringify}
		if o.nonNil {
			return g.encodeValue(t.Elem, "*"+expr, errVar, elem)
		}
		g.p("if %s == nil {", expr)
		g.p("b = append(b, \"null\"...)")
		g.p("} else {")
		if err := g.encodeValue(t.Elem, "*"+expr, errVar, elem); err != nil {
			return err
		}
		g.p("}")
	case model.Slice, model.Array:
		i := g.local("i")
		if t.Kind == model.Slice && !o.nonNil {
			g.p("if %s == nil {", expr)
			g.p("b = append(b, \"null\"...)")
			g.p("} else {")
		} else {
			g.p("{")
		}
		g.p("b = append(b, '[')")
		g.p("for %s := range %s {", i, expr)
		g.p("if %s > 0 {", i)
		g.p("b = append(b, ',')")
		g.p("}")
		if err := g.encodeValue(t.Elem, operand(expr)+"["+i+"]", errVar, encodeOpts{}); err != nil {
			return err
		}
		g.p("}")
		g.p("b = append(b, ']')")
		g.p("}")
	case model.Map:
		i, k, v := g.local("i"), g.local("k"), g.local("v")
		if o.nonNil {
			g.p("{")
		} else {
			g.p("if %s == nil {", expr)
			g.p("b = append(b, \"null\"...)")
			g.p("} else {")
		}
		g.p("b = append(b, '{')")
		g.p("for %s, %s := range slices.Sorted(maps.Keys(%s)) {", i, k, expr)
		g.p("if %s > 0 {", i)
		g.p("b = append(b, ',')")
		g.p("}")
		g.p("b = tooljson.AppendString(b, %s)", convert("string", t.MapKey, k))
		g.p("b = append(b, ':')")
		g.p("%s := %s[%s]", v, operand(expr), k)
		if err := g.encodeValue(t.Elem, v, errVar, encodeOpts{}); err != nil {
			return err
		}
		g.p("}")
		g.p("b = append(b, '}')")
		g.p("}")
	default:
		return fmt.Errorf("cannot encode %s (kind %d)", t.GoType, t.Kind)
	}
	return nil
}

// drain writes the queued decoders and encoders, which may queue more as they go.
func (g *gen) drain() error {
	for len(g.decQueue) > 0 || len(g.encQueue) > 0 {
		if len(g.decQueue) > 0 {
			key := g.decQueue[0]
			g.decQueue = g.decQueue[1:]
			if err := g.writeDecoder(key); err != nil {
				return err
			}
			continue
		}
		key := g.encQueue[0]
		g.encQueue = g.encQueue[1:]
		if err := g.writeEncoder(key); err != nil {
			return err
		}
	}
	return nil
}

// helpers writes the small functions and variables the file uses.
func (g *gen) helpers() {
	if g.needs["settings"] {
		g.p("")
		g.p("// typeshiftSettings returns the default settings a tool's chain recorded with WithSettings.")
		g.p("func typeshiftSettings[S any](tool string, chain *toolset.ToolBuilder) (S, error) {")
		g.p("v, _ := chain.Settings()")
		g.p("s, ok := v.(S)")
		g.p("if !ok {")
		g.p("return s, fmt.Errorf(\"%%s: the chain's settings are %%T, not %%T: %%w\", tool, v, s, toolset.ErrStale)")
		g.p("}")
		g.p("return s, nil")
		g.p("}")
	}
	if g.needs["arguments"] {
		g.p("")
		g.p("// typeshiftArguments returns a tool's arguments, reading none as an empty object.")
		g.p("func typeshiftArguments(args []byte) []byte {")
		g.p("for len(args) > 0 && (args[0] == ' ' || args[0] == '\\t' || args[0] == '\\n' || args[0] == '\\r') {")
		g.p("args = args[1:]")
		g.p("}")
		g.p("if len(args) == 0 {")
		g.p("return []byte(\"{}\")")
		g.p("}")
		g.p("return args")
		g.p("}")
	}
	if g.needs["noArguments"] {
		g.p("")
		g.p("// typeshiftNoArguments checks the arguments of a tool that takes none: an empty object, or null.")
		g.p("func typeshiftNoArguments(args []byte) error {")
		g.p("d := tooljson.NewDecoder(typeshiftArguments(args))")
		g.p("if !d.Null() && d.Object() {")
		g.p("for {")
		g.p("key, ok := d.Field()")
		g.p("if !ok {")
		g.p("break")
		g.p("}")
		g.p("d.Unknown(key, \"\")")
		g.p("}")
		g.p("}")
		g.p("d.End()")
		g.p("return d.Err()")
		g.p("}")
	}
	if g.needs["fail"] {
		g.p("")
		g.p("// typeshiftFail records the first value of a result that JSON cannot hold.")
		g.p("func typeshiftFail(err *error, format string, args ...any) {")
		g.p("if *err == nil {")
		g.p("*err = fmt.Errorf(format, args...)")
		g.p("}")
		g.p("}")
	}
	if len(g.patternOrder) > 0 {
		g.p("")
		g.p("// The patterns of jsonschema tags, compiled once.")
		g.p("var (")
		for _, re := range g.patternOrder {
			g.p("%s = regexp.MustCompile(%s)", g.patterns[re], strconv.Quote(re))
		}
		g.p(")")
	}
}
