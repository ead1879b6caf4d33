package toolset

// generated is what a generated toolset has of the Toolset it embeds: its Tools method calls Declared, so its tools
// are made once from its Declare method and are the same in every run.
type generated interface {
	Declared(name string, declare func(), n int, build func([]*ToolBuilder) ([]*Tool, error)) ([]*Tool, error)
}

// Static reports whether src offers the same tools in every run, so that a host may list them, and find their
// name conflicts, before any run: a [*Tool], a [List], a generated toolset, and a [Combine], [Prefix] or [Rename] of
// static sources. A [Filter] or [Wrap] (whose functions see the run), a [SourceFunc], an MCP server and any other
// source are not: what they offer is known only in a run. A nil source is not static either.
func Static(src Source) bool {
	switch s := src.(type) {
	case nil:
		return false
	case *Tool:
		return s != nil
	case List:
		return true
	case *Combined:
		if s == nil {
			return false
		}
		for _, in := range s.srcs {
			if !Static(in) {
				return false
			}
		}
		return true
	case *Prefixed:
		return s != nil && Static(s.src)
	case *Renamed:
		return s != nil && Static(s.src)
	case generated:
		return true
	}
	return false
}
