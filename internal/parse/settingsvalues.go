package parse

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// checkSettingsValues reports (TSH018) each constant value of a WithSettings composite literal that its field's
// jsonschema tag refuses: the tool would run with a value that no stored or run setting may take, and the model
// would read bounds its own defaults break. A field the literal leaves out is checked with its zero value. A
// value the generator cannot read (a variable, a call) is checked by the generated code when it makes the tools.
func (p *parser) checkSettingsValues(t *model.Tool, c *chain) bool {
	lit, ok := ast.Unparen(c.settingsArg).(*ast.CompositeLit)
	if !ok {
		return true
	}
	st := p.out.Types[t.Settings.Key]
	under, ok := p.info.TypeOf(lit).Underlying().(*types.Struct)
	if st == nil || !ok {
		return true
	}
	byPath := map[string]*model.Field{}
	for _, f := range st.Fields {
		byPath[f.Path] = f
	}
	ok = true
	given := map[string]bool{}
	for i, elt := range lit.Elts {
		var name string
		value := elt
		if kv, isKV := elt.(*ast.KeyValueExpr); isKV {
			id, isIdent := kv.Key.(*ast.Ident)
			if !isIdent {
				continue
			}
			name, value = id.Name, kv.Value
		} else if i < under.NumFields() {
			name = under.Field(i).Name()
		}
		given[name] = true
		f := byPath[name]
		if f == nil {
			continue
		}
		if problem := p.settingRefused(f, value); problem != "" {
			p.report(value, "TSH018", Error, fmt.Sprintf(
				"the setting %s.%s = %s: the tool would run with a value its tag refuses to stored and run settings; change the value or the tag",
				t.Settings.GoType, name, problem))
			ok = false
		}
	}
	// A field the literal leaves out runs with its zero value, which its tag may refuse too.
	for _, f := range st.Fields {
		top, _, _ := strings.Cut(f.Path, ".")
		if given[top] {
			continue
		}
		var zero string
		switch deref(f.Type).Kind {
		case model.Int, model.Uint, model.Float:
			zero = "0"
		case model.String:
			zero = `""`
		default:
			continue
		}
		if f.Type.Kind == model.Pointer {
			continue
		}
		if problem := literalRefused(f, zero); problem != "" {
			p.report(lit, "TSH018", Error, fmt.Sprintf(
				"the setting %s.%s is left out, so %s: the tool would run with a value its tag refuses to stored and run settings; give it a value the tag accepts",
				t.Settings.GoType, f.Path, problem))
			ok = false
		}
	}
	return ok
}

// settingRefused says why a field's tag refuses the constant value e, "" if it accepts it or e is not a
// constant of a scalar the tag constrains.
func (p *parser) settingRefused(f *model.Field, e ast.Expr) string {
	tv, ok := p.info.Types[e]
	if !ok || tv.Value == nil {
		return ""
	}
	scalar := deref(f.Type)
	if scalar != f.Type {
		return "" // a pointer field takes no constant
	}
	var lit string
	switch v := tv.Value; v.Kind() {
	case constant.Int:
		lit = v.ExactString()
	case constant.Float:
		x, _ := constant.Float64Val(v)
		lit = strconv.FormatFloat(x, 'g', -1, 64)
	case constant.String:
		b, _ := json.Marshal(constant.StringVal(v))
		lit = string(b)
	default:
		return ""
	}
	return literalRefused(f, lit)
}

// literalRefused says why a field's tag refuses the JSON literal lit, "" if it accepts it.
func literalRefused(f *model.Field, lit string) string {
	scalar, c := deref(f.Type), f.Constraints
	switch {
	case len(c.Enum) > 0 && !slices.Contains(c.Enum, lit):
		return fmt.Sprintf("%s is not one of the enum values %s", lit, strings.Join(c.Enum, ", "))
	case len(scalar.Enum) > 0 && !slices.Contains(scalar.Enum, lit):
		return fmt.Sprintf("%s is not a value of %s (%s)", lit, scalar.GoType, strings.Join(scalar.Enum, ", "))
	}
	if problem := refuses(c, scalar, lit); problem != "" {
		return lit + " " + problem
	}
	return ""
}
