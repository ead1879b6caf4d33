package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/toolset"
)

// checkConfig finds, when the host is built, two mistakes in cfg that a run would otherwise meet late or
// crash on: an entry of Config.Toolsets or Config.Tools that is nil or a nil pointer (a run would dereference it in
// its generated code), and a tool name offered twice by the agent's uses, its own tools and the static sources of
// Config.Tools (see [toolset.Static]), which a run would refuse with a *toolset.ConflictError. Sources whose tools
// are known only in a run (filters, MCP servers) are checked by the run, as before.
func checkConfig(a Declarer, ag *Agent, cfg Config) error {
	if err := checkNilSources(cfg); err != nil {
		return err
	}
	return checkConflicts(a, ag, cfg)
}

// NilSourceError reports an entry of Config.Toolsets or Config.Tools that holds no toolset: nil, or a nil pointer
// such as (*Expenses)(nil).
type NilSourceError struct {
	// Field is "Toolsets" or "Tools".
	Field string
	// Index is the entry's index in that field.
	Index int
	// Type is the entry's type, such as "*expenses.Expenses", or "" for a nil interface.
	Type string
}

func (e *NilSourceError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("Config.%s[%d] is nil: remove the entry, or put an instance of the toolset there", e.Field, e.Index)
	}
	if !strings.HasPrefix(e.Type, "*") {
		return fmt.Sprintf("Config.%s[%d] is a nil %s: put a function there, or remove the entry", e.Field, e.Index, e.Type)
	}
	return fmt.Sprintf("Config.%s[%d] is a nil %s: put an instance there, such as &%s{...} or what its constructor returns; a run would call its methods on nil",
		e.Field, e.Index, e.Type, strings.TrimPrefix(e.Type, "*"))
}

// checkNilSources returns a *NilSourceError for the first nil entry of Config.Toolsets and Config.Tools.
func checkNilSources(cfg Config) error {
	for _, f := range []struct {
		name string
		srcs []toolset.Source
	}{{"Toolsets", cfg.Toolsets}, {"Tools", cfg.Tools}} {
		for i, s := range f.srcs {
			if s == nil {
				return &NilSourceError{Field: f.name, Index: i}
			}
			if isNilPointer(s) {
				return &NilSourceError{Field: f.name, Index: i, Type: fmt.Sprintf("%T", s)}
			}
		}
	}
	return nil
}

// isNilPointer reports whether s holds a nil pointer or a nil SourceFunc, without package reflect (D1): the %p
// verb prints a pointer's address, 0x0 for nil, and is formatted before any method of the value is called.
func isNilPointer(s toolset.Source) bool {
	if f, ok := s.(toolset.SourceFunc); ok {
		return f == nil
	}
	if !strings.HasPrefix(fmt.Sprintf("%T", s), "*") {
		return false
	}
	return fmt.Sprintf("%p", s) == "0x0"
}

// ConfigConflictError is a tool name conflict NewHost finds among the tools known before any run: the agent's
// uses, its own tools and the static sources of Config.Tools. It wraps the composition's *toolset.ConflictError,
// whose source paths count as a run's do: the uses in Declare's order, the agent's own tools, then Config.Tools.
type ConfigConflictError struct {
	// Agent is the agent's name.
	Agent string
	// Err is the composition's error.
	Err *toolset.ConflictError
}

func (e *ConfigConflictError) Error() string {
	return fmt.Sprintf("agent %s: %v\n"+
		"(tools[i] counts the agent's uses in Declare's order, then its own tools, then Config.Tools.) "+
		"Fix: offer one of each pair under another name: wrap the source of Config.Tools in toolset.Prefix(src, \"x\") "+
		"or toolset.Rename(src, map[string]string{\"old\": \"new\"}), leave the tool out of the use with "+
		"agent.Use[*T](a).Exclude((*T).Method), or drop the duplicate entry (a toolset listed in both Config.Toolsets "+
		"and Config.Tools is offered twice)", e.Agent, e.Err)
}

// Unwrap returns the *toolset.ConflictError.
func (e *ConfigConflictError) Unwrap() error { return e.Err }

// checkConflicts asks the sources whose tools are the same in every run for their tools, composed as a run
// composes them, and returns a *ConfigConflictError for a name offered twice. A source of Config.Tools that is not
// static stands in as an empty list, so that the paths of the others are those a run reports. It leaves every
// other mistake (an instance missing, a stale declaration) to NewHost.
func checkConflicts(a Declarer, ag *Agent, cfg Config) error {
	decl := Declaration{Name: "agent"}
	if d, ok := a.(Declared); ok {
		decl = d.TypeshiftDeclaration()
	} else {
		for _, u := range ag.uses {
			decl.Uses = append(decl.Uses, UseDeclaration{Index: u.index})
		}
	}
	if ag.name != "" {
		decl.Name = ag.name
	}
	if len(decl.Uses) != len(ag.uses) {
		return nil
	}
	srcs := make([]toolset.Source, 0, len(decl.Uses)+1+len(cfg.Tools))
	for _, d := range decl.Uses {
		if d.Index < 0 || d.Index >= len(ag.uses) {
			return nil
		}
		var found []toolset.Source
		for _, s := range cfg.Toolsets {
			if ag.uses[d.Index].match(s) {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			return nil
		}
		src := found[0]
		if len(d.Include)+len(d.Exclude) > 0 {
			include, exclude := d.Include, d.Exclude
			src = toolset.Filter(src, func(_ context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
				return (len(include) == 0 || slices.Contains(include, t.Name)) && !slices.Contains(exclude, t.Name), nil
			})
		}
		srcs = append(srcs, src)
	}
	if o, ok := a.(OwnTools); ok {
		srcs = append(srcs, &ownSource{name: decl.Name + " (own tools)", src: o})
	}
	for _, s := range cfg.Tools {
		if !toolset.Static(s) {
			s = toolset.List{}
		}
		srcs = append(srcs, s)
	}
	_, err := toolset.Combine(srcs...).Tools(context.Background(), &toolset.Run{Agent: decl.Name})
	var ce *toolset.ConflictError
	if errors.As(err, &ce) {
		return &ConfigConflictError{Agent: decl.Name, Err: ce}
	}
	return nil // any other error is the run's to report, with the source's name
}
