package parse

import (
	"fmt"
	"go/ast"
	"go/types"

	"github.com/typeshift-go/typeshift/internal/model"
)

// An agent's answer type is read by the rules of a tool's input struct: the same describer, the same tags, the
// same diagnostics at the fields. What is its own is where it is declared (agent.Returns in Declare, once) and
// what may be named there (a named struct type, by value).

// returnsFunc returns the identifier naming agent.Returns in a call's function, or nil.
func (p *parser) returnsFunc(call *ast.CallExpr) *ast.Ident {
	return p.agentFunc(call, "Returns")
}

// isReturns reports whether call calls agent.Returns.
func (p *parser) isReturns(call *ast.CallExpr) bool { return p.returnsFunc(call) != nil }

// agentFunc returns the identifier naming the generic function name of the agent package in a call's function,
// such as Use in agent.Use[*Tickets](a), or nil.
func (p *parser) agentFunc(call *ast.CallExpr, name string) *ast.Ident {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var id *ast.Ident
	switch x := fun.(type) {
	case *ast.SelectorExpr:
		id = x.Sel
	case *ast.Ident:
		id = x
	default:
		return nil
	}
	fn, ok := p.info.Uses[id].(*types.Func)
	if !ok || fn.Name() != name || fn.Pkg() == nil || fn.Pkg().Path() != AgentPath {
		return nil
	}
	return id
}

// typeArgExpr returns the type argument's syntax in a call such as agent.Returns[Verdict](a), or the call's
// function when the argument is inferred or not written.
func typeArgExpr(call *ast.CallExpr) ast.Expr {
	if ix, ok := ast.Unparen(call.Fun).(*ast.IndexExpr); ok {
		return ix.Index
	}
	return call.Fun
}

// readReturns reads an agent.Returns statement into a. first is the agent's earlier Returns statement, if any,
// and stmt the statement of this one, which a second Returns' fix deletes. It reports false when the agent
// cannot be generated, and true (leaving a.Answer nil) when the call does not type-check, which the compiler
// reports.
func (p *parser) readReturns(a *model.Agent, call *ast.CallExpr, stmt ast.Stmt, first *ast.CallExpr) bool {
	inst, ok := p.info.Instances[p.returnsFunc(call)]
	if !ok || inst.TypeArgs.Len() != 1 {
		return true
	}
	arg := inst.TypeArgs.At(0)
	at := typeArgExpr(call)
	name := p.typeName(arg)
	if first != nil {
		line := p.fset.Position(first.Pos()).Line
		p.report(call, "TSH027", Error, fmt.Sprintf(
			"%s already declares its answer type with agent.Returns on line %d: an agent has one answer type; remove one of the calls, or make one struct that holds both",
			a.TypeName, line),
			Fix{Message: "Remove this agent.Returns", Edits: []Edit{{Pos: stmt.Pos(), End: stmt.End(), NewText: ""}}})
		return false
	}
	if ptr, isPtr := types.Unalias(arg).(*types.Pointer); isPtr && isNamedStruct(ptr.Elem()) {
		elem := p.typeName(ptr.Elem())
		var fixes []Fix
		if star, isStar := ast.Unparen(at).(*ast.StarExpr); isStar {
			fixes = append(fixes, Fix{
				Message: "Return " + elem + " by value",
				Edits:   []Edit{{Pos: star.Pos(), End: star.X.Pos(), NewText: ""}},
			})
		}
		p.report(at, "TSH026", Error, fmt.Sprintf(
			"agent.Returns takes the answer struct by value, as a tool takes its input: use %s, not %s", elem, name), fixes...)
		return false
	}
	if !isNamedStruct(arg) {
		p.report(at, "TSH026", Error, fmt.Sprintf(
			"agent.Returns takes a named struct type, and %s is not one: declare a struct type for the answer, such as type Answer struct{ Value %s `json:\"value\"` }",
			name, name))
		return false
	}
	prev := p.site
	p.site = at
	defer func() { p.site = prev }()
	what := "the answer of " + a.TypeName
	d := &describer{p: p, root: what}
	mt := d.describe(arg, "")
	if d.fail(at) {
		return false
	}
	if m := p.findMarshaler(mt, map[string]bool{}); m != "" {
		p.report(at, "TSH020", Error, fmt.Sprintf(
			"%s cannot be an answer type: %s in it has its own JSON methods, so the generator cannot describe its schema; use a plain type",
			name, m))
		return false
	}
	a.Answer = mt
	return true
}
