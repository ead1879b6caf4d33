package emit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/typeshift-go/typeshift/internal/model"
)

// gen holds the state of writing one file.
type gen struct {
	pkg  *model.Package
	body bytes.Buffer

	// names maps a type key to the identifier part used in function names, and taken holds those in use.
	names map[string]string
	taken map[string]bool
	// decoders and encoders map type keys to the functions written or queued for them; the queues hold the
	// keys still to write.
	decoders, encoders map[string]string
	decQueue, encQueue []string
	// patterns maps a regular expression to its package-level variable, in order.
	patterns     map[string]string
	patternOrder []string
	// n numbers the local variables of the function being written.
	n int
	// needs records the helper functions the file uses.
	needs map[string]bool
}

func newGen(pkg *model.Package) *gen {
	return &gen{
		pkg:      pkg,
		names:    map[string]string{},
		taken:    map[string]bool{},
		decoders: map[string]string{},
		encoders: map[string]string{},
		patterns: map[string]string{},
		needs:    map[string]bool{},
	}
}

// p writes one line of code; go/format indents it later.
func (g *gen) p(format string, args ...any) {
	fmt.Fprintf(&g.body, format, args...)
	g.body.WriteByte('\n')
}

// local returns a fresh local variable name with the given stem.
func (g *gen) local(stem string) string {
	g.n++
	return fmt.Sprintf("%s%d", stem, g.n)
}

// typeIdent returns an identifier part for a named type, unique in the file: "SearchInput", "OtherFilter".
func (g *gen) typeIdent(key, goType string) string {
	if id, ok := g.names[key]; ok {
		return id
	}
	id := ident(goType)
	base := id
	for i := 2; g.taken[id]; i++ {
		id = fmt.Sprintf("%s%d", base, i)
	}
	g.names[key], g.taken[id] = id, true
	return id
}

// ident turns a Go type spelling or a tool name into an exported-style identifier part.
func ident(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if upper {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
			continue
		}
		upper = true
	}
	return b.String()
}

// resolve follows a Named reference to its struct type.
func (g *gen) resolve(t *model.Type) (*model.Type, error) {
	if t.Kind != model.Named {
		return t, nil
	}
	rt, ok := g.pkg.Types[t.Key]
	if !ok {
		return nil, fmt.Errorf("emit: type %s (%s) is missing from the package's types", t.GoType, t.Key)
	}
	return rt, nil
}

// goString quotes s as a Go string literal, raw when that reads better.
func goString(s string) string {
	if s != "" && !strings.ContainsAny(s, "`\r") && strings.ContainsAny(s, "\"\\") && isPrintable(s) {
		return "`" + s + "`"
	}
	return fmt.Sprintf("%q", s)
}

// isPrintable reports whether s has no control characters other than newlines and tabs.
func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == unicode.ReplacementChar {
			return false
		}
	}
	return true
}

// addr returns the address of an addressable expression: &x.F, or p for *p.
func addr(expr string) string {
	if strings.HasPrefix(expr, "*") {
		return expr[1:]
	}
	return "&" + expr
}

// operand makes an expression safe to select from or index: *p becomes (*p).
func operand(expr string) string {
	if strings.HasPrefix(expr, "*") {
		return "(" + expr + ")"
	}
	return expr
}
