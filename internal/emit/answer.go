package emit

import (
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/internal/schema"
)

// answers writes, for each agent that declares an answer type with agent.Returns, its TypeshiftAnswerType method
// (agent.Answered), and for each answer type, once, its schema constant and its decode function. The schema is
// a tool input's (schema.Input) and the decode function calls the type's struct decoder, the one tool inputs use.
func (g *gen) answers(agents []*model.Agent) error {
	written := map[string]bool{}
	for _, a := range agents {
		if a.Answer == nil {
			continue
		}
		rt, err := g.resolve(a.Answer)
		if err != nil {
			return fmt.Errorf("emit: the answer of %s: %w", a.TypeName, err)
		}
		base := g.answerBase(a.Answer)
		g.answerMethod(a, rt, base)
		if written[a.Answer.Key] {
			continue
		}
		written[a.Answer.Key] = true
		if err := g.answerType(a.Answer, rt, base); err != nil {
			return fmt.Errorf("emit: the answer of %s: %w", a.TypeName, err)
		}
	}
	return nil
}

// answerBase is the stem of the names the file declares for an answer type: typeshiftAnswerVerdict.
func (g *gen) answerBase(t *model.Type) string {
	return "typeshiftAnswer" + g.typeIdent(t.Key, t.GoType)
}

// answerName is the answer's name for providers: the Go type's name without its package, letters and digits.
func answerName(goType string) string {
	name := goType
	if i := strings.IndexByte(name, '['); i >= 0 {
		if j := strings.LastIndexByte(name[:i], '.'); j >= 0 {
			name = name[j+1:]
		}
	} else if j := strings.LastIndexByte(name, '.'); j >= 0 {
		name = name[j+1:]
	}
	return ident(name)
}

// answerMethod writes an agent's TypeshiftAnswerType method.
func (g *gen) answerMethod(a *model.Agent, rt *model.Type, base string) {
	t := a.TypeName
	g.p("")
	g.p("var _ agent.Answered = (*%s)(nil)", t)
	g.p("")
	g.p("// TypeshiftAnswerType describes %s, the answer type %s's Declare names with agent.Returns: its schema and", a.Answer.GoType, t)
	g.p("// its decoder, for the run.")
	g.p("func (a *%s) TypeshiftAnswerType() agent.AnswerType {", t)
	g.p("return agent.AnswerType{")
	g.p("Name: %q,", answerName(a.Answer.GoType))
	if rt.Doc != "" {
		g.p("Description: %s,", goString(rt.Doc))
	}
	g.p("Schema: json.RawMessage(%sSchema),", base)
	g.p("Decode: func(data []byte) (any, error) {")
	g.p("v, err := %sDecode(data)", base)
	g.p("if err != nil {")
	g.p("return nil, err")
	g.p("}")
	g.p("return v, nil")
	g.p("},")
	g.p("}")
	g.p("}")
}

// answerType writes an answer type's schema constant and decode function.
func (g *gen) answerType(t, rt *model.Type, base string) error {
	s, err := schema.Input(g.pkg, t)
	if err != nil {
		return err
	}
	g.p("")
	g.p("// %sSchema is the JSON Schema of the answer type %s.", base, t.GoType)
	g.p("const %sSchema = %s", base, schemaLiteral(s))
	g.p("")
	g.p("// %sDecode reads an answer of type %s: one JSON value, checked against its schema. A", base, t.GoType)
	g.p("// failure is a *tooljson.Error whose message says what to fix.")
	g.p("func %sDecode(data []byte) (%s, error) {", base, t.GoType)
	g.p("var v %s", t.GoType)
	g.p("d := tooljson.NewDecoder(data)")
	g.p("%s(&d, &v)", g.decoder(t.Key, rt))
	g.p("d.End()")
	g.p("if err := d.Err(); err != nil {")
	g.p("return %s{}, err", t.GoType)
	g.p("}")
	g.p("return v, nil")
	g.p("}")
	return nil
}
