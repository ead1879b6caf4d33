package analysis

import (
	"fmt"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// checkFieldDocs reports (TSH022, information) each input property the model has only a name to go by for: no
// description from a doc comment or a jsonschema tag. Booleans are exempt (the name says it all), so are
// enumerated values (the schema lists them) and fields of a documented named struct type (the schema carries
// the type's doc). The properties of nested structs are checked too, once per field, for the tools of toolsets and
// an agent's own tools alike.
func checkFieldDocs(r *reporter, loc *locator, pkg *model.Package) {
	for _, ts := range pkg.Toolsets {
		for _, t := range ts.Tools {
			if t.Input == nil {
				continue
			}
			c := fieldDocCheck{r: r, loc: loc, pkg: pkg, toolset: ts.TypeName, tool: t, seen: map[string]bool{}}
			c.walk(t.Input, "", "")
		}
	}
	// An agent's own tools reach the model the same way.
	for _, a := range pkg.Agents {
		for _, t := range a.Tools {
			if t.Input == nil {
				continue
			}
			c := fieldDocCheck{r: r, loc: loc, pkg: pkg, toolset: a.TypeName, tool: t, seen: map[string]bool{}}
			c.walk(t.Input, "", "")
		}
	}
}

type fieldDocCheck struct {
	r       *reporter
	loc     *locator
	pkg     *model.Package
	toolset string
	tool    *model.Tool
	// seen holds the named types already walked for this tool, which ends recursion in recursive types.
	seen map[string]bool
}

// walk checks the fields of the struct t denotes. key names the named struct type that holds them (so a field can
// be found in the source) and prefix is the JSON path to them, for the message.
func (c *fieldDocCheck) walk(t *model.Type, key, prefix string) {
	for t != nil {
		switch t.Kind {
		case model.Named:
			if c.seen[t.Key] {
				return
			}
			c.seen[t.Key] = true
			key = t.Key
			t = c.pkg.Types[t.Key]
			continue
		case model.Pointer, model.Slice, model.Array, model.Map:
			t = t.Elem
			continue
		case model.Struct:
			if t.Key != "" {
				key = t.Key
			}
			for _, f := range t.Fields {
				c.field(f, key, prefix)
			}
		}
		return
	}
}

func (c *fieldDocCheck) field(f *model.Field, key, prefix string) {
	path := prefix + f.JSONName
	if f.Description == "" && !selfDescribing(c.pkg, f) {
		selector := f.GoName
		if f.Path != "" {
			selector = f.Path // the full path through embedded structs
		}
		pos, end, ok := c.loc.field(key, selector)
		where := ""
		if !ok {
			pos, end = c.loc.tool(c.toolset, c.tool.Method)
			where = fmt.Sprintf(" (field %s)", f.GoName)
		}
		c.r.report(parse.Diagnostic{
			Pos: pos, End: end, Code: codeFieldDoc, Severity: parse.Info,
			Message: fmt.Sprintf("input property %q of tool %q has no description%s: "+
				"add a doc comment or a jsonschema description saying what the model should put in it",
				path, c.tool.Name, where),
		})
	}
	c.walk(f.Type, "", path+".")
}

// selfDescribing reports a field whose schema tells the model enough without a description of its own: a
// boolean, enumerated values, or a named type with a doc comment, which the schema carries as the description.
func selfDescribing(pkg *model.Package, f *model.Field) bool {
	if len(f.Constraints.Enum) > 0 {
		return true
	}
	t := f.Type
	for t != nil && t.Kind == model.Pointer {
		t = t.Elem
	}
	if t != nil && t.Kind == model.Named && pkg.Types[t.Key] != nil {
		t = pkg.Types[t.Key]
	}
	return t != nil && (t.Kind == model.Bool || len(t.Enum) > 0 || t.Doc != "")
}
