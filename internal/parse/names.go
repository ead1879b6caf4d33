package parse

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/typeshift-go/typeshift/toolset"
)

// reserved names belong to the runtime: exit_plan_mode ends plan mode, handoff_to_* hand a conversation over.
func reserved(name string) bool {
	return name == "exit_plan_mode" || strings.HasPrefix(name, "handoff_to_")
}

// checkNames reports tool names that are reserved or declared twice in the package (TSH007) and drops those
// tools, so the generated code never offers two tools of one name.
func (p *parser) checkNames() {
	first := map[string]string{}
	for _, set := range p.out.Toolsets {
		kept := set.Tools[:0]
		for _, t := range set.Tools {
			pos := p.toolPos[t]
			node := pos.addTool
			if pos.nameArg != nil {
				node = nil
			}
			switch {
			case reserved(t.Name):
				if node != nil {
					p.report(node, "TSH007", Error, fmt.Sprintf("the tool name %q is reserved for the runtime: name the tool with WithName", t.Name))
				} else {
					p.report(pos.nameArg, "TSH007", Error, fmt.Sprintf("the tool name %q is reserved for the runtime: choose another", t.Name))
				}
				continue
			case p.repeatsMethod(set.TypeName, kept, t):
				continue
			case first[t.Name] != "":
				msg := fmt.Sprintf("the tool name %q is already used by %s: tool names must be unique; name one with WithName", t.Name, first[t.Name])
				if node != nil {
					p.report(node, "TSH007", Error, msg)
				} else {
					p.report(pos.nameArg, "TSH007", Error, msg)
				}
				continue
			}
			first[t.Name] = set.TypeName + "." + t.Method
			kept = append(kept, t)
		}
		set.Tools = kept
	}
}

// suggestName turns any name into lower_snake_case, for TSH008's fix. Latin letters with marks become their
// ASCII spelling (Übersicht becomes uebersicht) rather than being dropped, and a name longer than 64 bytes is
// cut after its last whole word that fits.
func suggestName(name string) string {
	s := toolset.SnakeCase(name)
	var b strings.Builder
	under := false
	for _, r := range s {
		ascii := string(r)
		if t, ok := latin[r]; ok {
			ascii = t
		}
		for _, c := range []byte(ascii) {
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9' && b.Len() > 0:
				if under && b.Len() > 0 {
					b.WriteByte('_')
				}
				under = false
				b.WriteByte(c)
			case c >= 'A' && c <= 'Z':
				if under && b.Len() > 0 {
					b.WriteByte('_')
				}
				under = false
				b.WriteByte(c + 'a' - 'A')
			default:
				under = true
			}
		}
	}
	out := b.String()
	if out == "" {
		return "tool"
	}
	if len(out) > maxNameLen {
		cut := strings.LastIndexByte(out[:maxNameLen+1], '_')
		if cut <= 0 {
			cut = maxNameLen // one word longer than the limit
		}
		out = out[:cut]
	}
	return out
}

// maxNameLen is the longest tool name, in bytes, that toolset.ValidName accepts.
const maxNameLen = 64

// latin spells the Latin letters with marks, and a few ligatures, in ASCII, as German and the Nordic languages
// write them without their marks.
var latin = map[rune]string{
	'ä': "ae", 'ö': "oe", 'ü': "ue", 'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "oe", 'å': "aa", 'þ': "th", 'ð': "d",
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ā': "a", 'ą': "a", 'ç': "c", 'ć': "c", 'č': "c", 'ď': "d",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ę': "e", 'ě': "e", 'ì': "i", 'í': "i", 'î': "i",
	'ï': "i", 'ł': "l", 'ñ': "n", 'ń': "n", 'ň': "n", 'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ő': "o",
	'ř': "r", 'ś': "s", 'š': "s", 'ť': "t", 'ù': "u", 'ú': "u", 'û': "u", 'ů': "u", 'ű': "u", 'ý': "y",
	'ÿ': "y", 'ź': "z", 'ż': "z", 'ž': "z",
}

// nameProblem says what is wrong with a tool name that toolset.ValidName refuses.
func nameProblem(name string) string {
	if len(name) > maxNameLen {
		return fmt.Sprintf("is %d bytes long, more than the %d that model providers accept", len(name), maxNameLen)
	}
	return "is not lower_snake_case"
}

// modelDescription turns a doc comment into the description a model reads. Go doc comments begin with the
// name they document ("SearchTickets searches the tickets"), which means nothing to the model, so a leading
// name is dropped and the next word capitalised: "Searches the tickets".
func modelDescription(name, doc string) string {
	rest, ok := strings.CutPrefix(doc, name+" ")
	if !ok || rest == "" {
		return doc
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}

// fieldDescription turns a field's comment into the description of its property, as modelDescription does for
// a tool: the Go field name that starts it is dropped, and with it a plain "is" or "are" that follows, so
// "ID is the note's number" becomes "The note's number" and "Query holds the words" becomes "Holds the words".
func fieldDescription(name, doc string) string {
	rest, ok := strings.CutPrefix(doc, name+" ")
	if !ok || rest == "" {
		return doc
	}
	for _, verb := range []string{"is ", "are "} {
		if r, ok := strings.CutPrefix(rest, verb); ok && r != "" {
			rest = r
			break
		}
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}
