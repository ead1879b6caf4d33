package gen

import "github.com/typeshift-go/typeshift/toolset"

// Greeter greets.
type Greeter struct{ toolset.Toolset }

func (g *Greeter) Declare() { g.AddTool(g.Hello) }

// Hello says hello.
func (g *Greeter) Hello() string { return "hello" }
