package parse

import (
	"fmt"
	"strings"

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

// suggestName turns any name into lower_snake_case, for TSH008's fix.
func suggestName(name string) string {
	s := toolset.SnakeCase(name)
	var b strings.Builder
	under := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9' && b.Len() > 0:
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
		default:
			under = true
		}
	}
	out := b.String()
	if out == "" {
		return "tool"
	}
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "_")
	}
	return out
}
