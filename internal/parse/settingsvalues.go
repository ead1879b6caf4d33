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
// would read bounds its own defaults break. Only a composite literal's constants are checked: a value the
// generator cannot read (a variable, a call) is not.
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
	var lit, shown string
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
	shown = lit
	c := f.Constraints
	switch {
	case len(c.Enum) > 0 && !slices.Contains(c.Enum, lit):
		return fmt.Sprintf("%s is not one of the enum values %s", shown, strings.Join(c.Enum, ", "))
	case len(scalar.Enum) > 0 && !slices.Contains(scalar.Enum, lit):
		return fmt.Sprintf("%s is not a value of %s (%s)", shown, scalar.GoType, strings.Join(scalar.Enum, ", "))
	}
	if problem := refuses(c, scalar, lit); problem != "" {
		return shown + " " + problem
	}
	return ""
}
