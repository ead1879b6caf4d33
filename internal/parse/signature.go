package parse

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"

	"github.com/typeshift-go/typeshift/internal/model"
)

// readSignature binds a tool's function: an optional context.Context, an optional input struct, the settings
// struct when the chain gives settings, and an optional *toolset.Call; then its results. It reports what it
// cannot bind (TSH004, TSH018, TSH019, TSH020) at arg, the AddTool argument, and returns false.
func (p *parser) readSignature(t *model.Tool, fn *types.Func, c *chain, arg ast.Expr) bool {
	sig := fn.Type().(*types.Signature)
	bad := func(format string, args ...any) bool {
		p.report(arg, "TSH004", Error, fmt.Sprintf("%s cannot be a tool: ", fn.Name())+fmt.Sprintf(format, args...))
		return false
	}
	if sig.TypeParams().Len() > 0 {
		return bad("it has type parameters")
	}
	if sig.Variadic() {
		return bad("it is variadic; take an input struct instead")
	}
	params := sig.Params()
	var structs []*types.Var
	for i := range params.Len() {
		v := params.At(i)
		pt := v.Type()
		switch {
		case isNamed(pt, "context", "Context"):
			if i != 0 {
				return bad("context.Context must be the first parameter")
			}
			t.HasContext = true
		case isCallPointer(pt):
			if i != params.Len()-1 {
				return bad("*toolset.Call must be the last parameter")
			}
			t.HasCall = true
		case isNamed(pt, ToolsetPath, "Call"):
			return bad("parameter %s takes toolset.Call by value; take *toolset.Call, as the last parameter", paramName(v, i))
		case isNamedStruct(pt):
			structs = append(structs, v)
		default:
			if ptr, ok := pt.(*types.Pointer); ok && isNamedStruct(ptr.Elem()) {
				return bad("parameter %s is a pointer; take the input struct by value", paramName(v, i))
			}
			return bad("parameter %s has type %s; a tool takes an optional context.Context, one input struct (a named struct type), its settings struct and an optional *toolset.Call, in that order",
				paramName(v, i), types.TypeString(pt, types.RelativeTo(p.pkg)))
		}
	}
	var settingsType types.Type
	if c.settingsArg != nil {
		if settingsType = p.info.TypeOf(c.settingsArg); settingsType == nil {
			return false // does not type-check; the compiler reports it
		}
	}
	var input, settings *types.Var
	switch {
	case len(structs) > 2:
		return bad("it takes %d structs; a tool takes one input struct, then its settings struct", len(structs))
	case len(structs) == 2:
		input, settings = structs[0], structs[1]
		if settingsType == nil {
			p.report(arg, "TSH018", Error, fmt.Sprintf(
				"%s takes settings of type %s but the chain gives none: add WithSettings(%s{...}) to the chain",
				fn.Name(), p.typeName(settings.Type()), p.typeName(settings.Type())))
			return false
		}
	case len(structs) == 1 && settingsType != nil && types.Identical(structs[0].Type(), settingsType):
		settings = structs[0]
	case len(structs) == 1:
		input = structs[0]
	}
	if settingsType != nil {
		if settings == nil {
			p.report(c.settingsArg, "TSH018", Error, fmt.Sprintf(
				"%s takes no settings parameter: add a parameter of type %s after the input, or remove WithSettings",
				fn.Name(), p.typeName(settingsType)))
			return false
		}
		if !types.Identical(settings.Type(), settingsType) {
			p.report(c.settingsArg, "TSH018", Error, fmt.Sprintf(
				"the settings are of type %s but %s takes %s: pass a value of type %s",
				p.typeName(settingsType), fn.Name(), p.typeName(settings.Type()), p.typeName(settings.Type())))
			return false
		}
	}
	// Check the order: context, input, settings, call.
	if input != nil && settings != nil && input.Pos() > settings.Pos() {
		return bad("the input struct must come before the settings struct")
	}
	if input != nil {
		in, ok := p.describeInput(input.Type(), arg, fn.Name())
		if !ok {
			return false
		}
		t.Input = in
	}
	if settings != nil {
		s, ok := p.describeInput(settings.Type(), arg, fn.Name())
		if !ok {
			return false
		}
		t.Settings = s
		if !p.readConfigurable(t, c) || !p.checkSettingsValues(t, c) {
			return false
		}
	}
	return p.readResults(t, fn, sig.Results(), arg)
}

// readResults reads (T, error), error, T, nothing, iter.Seq[T] and iter.Seq2[T, error].
func (p *parser) readResults(t *model.Tool, fn *types.Func, res *types.Tuple, arg ast.Expr) bool {
	bad := func(format string, args ...any) bool {
		p.report(arg, "TSH004", Error, fmt.Sprintf("%s cannot be a tool: ", fn.Name())+fmt.Sprintf(format, args...))
		return false
	}
	var value types.Type
	switch res.Len() {
	case 0:
	case 1:
		if isError(res.At(0).Type()) {
			t.Result.HasError = true
		} else {
			value = res.At(0).Type()
		}
	case 2:
		if !isError(res.At(1).Type()) {
			return bad("its second result must be an error")
		}
		value, t.Result.HasError = res.At(0).Type(), true
	default:
		return bad("it returns %d results; return (T, error), error, T or a stream", res.Len())
	}
	if value == nil {
		t.Result.Kind = model.ResultNone
		return true
	}
	t.Result.Kind = model.ResultValue
	if n, ok := types.Unalias(value).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "iter" {
		targs := n.TypeArgs()
		switch n.Obj().Name() {
		case "Seq":
			t.Result.Kind = model.ResultSeq
			value = targs.At(0)
		case "Seq2":
			if !isError(targs.At(1)) {
				return bad("an iter.Seq2 result must yield errors second: iter.Seq2[T, error]")
			}
			t.Result.Kind = model.ResultSeq2
			value = targs.At(0)
		}
		if t.Result.HasError {
			return bad("a stream result carries its own errors: return iter.Seq2[T, error] alone")
		}
	}
	rt, ok := p.describeResult(value, arg, fn.Name())
	if !ok {
		return false
	}
	t.Result.Type = rt
	return true
}

// readConfigurable works out the json names of a tool's configurable settings fields: those tagged
// typeshift:"configurable" or named by Configurable, or all of them under WithConfigurableSettings except those
// named by NotConfigurable.
func (p *parser) readConfigurable(t *model.Tool, c *chain) bool {
	st := p.out.Types[t.Settings.Key]
	byName := map[string]*model.Field{}
	for _, f := range st.Fields {
		byName[f.JSONName] = f
	}
	ok := true
	check := func(args []namedArg) {
		for _, a := range args {
			if byName[a.name] == nil {
				p.report(a.at, "TSH019", Error, fmt.Sprintf("%s has no field with the json name %q", st.GoType, a.name))
				ok = false
			}
		}
	}
	check(c.configurable)
	check(c.notConfigurable)
	if !ok {
		return false
	}
	for _, f := range st.Fields {
		open := f.Configurable || c.allConfigurable ||
			slices.ContainsFunc(c.configurable, func(a namedArg) bool { return a.name == f.JSONName })
		if slices.ContainsFunc(c.notConfigurable, func(a namedArg) bool { return a.name == f.JSONName }) {
			open = false
		}
		if open {
			t.Configurable = append(t.Configurable, f.JSONName)
		}
	}
	return true
}

// paramName names a parameter in a message.
func paramName(v *types.Var, i int) string {
	if v.Name() != "" && v.Name() != "_" {
		return v.Name()
	}
	return fmt.Sprintf("%d", i+1)
}

// typeName spells t relative to the package.
func (p *parser) typeName(t types.Type) string {
	return types.TypeString(t, types.RelativeTo(p.pkg))
}

// isError reports whether t is the error interface.
func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// isCallPointer reports whether t is *toolset.Call.
func isCallPointer(t types.Type) bool {
	ptr, ok := t.(*types.Pointer)
	return ok && isNamed(ptr.Elem(), ToolsetPath, "Call")
}

// isNamedStruct reports whether t is a named struct type.
func isNamedStruct(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	_, ok = n.Underlying().(*types.Struct)
	return ok && !isNamed(t, "time", "Time")
}
