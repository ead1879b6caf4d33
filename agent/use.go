package agent

import (
	"fmt"

	"github.com/typeshift-go/typeshift/toolset"
)

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
