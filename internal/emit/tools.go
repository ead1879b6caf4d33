package emit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/schema"
)

// toolset writes a toolset's Source methods and its tools.
func (g *gen) toolset(set *model.Toolset) error {
	t := set.TypeName
	build := "typeshift" + ident(t) + "Tools"
	g.p("")
	g.p("var _ toolset.Source = (*%s)(nil)", t)
	g.p("")
	g.p("// SourceName returns %q, the name of the toolset in error messages.", t)
	g.p("func (t *%s) SourceName() string { return %q }", t, t)
	g.p("")
	g.p("// Tools returns the tools of %s, made once from the chains its Declare method records.", t)
	g.p("func (t *%s) Tools(ctx context.Context, run *toolset.Run) ([]*toolset.Tool, error) {", t)
	g.p("return t.%s.Declared(%q, t.Declare, %d, func(chains []*toolset.ToolBuilder) ([]*toolset.Tool, error) {", cmp.Or(set.Field, "Toolset"), t, len(set.Tools))
	g.p("return %s(t, chains)", build)
	g.p("})")
	g.p("}")
	return g.toolsBuild(set, build)
}

// toolsBuild writes the function build that makes the tools of set (a toolset, or an agent with tools of its own)
// from its chains, the tools' identity constants and each tool's function.
func (g *gen) toolsBuild(set *model.Toolset, build string) error {
	t := set.TypeName
	g.p("")
	g.p("// %s makes the tools of %s in the order of their chains.", build, t)
	g.p("func %s(ts *%s, chains []*toolset.ToolBuilder) ([]*toolset.Tool, error) {", build, t)
	args := make([]string, len(set.Tools))
	for i, tool := range set.Tools {
		args[i] = "ts"
		if tool.Settings != nil {
			g.needs["settings"] = true
			v := fmt.Sprintf("settings%d", i)
			g.p("%s, err := typeshiftSettings[%s](%q, chains[%d])", v, tool.Settings.GoType, t+"."+tool.Name, i)
			g.p("if err != nil {")
			g.p("return nil, err")
			g.p("}")
			if err := g.settingsChecks(v, t+"."+tool.Name, tool); err != nil {
				return fmt.Errorf("emit: %s, tool %s: %w", t, tool.Name, err)
			}
			args[i] += ", " + v
		}
		args[i] += ", new(toolset.State)"
	}
	if len(set.Tools) == 0 {
		g.p("return nil, nil")
	} else {
		g.p("return []*toolset.Tool{")
		for i, tool := range set.Tools {
			g.p("%s(%s),", toolFunc(set, tool), args[i])
		}
		g.p("}, nil")
	}
	g.p("}")
	if len(set.Tools) > 0 {
		g.ids(set)
	}
	for _, tool := range set.Tools {
		if err := g.tool(set, tool); err != nil {
			return fmt.Errorf("emit: %s, tool %s: %w", t, tool.Name, err)
		}
	}
	return nil
}

// settingsChecks writes the checks of a tool's default settings, v, against the jsonschema tags of their scalar
// fields: the parser reports a WithSettings literal's constants that a tag refuses, and these checks refuse, when
// the tools are made, a value it could not read (a variable, a call), so that the tool never runs with a value no
// stored or run setting may take.
func (g *gen) settingsChecks(v, what string, tool *model.Tool) error {
	rt, err := g.resolve(tool.Settings)
	if err != nil {
		return err
	}
	for _, f := range rt.Fields {
		t, c := f.Type, f.Constraints
		target := v + "." + f.Path
		var conds, rules []string
		switch t.Kind {
		case model.Int, model.Uint, model.Float:
			for _, b := range []struct{ key, lit, op string }{
				{"minimum", c.Minimum, "<"},
				{"maximum", c.Maximum, ">"},
				{"exclusiveMinimum", c.ExclusiveMinimum, "<="},
				{"exclusiveMaximum", c.ExclusiveMaximum, ">="},
			} {
				if b.lit != "" {
					conds = append(conds, fmt.Sprintf("%s %s %s", target, b.op, b.lit))
					rules = append(rules, b.key+"="+b.lit)
				}
			}
		case model.String:
			s := target
			if t.GoType != "string" {
				s = "string(" + target + ")"
			}
			if c.MinLength > 0 {
				conds = append(conds, fmt.Sprintf("utf8.RuneCountInString(%s) < %d", s, c.MinLength))
				rules = append(rules, fmt.Sprintf("minLength=%d", c.MinLength))
			}
			if c.MaxLength > 0 {
				conds = append(conds, fmt.Sprintf("utf8.RuneCountInString(%s) > %d", s, c.MaxLength))
				rules = append(rules, fmt.Sprintf("maxLength=%d", c.MaxLength))
			}
			if c.Pattern != "" {
				conds = append(conds, fmt.Sprintf("!%s.MatchString(%s)", g.pattern(c.Pattern), s))
				rules = append(rules, "pattern="+c.Pattern)
			}
		default:
			continue
		}
		for _, enum := range [][]string{t.Enum, c.Enum} {
			if len(enum) == 0 {
				continue
			}
			eqs := make([]string, len(enum))
			for i, lit := range enum {
				gl, err := goLiteral(lit)
				if err != nil {
					return err
				}
				eqs[i] = target + " == " + gl
			}
			conds = append(conds, "!("+strings.Join(eqs, " || ")+")")
			rules = append(rules, "enum "+strings.Join(enum, ", "))
		}
		if len(conds) == 0 {
			continue
		}
		verb := "%v"
		if t.Kind == model.String {
			verb = "%q"
		}
		g.p("if %s {", strings.Join(conds, " || "))
		g.p("return nil, fmt.Errorf(\"%%s: WithSettings gives %%s = %s, which its tag refuses (%%s): give a value the tag accepts, or change the tag\", %q, %q, %s, %q)",
			verb, what, f.JSONName, target, strings.Join(rules, ", "))
		g.p("}")
	}
	return nil
}

// toolFunc names the function that makes a tool.
func toolFunc(set *model.Toolset, tool *model.Tool) string {
	return "typeshift" + ident(set.TypeName) + ident(tool.Name) + "Tool"
}

// tool writes the function that makes one tool, its schema constants and its overrides decoder.
func (g *gen) tool(set *model.Toolset, tool *model.Tool) error {
	base := "typeshift" + ident(set.TypeName) + ident(tool.Name)
	in, err := schema.Input(g.pkg, tool.Input)
	if err != nil {
		return err
	}
	g.p("")
	g.p("// %sSchema is the JSON Schema of the arguments of %s.", base, tool.Name)
	g.p("const %sSchema = %s", base, schemaLiteral(in))
	configurable := tool.Settings != nil && len(tool.Configurable) > 0
	if configurable {
		s, err := schema.Overrides(g.pkg, tool.Settings, tool.Configurable)
		if err != nil {
			return err
		}
		g.p("")
		g.p("// %sSettingsSchema is the JSON Schema of the settings overrides of %s.", base, tool.Name)
		g.p("const %sSettingsSchema = %s", base, schemaLiteral(s))
	}

	name := toolFunc(set, tool)
	params := "ts *" + set.TypeName
	if tool.Settings != nil {
		params += ", settings " + tool.Settings.GoType
	}
	params += ", state *toolset.State"
	g.p("")
	g.p("// %s makes the %s tool, which calls %s.", name, tool.Name, callee(set, tool))
	g.p("func %s(%s) *toolset.Tool {", name, params)
	if tool.Result.Kind != model.ResultNone {
		g.p("// size is the length of the last result, so that the next one's buffer is allocated once.")
		g.p("var size atomic.Int64")
	}
	g.p("return &toolset.Tool{")
	g.p("Name: %q,", tool.Name)
	g.p("Description: %s,", goString(tool.Description))
	g.p("Schema: json.RawMessage(%sSchema),", base)
	if tool.ReadOnly {
		g.p("ReadOnly: true,")
	}
	if tool.RequiresApproval {
		g.p("RequiresApproval: true,")
	}
	g.p("ID: %s,", model.IDConst(set.TypeName, tool.Method))
	g.p("State: state,")
	if tool.Input != nil {
		g.p("Decode: func(args json.RawMessage) (any, error) {")
		g.p("in, err := %sDecode(args)", base)
		g.p("if err != nil {")
		g.p("return nil, err")
		g.p("}")
		g.p("return in, nil")
		g.p("},")
	} else {
		g.needs["arguments"] = true
		g.needs["noArguments"] = true
		g.p("Decode: func(args json.RawMessage) (any, error) {")
		g.p("return nil, typeshiftNoArguments(args)")
		g.p("},")
	}
	g.p("Invoke: func(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {")
	if err := g.invoke(set, tool); err != nil {
		return err
	}
	g.p("},")
	if configurable {
		g.p("Configure: func(overrides json.RawMessage) (*toolset.Tool, error) {")
		g.p("s := settings")
		g.p("if err := %sOverrides(overrides, &s); err != nil {", base)
		g.p("return nil, err")
		g.p("}")
		g.p("return %s(ts, s, state), nil", name)
		g.p("},")
		g.p("SettingsSchema: json.RawMessage(%sSettingsSchema),", base)
	}
	g.p("}")
	g.p("}")
	if tool.Input != nil {
		if err := g.decodeFunc(base, tool); err != nil {
			return err
		}
	}
	if configurable {
		return g.overrides(base, tool)
	}
	return nil
}

// ids writes the identity constants of a toolset's tools.
func (g *gen) ids(set *model.Toolset) {
	g.p("")
	g.p("// The identities of the tools of %s ([toolset.Tool.ID]), for approval rules and settings.", set.TypeName)
	g.p("const (")
	for _, tool := range set.Tools {
		g.p("// %s identifies the %s tool.", model.IDConst(set.TypeName, tool.Method), tool.Name)
		g.p("%s = %q", model.IDConst(set.TypeName, tool.Method), g.pkg.Path+"."+set.TypeName+"."+tool.Name)
	}
	g.p(")")
}

// decodeFunc writes the function that decodes and checks a tool's arguments into its input struct.
func (g *gen) decodeFunc(base string, tool *model.Tool) error {
	rt, err := g.resolve(tool.Input)
	if err != nil {
		return err
	}
	g.needs["arguments"] = true
	g.p("")
	g.p("// %sDecode decodes and checks the arguments of %s.", base, tool.Name)
	g.p("func %sDecode(args []byte) (%s, error) {", base, tool.Input.GoType)
	g.p("var in %s", tool.Input.GoType)
	g.p("d := tooljson.NewDecoder(typeshiftArguments(args))")
	g.p("%s(&d, &in)", g.decoder(tool.Input.Key, rt))
	g.p("d.End()")
	g.p("return in, d.Err()")
	g.p("}")
	return nil
}

// callee spells what a tool calls: ts.Method or a function.
func callee(set *model.Toolset, tool *model.Tool) string {
	if tool.Func {
		return tool.Method
	}
	return set.TypeName + "." + tool.Method
}

// invoke writes the body of a tool's Invoke function.
func (g *gen) invoke(set *model.Toolset, tool *model.Tool) error {
	g.n = 0
	var args []string
	if tool.HasContext {
		args = append(args, "ctx")
	}
	if tool.Input != nil {
		g.p("in, err := typeshift%s%sDecode(call.Args())", ident(set.TypeName), ident(tool.Name))
		g.p("if err != nil {")
		g.p("return nil, err")
		g.p("}")
		args = append(args, "in")
	} else {
		g.needs["arguments"] = true
		g.needs["noArguments"] = true
		g.p("if err := typeshiftNoArguments(call.Args()); err != nil {")
		g.p("return nil, err")
		g.p("}")
	}
	if tool.Settings != nil {
		args = append(args, "settings")
	}
	if tool.HasCall {
		args = append(args, "call")
	}
	fn := "ts." + tool.Method
	if tool.Func {
		fn = tool.Method
	}
	call := fmt.Sprintf("%s(%s)", fn, strings.Join(args, ", "))
	r := tool.Result
	switch r.Kind {
	case model.ResultNone:
		if r.HasError {
			g.p("if err := %s; err != nil {", call)
			g.p("return nil, err")
			g.p("}")
		} else {
			g.p("%s", call)
		}
		g.p("return json.RawMessage(\"null\"), nil")
		return nil
	case model.ResultValue:
		if r.HasError {
			g.p("out, err := %s", call)
			g.p("if err != nil {")
			g.p("return nil, err")
			g.p("}")
		} else {
			g.p("out := %s", call)
		}
		g.p("b := make([]byte, 0, size.Load())")
		g.p("var encErr error")
		if err := g.encodeValue(r.Type, "out", "&encErr", encodeOpts{}); err != nil {
			return err
		}
	case model.ResultSeq, model.ResultSeq2:
		g.p("b := append(make([]byte, 0, max(size.Load(), 64)), '[')")
		g.p("var encErr error")
		g.p("n := 0")
		if r.Kind == model.ResultSeq {
			g.p("for v := range %s {", call)
		} else {
			g.p("for v, err := range %s {", call)
			g.p("if err != nil {")
			g.p("return nil, err")
			g.p("}")
		}
		g.p("if n > 0 {")
		g.p("b = append(b, ',')")
		g.p("}")
		g.p("n++")
		if err := g.encodeValue(r.Type, "v", "&encErr", encodeOpts{}); err != nil {
			return err
		}
		g.p("}")
		g.p("b = append(b, ']')")
	}
	g.p("if encErr != nil {")
	g.p("return nil, encErr")
	g.p("}")
	g.p("size.Store(int64(len(b)))")
	g.p("return b, nil")
	return nil
}

// overrides writes the decoder of a tool's settings overrides: an object of only the configurable fields,
// read over a copy of the current settings.
func (g *gen) overrides(base string, tool *model.Tool) error {
	rt, err := g.resolve(tool.Settings)
	if err != nil {
		return err
	}
	var fields []*model.Field
	for _, f := range rt.Fields {
		for _, c := range tool.Configurable {
			if f.JSONName == c {
				fields = append(fields, f)
			}
		}
	}
	g.n = 0
	g.p("")
	g.p("// %sOverrides reads overrides of the configurable settings of %s into x.", base, tool.Name)
	g.p("func %sOverrides(data []byte, x *%s) error {", base, tool.Settings.GoType)
	g.p("d := tooljson.NewDecoder(data)")
	g.p("if d.Object() {")
	if err := g.fieldLoop(fields, "x", false); err != nil {
		return err
	}
	g.p("}")
	g.p("d.End()")
	g.p("return d.Err()")
	g.p("}")
	return nil
}

// schemaLiteral writes a schema as an indented raw string, or a quoted one if it holds a backquote.
func schemaLiteral(s []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, s, "", "\t"); err != nil {
		return strconv.Quote(string(s))
	}
	if bytes.ContainsAny(b.Bytes(), "`\r") {
		return strconv.Quote(b.String())
	}
	return "`" + b.String() + "`"
}
