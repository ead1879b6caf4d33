package toolset

import (
	"fmt"
	"sync"
)

// Toolset is embedded in a struct to make it a toolset. The struct's Declare method registers its tools with
// [Toolset.AddTool] chains, one statement per tool, directly in Declare: the generator reads those chains from
// the source, so they must be plain enough to read.
//
// At run time the chains only record values that generated code reads back, such as a tool's default settings.
// Which tools exist is decided by the generated code. A Toolset must not be copied after first use.
type Toolset struct {
	displayName string
	chains      []*ToolBuilder

	once  sync.Once
	tools []*Tool
	err   error
}

// WithDisplayName names the toolset for people, for example in a tool picker.
func (t *Toolset) WithDisplayName(name string) { t.displayName = name }

// DisplayName returns the name given by WithDisplayName, or "".
func (t *Toolset) DisplayName() string { return t.displayName }

// AddTool registers a tool. fn is a method value of the toolset, such as t.SearchTickets, or a package-level
// function. The returned builder describes the tool further; chain its calls in the same statement.
func (t *Toolset) AddTool(fn any) *ToolBuilder {
	b := &ToolBuilder{fn: fn}
	t.chains = append(t.chains, b)
	return b
}

// Declared runs declare once, checks that it registered as many tools as the generated code knows (n), and
// builds the tools once with build. Later calls return the same tools. It is for generated code (see the package
// doc).
func (t *Toolset) Declared(name string, declare func(), n int, build func([]*ToolBuilder) ([]*Tool, error)) ([]*Tool, error) {
	t.once.Do(func() {
		t.chains = t.chains[:0]
		declare()
		if len(t.chains) == 0 && n > 0 {
			// Chains recorded on a copy of the toolset never reach it: the usual cause is a value receiver.
			t.err = fmt.Errorf("toolset %s declares no tools but its generated code knows %d: give Declare a pointer receiver, func (x *%s) Declare(), or run typeshift generate if Declare lost its tools: %w",
				name, n, name, ErrStale)
			return
		}
		if len(t.chains) != n {
			t.err = fmt.Errorf("toolset %s declares %d tools but its generated code knows %d: %w", name, len(t.chains), n, ErrStale)
			return
		}
		t.tools, t.err = build(t.chains)
	})
	if t.err != nil {
		return nil, t.err
	}
	return append([]*Tool(nil), t.tools...), nil
}
