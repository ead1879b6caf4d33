package agent

import (
	"fmt"

	"github.com/typeshift-go/typeshift/toolset"
)

// A ToolsetUse records that an agent offers the tools of a toolset type. Its picks narrow what is offered.
type ToolsetUse struct {
	index    int
	typeName string
	match    func(toolset.Source) bool
	includes int
	excludes int
}

// Use declares that the agent offers the tools of the toolset type T, such as *Tickets. The host finds the
// instance among [Config.Toolsets] by type. Call it in Declare:
//
//	agent.Use[*Tickets](a).Exclude((*Tickets).CloseTicket)
func Use[T toolset.Source](a Declarer) *ToolsetUse {
	ag := a.base()
	var zero T
	u := &ToolsetUse{
		index:    len(ag.uses),
		typeName: fmt.Sprintf("%T", zero),
		match:    func(s toolset.Source) bool { _, ok := s.(T); return ok },
	}
	ag.uses = append(ag.uses, u)
	return u
}

// Include offers only the tools of these methods, given as method expressions such as (*Tickets).GetTicket, so
// that the compiler checks them. Which tool names they mean is written by the generator into the agent's
// [Declaration]; at run time the values themselves are not read.
func (u *ToolsetUse) Include(methods ...any) *ToolsetUse {
	u.includes += len(methods)
	return u
}

// Exclude offers every tool of the toolset except those of these methods. See [ToolsetUse.Include].
func (u *ToolsetUse) Exclude(methods ...any) *ToolsetUse {
	u.excludes += len(methods)
	return u
}
