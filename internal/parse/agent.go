package parse

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// AgentPath is the import path of the runtime package whose Agent an agent embeds.
const AgentPath = "github.com/typeshift-go/typeshift/agent"

// The settings names of the chat options, in the order the generated code lists them.
var chatOptions = []string{"provider", "model", "temperature", "top_p", "max_tokens", "seed", "stop"}

// optionOf maps the Agent methods that set a chat option to the option's settings name.
var optionOf = map[string]string{
	"WithModel":       "model",
	"WithTemperature": "temperature",
	"WithTopP":        "top_p",
	"WithMaxTokens":   "max_tokens",
	"WithSeed":        "seed",
	"WithStop":        "stop",
}

// readAgents finds every named struct type that embeds agent.Agent directly and reads its Declare method. Calls
// of agent.Use and of the Agent's chains anywhere else in the package are reported (TSH014). It runs after
// readToolsets, so that uses of the package's own toolsets resolve against their models.
func (p *parser) readAgents() {
	declares := map[*ast.FuncDecl]bool{}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				if fd := p.readAgentType(s.(*ast.TypeSpec)); fd != nil {
					declares[fd] = true
				}
			}
		}
	}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || declares[fd] || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if p.isUse(call) {
					p.report(call, "TSH014", Error,
						"agent.Use must be called directly in the agent's Declare method, not in "+fd.Name.Name+": the generator reads only Declare")
				}
				if p.isAgentAddTool(call) {
					p.report(call, "TSH014", Error,
						"AddTool must be called directly in the agent's Declare method, not in "+fd.Name.Name+": the generator reads only Declare")
				}
				if p.isReturns(call) {
					p.report(call, "TSH014", Error,
						"agent.Returns must be called directly in the agent's Declare method, not in "+fd.Name.Name+": the generator reads only Declare")
				}
				return true
			})
		}
	}
}

// readAgentType reads one type declaration if it is an agent and returns its Declare method's syntax.
func (p *parser) readAgentType(ts *ast.TypeSpec) *ast.FuncDecl {
	obj, ok := p.info.Defs[ts.Name].(*types.TypeName)
	if !ok {
		return nil
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	field := ""
	for i := range st.NumFields() {
		if f := st.Field(i); f.Embedded() && isNamed(f.Type(), AgentPath, "Agent") {
			field = f.Name()
		}
	}
	if field == "" {
		return nil
	}
	fd, bad := p.declareMethod(named)
	if bad != nil {
		return bad
	}
	if fd == nil {
		// agent.NewHost refuses it with a message of its own; nothing to generate.
		return nil
	}
	a := &model.Agent{TypeName: obj.Name(), Doc: docText(p.typeSyntax[obj].doc), Name: obj.Name()}
	if field != "Agent" {
		a.Field = field // embedded through an alias
	}
	if p.readAgentDeclare(a, named, fd) {
		p.out.Agents = append(p.out.Agents, a)
	}
	return fd
}

// agentLink is one call of an agent's chain, outermost last.
type agentLink struct {
	call   *ast.CallExpr
	method string
}

// readAgentDeclare reads the statements of an agent's Declare method into a. It reports false when the agent
// cannot be generated.
func (p *parser) readAgentDeclare(a *model.Agent, named *types.Named, fd *ast.FuncDecl) bool {
	ok := true
	// offered maps the names of the tools the uses offer to the toolset offering them, for TSH007.
	offered := map[string]string{}
	handled := map[*ast.CallExpr]bool{}
	configurable := map[string]bool{}
	var returns *ast.CallExpr // the first agent.Returns
	for _, stmt := range fd.Body.List {
		es, isExpr := stmt.(*ast.ExprStmt)
		if !isExpr {
			continue
		}
		root, links := p.unwindAgentChain(es.X)
		if root == nil {
			continue
		}
		handled[root] = true
		for _, l := range links {
			handled[l.call] = true
		}
		switch {
		case p.isReturns(root) && len(links) == 0:
			ok = p.readReturns(a, root, stmt, returns) && ok
			if returns == nil {
				returns = root
			}
		case p.isUse(root):
			u, good := p.readUse(root, links)
			ok = ok && good
			if u != nil {
				a.Uses = append(a.Uses, u)
				p.offeredBy(root, u, offered)
			}
		default:
			m := p.agentMethod(root)
			switch m {
			case "WithName":
				if len(root.Args) != 1 {
					return false // does not compile
				}
				s, isConst := p.stringConst(root.Args[0])
				if !isConst {
					p.report(root.Args[0], "TSH008", Error, "WithName takes a string constant, so the generator can read the agent's name")
					ok = false
					continue
				}
				a.Name = s
			}
			if opt, isOpt := optionOf[m]; isOpt {
				for _, l := range links {
					if l.method == "Configurable" {
						configurable[opt] = true
						if opt == "model" {
							configurable["provider"] = true
						}
					}
				}
			}
		}
	}
	a.Tools = p.ownTools(named, fd, offered)
	// An own tool the generator could not read would leave the generated code knowing fewer tools than Declare
	// adds: refuse the agent instead of writing code that fails as stale.
	adds := 0
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if call, isCall := n.(*ast.CallExpr); isCall && p.isAgentAddTool(call) {
			adds++
		}
		return true
	})
	ok = ok && adds == len(a.Tools)
	for _, o := range chatOptions {
		if configurable[o] {
			a.Configurable = append(a.Configurable, o)
		}
	}
	// Uses that are not a chain statement of their own cannot be read.
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, isCall := n.(*ast.CallExpr)
		if !isCall || handled[call] {
			return true
		}
		switch {
		case p.isUse(call):
			p.report(call, "TSH014", Error,
				"call agent.Use directly in Declare, one statement per use, not in a loop, condition, variable or function literal: the generator reads the chains without running them")
			ok = false
		case p.isReturns(call):
			p.report(call, "TSH014", Error,
				"call agent.Returns directly in Declare, as a statement of its own, not in a loop, condition, variable or function literal: the generator reads Declare without running it")
			ok = false
		case p.isLink(call, "OptionBuilder", "Configurable"), p.isLink(call, "ToolsetUse", "Include"), p.isLink(call, "ToolsetUse", "Exclude"):
			p.report(call, "TSH014", Error,
				"write each option and each use as one statement in Declare, the call followed by its Configurable, Include or Exclude, not in a loop, condition, variable or function literal: the generator reads the chains without running them")
			ok = false
		}
		return true
	})
	return ok
}

// ownTools reads the agent's own AddTool chains and drops, reporting them (TSH007), tools whose names are reserved,
// repeated or offered by one of the agent's uses.
func (p *parser) ownTools(named *types.Named, fd *ast.FuncDecl, offered map[string]string) []*model.Tool {
	tools := p.readDeclare(named, fd, p.isAgentAddTool)
	seen := map[string]string{}
	kept := tools[:0]
	for _, t := range tools {
		pos := p.toolPos[t]
		var node ast.Node = pos.addTool
		hint := "name the tool with WithName"
		if pos.nameArg != nil {
			node, hint = pos.nameArg, "choose another"
		}
		switch {
		case reserved(t.Name):
			p.report(node, "TSH007", Error, fmt.Sprintf("the tool name %q is reserved for the runtime: %s", t.Name, hint))
			continue
		case p.repeatsMethod(named.Obj().Name(), kept, t):
			continue
		case seen[t.Name] != "":
			p.report(node, "TSH007", Error, fmt.Sprintf(
				"the tool name %q is already used by %s: an agent's tool names must be unique; %s", t.Name, seen[t.Name], hint))
			continue
		case offered[t.Name] != "":
			p.report(node, "TSH007", Error, fmt.Sprintf(
				"the tool name %q is already offered by the agent's use of %s: an agent's tool names must be unique; %s, or exclude the toolset's tool",
				t.Name, offered[t.Name], hint))
			continue
		}
		seen[t.Name] = named.Obj().Name() + "." + t.Method
		kept = append(kept, t)
	}
	return kept
}

// offeredBy records the names of the tools a use offers, when they are known.
func (p *parser) offeredBy(call *ast.CallExpr, u *model.ToolsetUse, offered map[string]string) {
	inst, ok := p.info.Instances[p.useFunc(call)]
	if !ok || inst.TypeArgs.Len() != 1 {
		return
	}
	t := inst.TypeArgs.At(0)
	if ptr, isPtr := t.(*types.Pointer); isPtr {
		t = ptr.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return
	}
	tools, _ := p.toolsOf(named)
	for _, name := range tools {
		if len(u.IncludeNames) > 0 && !slices.Contains(u.IncludeNames, name) || slices.Contains(u.ExcludeNames, name) {
			continue
		}
		label := types.TypeString(named, func(other *types.Package) string {
			if other == p.pkg {
				return ""
			}
			return other.Name()
		})
		if other, taken := offered[name]; taken {
			if other != label && !p.importClash[name] {
				p.report(call, "TSH007", Error, fmt.Sprintf(
					"the tool name %q is offered by both %s and %s: an agent's tool names must be unique; exclude the tool from one of the uses, or rename it with WithName",
					name, other, label))
			}
			continue
		}
		offered[name] = label
	}
}

// isAgentAddTool reports whether call calls agent.Agent's AddTool method.
func (p *parser) isAgentAddTool(call *ast.CallExpr) bool { return p.agentMethod(call) == "AddTool" }

// unwindAgentChain returns the innermost call of a chain such as agent.Use[T](a).Exclude(...) or
// a.WithModel(...).Configurable(), and the calls on it, innermost first. It returns nil for other expressions.
func (p *parser) unwindAgentChain(e ast.Expr) (*ast.CallExpr, []agentLink) {
	var links []agentLink
	e = ast.Unparen(e)
	for {
		call, isCall := e.(*ast.CallExpr)
		if !isCall {
			return nil, nil
		}
		if p.isUse(call) || p.isReturns(call) || p.agentMethod(call) != "" {
			slices.Reverse(links)
			return call, links
		}
		sel, isSel := call.Fun.(*ast.SelectorExpr)
		if !isSel || !p.isMethodOf(sel, "ToolsetUse", "OptionBuilder") {
			return nil, nil
		}
		links = append(links, agentLink{call: call, method: sel.Sel.Name})
		e = ast.Unparen(sel.X)
	}
}

// isMethodOf reports whether sel names a method of one of the agent package's types.
func (p *parser) isMethodOf(sel *ast.SelectorExpr, typeNames ...string) bool {
	fn, ok := p.info.Uses[sel.Sel].(*types.Func)
	if !ok {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if ptr, isPtr := t.(*types.Pointer); isPtr {
		t = ptr.Elem()
	}
	for _, n := range typeNames {
		if isNamed(t, AgentPath, n) {
			return true
		}
	}
	return false
}

// agentMethod returns the name of the agent.Agent method call calls, or "".
func (p *parser) agentMethod(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !p.isMethodOf(sel, "Agent") {
		return ""
	}
	return sel.Sel.Name
}

// useFunc returns the identifier naming agent.Use in a call's function, or nil.
func (p *parser) useFunc(call *ast.CallExpr) *ast.Ident { return p.agentFunc(call, "Use") }

// isUse reports whether call calls agent.Use.
func (p *parser) isUse(call *ast.CallExpr) bool { return p.useFunc(call) != nil }

// readUse reads an agent.Use chain. It returns nil and false when the use cannot be generated (reported), and
// nil and true when the chain does not type-check (the compiler reports it).
func (p *parser) readUse(call *ast.CallExpr, links []agentLink) (*model.ToolsetUse, bool) {
	inst, ok := p.info.Instances[p.useFunc(call)]
	if !ok || inst.TypeArgs.Len() != 1 {
		return nil, true
	}
	arg := inst.TypeArgs.At(0)
	base := arg
	if ptr, isPtr := base.(*types.Pointer); isPtr {
		base = ptr.Elem()
	}
	named, isNamedType := types.Unalias(base).(*types.Named)
	at := ast.Node(call.Fun)
	if ix, isIndex := ast.Unparen(call.Fun).(*ast.IndexExpr); isIndex {
		at = ix.Index
	}
	typeName := types.TypeString(arg, func(other *types.Package) string {
		if other == p.pkg {
			return ""
		}
		return other.Name()
	})
	if !isNamedType || !embedsToolsetDirectly(named) || named.Obj().Pkg() == nil {
		p.report(at, "TSH023", Error, fmt.Sprintf(
			"agent.Use takes a toolset type, and %s is not one: a toolset embeds toolset.Toolset and declares tools in Declare", typeName))
		return nil, false
	}
	u := &model.ToolsetUse{Toolset: named.Obj().Pkg().Path() + "." + named.Obj().Name()}
	tools, known := p.toolsOf(named)
	ok = true
	for _, l := range links {
		if l.method != "Include" && l.method != "Exclude" {
			continue
		}
		for _, a := range l.call.Args {
			method := p.pickedMethod(a, named)
			if method == "" && p.missingMethod(a, named) != "" {
				p.report(a, "TSH024", Error, fmt.Sprintf(
					"%s has no method %s: pick a method that its Declare adds with AddTool", typeName, p.missingMethod(a, named)))
				ok = false
				continue
			}
			if method == "" {
				p.report(a, "TSH024", Error, fmt.Sprintf(
					"%s takes method expressions of %s, such as (%s).Method, so that the compiler checks them", l.method, typeName, typeName))
				ok = false
				continue
			}
			name, isTool := tools[method]
			if !isTool && p.failedTool(named, method) {
				// The tool's own package reports why it is not a tool; the agent waits for that fix.
				p.deferred = append(p.deferred, typeName+"."+method)
				ok = false
				continue
			}
			if !isTool {
				msg := fmt.Sprintf("%s is not a tool of %s: pick a method that its Declare adds with AddTool", method, typeName)
				if !known {
					msg += fmt.Sprintf(" (the generated code of %s declares no %s; if the tool is new, generate that package first)",
						named.Obj().Pkg().Path(), model.IDConst(named.Obj().Name(), method))
				}
				p.report(a, "TSH024", Error, msg)
				ok = false
				continue
			}
			if l.method == "Include" {
				u.Include, u.IncludeNames = append(u.Include, method), append(u.IncludeNames, name)
			} else {
				u.Exclude, u.ExcludeNames = append(u.Exclude, method), append(u.ExcludeNames, name)
			}
		}
	}
	if !ok {
		return nil, false
	}
	if named.Obj().Pkg() == p.pkg {
		u.Configurable = p.configurableTools(named.Obj().Name(), u)
	}
	return u, true
}

// failedTool reports whether a toolset's Declare adds method with AddTool but the tool has an error of its own.
func (p *parser) failedTool(named *types.Named, method string) bool {
	obj := named.Obj()
	if ts, ok := p.imported[obj.Pkg().Path()+"."+obj.Name()]; ok {
		return slices.Contains(ts.Failed, method)
	}
	if obj.Pkg() != p.pkg {
		return false
	}
	tools, _ := p.toolsOf(named)
	_, isTool := tools[method]
	return !isTool && slices.Contains(p.declared[obj.Name()], method)
}

// embedsToolsetDirectly reports whether a named struct type embeds toolset.Toolset as a field of its own.
func embedsToolsetDirectly(named *types.Named) bool {
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if f := st.Field(i); f.Embedded() && isToolsetType(f.Type()) {
			return true
		}
	}
	return false
}

// toolsOf maps the methods of a toolset's tools to their names. A toolset of this package is read from its
// model, one of another package that Options listed from that listing, and any other from the identity
// constants its generated code declares (model.IDConst), which may be missing or out of date. known reports the
// first two cases, where a missing method is surely not a tool.
func (p *parser) toolsOf(named *types.Named) (tools map[string]string, known bool) {
	tools = map[string]string{}
	obj := named.Obj()
	if ts, ok := p.imported[obj.Pkg().Path()+"."+obj.Name()]; ok {
		for _, t := range ts.Tools {
			tools[t.Method] = t.Name
		}
		return tools, true
	}
	if obj.Pkg() == p.pkg {
		for _, set := range p.out.Toolsets {
			if set.TypeName == obj.Name() {
				for _, t := range set.Tools {
					if !t.Func {
						tools[t.Method] = t.Name
					}
				}
			}
		}
		return tools, true
	}
	prefix := obj.Pkg().Path() + "." + obj.Name() + "."
	mset := types.NewMethodSet(types.NewPointer(named))
	for i := range mset.Len() {
		m := mset.At(i).Obj()
		c, ok := obj.Pkg().Scope().Lookup(model.IDConst(obj.Name(), m.Name())).(*types.Const)
		if !ok || c.Val().Kind() != constant.String {
			continue
		}
		if id := constant.StringVal(c.Val()); strings.HasPrefix(id, prefix) {
			tools[m.Name()] = strings.TrimPrefix(id, prefix)
		}
	}
	return tools, false
}

// pickedMethod returns the name of the method a pick's method expression names, when it is a method of the
// toolset type, or "".
func (p *parser) pickedMethod(e ast.Expr, named *types.Named) string {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	s := p.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodExpr {
		return ""
	}
	recv := s.Recv()
	if ptr, isPtr := recv.(*types.Pointer); isPtr {
		recv = ptr.Elem()
	}
	if !types.Identical(recv, named) {
		return ""
	}
	return s.Obj().Name()
}

// missingMethod returns M for a pick (T).M or (*T).M of the toolset type whose method M does not exist, or "".
func (p *parser) missingMethod(e ast.Expr, named *types.Named) string {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || p.info.Selections[sel] != nil {
		return ""
	}
	tv, ok := p.info.Types[sel.X]
	if !ok || !tv.IsType() {
		return ""
	}
	t := tv.Type
	if ptr, isPtr := t.(*types.Pointer); isPtr {
		t = ptr.Elem()
	}
	if !types.Identical(t, named) {
		return ""
	}
	return sel.Sel.Name
}

// configurableTools lists the tools of a toolset of this package that the use offers and whose settings a
// tenant may override.
func (p *parser) configurableTools(typeName string, u *model.ToolsetUse) []model.UseTool {
	var out []model.UseTool
	for _, set := range p.out.Toolsets {
		if set.TypeName != typeName {
			continue
		}
		for _, t := range set.Tools {
			if t.Settings == nil || len(t.Configurable) == 0 {
				continue
			}
			if len(u.IncludeNames) > 0 && !slices.Contains(u.IncludeNames, t.Name) || slices.Contains(u.ExcludeNames, t.Name) {
				continue
			}
			out = append(out, model.UseTool{Name: t.Name, ID: p.pkg.Path() + "." + typeName + "." + t.Name})
		}
	}
	return out
}

// isLink reports whether call calls the method name of the agent package's type typeName.
func (p *parser) isLink(call *ast.CallExpr, typeName, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && p.isMethodOf(sel, typeName)
}

// GeneratedToolsets reads the toolsets of a package that is known only through its types, such as one loaded
// from export data, from the identity constants of its generated file (model.IDConst). The listing is as fresh
// as that file; it has no Failed methods.
func GeneratedToolsets(pkg *types.Package) []Toolset {
	var out []Toolset
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || !embedsToolsetDirectly(named) {
			continue
		}
		ts := Toolset{Pkg: pkg.Path(), Type: name}
		prefix := pkg.Path() + "." + name + "."
		mset := types.NewMethodSet(types.NewPointer(named))
		for i := range mset.Len() {
			m := mset.At(i).Obj()
			c, ok := scope.Lookup(model.IDConst(name, m.Name())).(*types.Const)
			if !ok || c.Val().Kind() != constant.String {
				continue
			}
			if id := constant.StringVal(c.Val()); strings.HasPrefix(id, prefix) {
				ts.Tools = append(ts.Tools, ToolRef{Name: strings.TrimPrefix(id, prefix), Method: m.Name()})
			}
		}
		if len(ts.Tools) > 0 {
			out = append(out, ts)
		}
	}
	return out
}
