package parse

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
	"github.com/typeshift-go/typeshift/toolset"
)

// chain is what one AddTool(...).Call()... statement says.
type chain struct {
	addTool *ast.CallExpr
	stmt    ast.Node
	name    string
	nameArg ast.Expr
	// badName marks a WithName argument that is not a constant, already reported.
	badName bool
	// broken marks a chain that does not type-check; it is skipped without a report.
	broken      bool
	description string
	hasDesc     bool
	readOnly    bool
	approval    bool
	// settingsArg is WithSettings' or WithConfigurableSettings' argument.
	settingsArg     ast.Expr
	allConfigurable bool
	configurable    []namedArg
	notConfigurable []namedArg
}

// namedArg is a json name given to Configurable or NotConfigurable, with its syntax.
type namedArg struct {
	name string
	at   ast.Expr
}

// readDeclare reads the AddTool chains of a toolset's Declare method, or of an agent's: isAdd tells the AddTool
// calls of the one from the other.
func (p *parser) readDeclare(named *types.Named, fd *ast.FuncDecl, isAdd func(*ast.CallExpr) bool) []*model.Tool {
	var recv *types.Var
	if fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
		recv, _ = p.info.Defs[fd.Recv.List[0].Names[0]].(*types.Var)
	}
	var tools []*model.Tool
	handled := map[*ast.CallExpr]bool{}
	// The chains' diagnostics wait until every chain is read, so that TSH008 can suggest names no tool has; they
	// go out in the order they were made.
	outer, buf := p.r, &diagnosticBuffer{}
	p.r, p.buf = buf, buf
	for _, stmt := range fd.Body.List {
		es, ok := stmt.(*ast.ExprStmt)
		if !ok {
			continue
		}
		c, ok := p.readChain(es, isAdd)
		if !ok {
			continue
		}
		handled[c.addTool] = true
		if !p.onReceiver(c.addTool, recv) {
			p.report(c.addTool, "TSH014", Error,
				"call AddTool on the Declare method's receiver: the generator reads only the toolset's own chains")
			continue
		}
		if t := p.readTool(named, recv, c); t != nil {
			tools = append(tools, t)
		}
	}
	p.nameBadNames(tools)
	p.r, p.buf = outer, nil
	for _, d := range buf.ds {
		outer.Report(d)
	}
	// AddTool calls that are not a chain statement of their own cannot be read.
	for _, stmt := range fd.Body.List {
		_, stored := stmt.(*ast.AssignStmt)
		if ds, ok := stmt.(*ast.DeclStmt); ok {
			_, stored = ds.Decl.(*ast.GenDecl)
		}
		var walk func(n ast.Node, inFunc bool)
		walk = func(n ast.Node, inFunc bool) {
			ast.Inspect(n, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.FuncLit:
					if !inFunc {
						walk(x.Body, true)
						return false
					}
				case *ast.CallExpr:
					if handled[x] || !isAdd(x) {
						return true
					}
					if stored && !inFunc {
						p.report(x, "TSH015", Error,
							"write each tool as one statement, AddTool(...) followed by its calls: the generator cannot follow a builder stored in a variable")
					} else {
						p.report(x, "TSH014", Error,
							"call AddTool directly in Declare, one statement per tool, not in a loop, condition or function literal: the generator reads the chains without running them")
					}
				}
				return true
			})
		}
		walk(stmt, false)
	}
	return tools
}

// readChain unwinds a statement of the form recv.AddTool(fn).A().B(...) into a chain. It reports false for
// statements that are not AddTool chains.
func (p *parser) readChain(es *ast.ExprStmt, isAdd func(*ast.CallExpr) bool) (*chain, bool) {
	var links []*ast.CallExpr
	e := ast.Unparen(es.X)
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return nil, false
		}
		if isAdd(call) {
			c := &chain{addTool: call, stmt: es}
			for i := len(links) - 1; i >= 0; i-- {
				p.readLink(c, links[i])
			}
			return c, true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !p.isBuilderMethod(sel) {
			return nil, false
		}
		links = append(links, call)
		e = ast.Unparen(sel.X)
	}
}

// isBuilderMethod reports whether sel names a method of *toolset.ToolBuilder.
func (p *parser) isBuilderMethod(sel *ast.SelectorExpr) bool {
	fn, ok := p.info.Uses[sel.Sel].(*types.Func)
	if !ok {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	return isNamed(t, ToolsetPath, "ToolBuilder")
}

// repeatsMethod reports whether a tool kept before t is made from t's method, and reports (TSH030) t's AddTool
// if so: a method is one tool, under one name, and the generated code names the tool's identity after it.
func (p *parser) repeatsMethod(typeName string, kept []*model.Tool, t *model.Tool) bool {
	fn := p.toolObject(t)
	i := slices.IndexFunc(kept, func(k *model.Tool) bool { return fn != nil && p.toolObject(k) == fn })
	if i < 0 {
		return false
	}
	what := typeName + "." + t.Method
	if t.Func {
		what = t.Method
	}
	p.report(p.toolPos[t].addTool.Args[0], "TSH030", Error, fmt.Sprintf(
		"%s is already the tool %q: a method is one tool, under one name; remove this AddTool, or to offer it under a second name too, add a method that calls %s",
		what, kept[i].Name, t.Method))
	return true
}

// toolObject returns the function or method a tool's AddTool names, or nil.
func (p *parser) toolObject(t *model.Tool) types.Object {
	call := p.toolPos[t].addTool
	if call == nil || len(call.Args) != 1 {
		return nil
	}
	switch e := ast.Unparen(call.Args[0]).(type) {
	case *ast.Ident:
		return p.info.Uses[e]
	case *ast.SelectorExpr:
		return p.info.Uses[e.Sel]
	}
	return nil
}

// readLink records one call of a chain.
func (p *parser) readLink(c *chain, call *ast.CallExpr) {
	sel := call.Fun.(*ast.SelectorExpr)
	switch sel.Sel.Name {
	case "WithName", "WithDescription", "WithSettings", "WithConfigurableSettings":
		if len(call.Args) != 1 {
			c.broken = true // does not compile; the compiler reports it
			return
		}
	}
	switch sel.Sel.Name {
	case "WithName":
		c.nameArg = call.Args[0]
		if s, ok := p.stringConst(call.Args[0]); ok {
			c.name = s
		} else {
			p.report(call.Args[0], "TSH008", Error, "WithName takes a string constant, so the generator can read the name")
			c.badName = true
		}
	case "WithDescription":
		if s, ok := p.stringConst(call.Args[0]); ok {
			c.description, c.hasDesc = s, true
		} else {
			p.report(call.Args[0], "TSH015", Error,
				"WithDescription takes a string constant, so the generator can read the description")
		}
	case "ReadOnly":
		c.readOnly = true
	case "RequiresApproval":
		c.approval = true
	case "WithSettings":
		c.settingsArg = call.Args[0]
	case "WithConfigurableSettings":
		c.settingsArg, c.allConfigurable = call.Args[0], true
	case "Configurable", "NotConfigurable":
		var names []namedArg
		for _, a := range call.Args {
			s, ok := p.stringConst(a)
			if !ok || call.Ellipsis.IsValid() {
				p.report(a, "TSH019", Error, sel.Sel.Name+" takes the settings fields' json names as string constants")
				continue
			}
			names = append(names, namedArg{s, a})
		}
		if sel.Sel.Name == "Configurable" {
			c.configurable = append(c.configurable, names...)
		} else {
			c.notConfigurable = append(c.notConfigurable, names...)
		}
	}
}

// stringConst returns the value of a string constant expression.
func (p *parser) stringConst(e ast.Expr) (string, bool) {
	tv, ok := p.info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// onReceiver reports whether AddTool is called on the Declare method's receiver (x.AddTool, x.Toolset.AddTool or
// x.Agent.AddTool).
func (p *parser) onReceiver(call *ast.CallExpr, recv *types.Var) bool {
	if recv == nil {
		return false
	}
	x := ast.Unparen(call.Fun.(*ast.SelectorExpr).X)
	if sel, ok := x.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Toolset" || sel.Sel.Name == "Agent") {
		x = ast.Unparen(sel.X)
	}
	id, ok := x.(*ast.Ident)
	return ok && p.info.Uses[id] == recv
}

// readTool reads a chain's function and builds the tool, or reports why it cannot and returns nil.
func (p *parser) readTool(named *types.Named, recv *types.Var, c *chain) *model.Tool {
	if len(c.addTool.Args) != 1 || c.broken {
		return nil
	}
	arg := ast.Unparen(c.addTool.Args[0])
	p.site = arg
	defer func() { p.site = nil }()
	fn, isMethod := p.toolFunc(named, recv, arg)
	if fn == nil {
		p.report(arg, "TSH003", Error, fmt.Sprintf(
			"AddTool takes a method value of %s, such as %s.Search, or a package-level function, so the generated code can call it directly",
			named.Obj().Name(), recv.Name()))
		return nil
	}
	if c.badName {
		return nil
	}
	t := &model.Tool{
		Method:           fn.Name(),
		Func:             !isMethod,
		ReadOnly:         c.readOnly,
		RequiresApproval: c.approval,
	}
	if !isMethod && fn.Pkg() != p.pkg {
		t.Method = p.qualifier(fn.Pkg()) + "." + fn.Name()
	}
	t.Name = c.name
	if t.Name == "" {
		t.Name = toolset.SnakeCase(fn.Name())
		if !toolset.ValidName(t.Name) {
			p.badName(badName{at: arg, name: t.Name, method: fn.Name()})
			return nil
		}
	} else if !toolset.ValidName(t.Name) {
		p.badName(badName{at: c.nameArg, name: t.Name, explicit: true})
		return nil
	}
	if c.hasDesc {
		t.Description = c.description
	} else if fd := p.funcSyntax[fn]; fd != nil {
		t.Description = modelDescription(fn.Name(), docText(fd.Doc))
	}
	if t.Description == "" {
		p.report(c.addTool, "TSH009", Warning, fmt.Sprintf(
			"tool %s has no description: write a doc comment on %s or call WithDescription; the model reads it to decide when to call the tool",
			t.Name, fn.Name()))
	}
	if !p.readSignature(t, fn, c, arg) {
		return nil
	}
	p.toolPos[t] = chainPos{call: c.stmt, nameArg: c.nameArg, addTool: c.addTool, declName: named.Obj().Name()}
	return t
}

// toolFunc resolves AddTool's argument to a method of the toolset (through its receiver) or a package-level
// function.
func (p *parser) toolFunc(named *types.Named, recv *types.Var, arg ast.Expr) (fn *types.Func, isMethod bool) {
	switch x := arg.(type) {
	case *ast.SelectorExpr:
		if sel := p.info.Selections[x]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return nil, false
			}
			id, ok := ast.Unparen(x.X).(*ast.Ident)
			if !ok || recv == nil || p.info.Uses[id] != recv {
				return nil, false
			}
			f, _ := sel.Obj().(*types.Func)
			return f, f != nil
		}
		f, ok := p.info.Uses[x.Sel].(*types.Func)
		if !ok || f.Type().(*types.Signature).Recv() != nil {
			return nil, false
		}
		return f, false
	case *ast.Ident:
		f, ok := p.info.Uses[x].(*types.Func)
		if !ok || f.Type().(*types.Signature).Recv() != nil || f.Parent() != f.Pkg().Scope() {
			return nil, false
		}
		return f, false
	}
	return nil, false
}

// badName is a tool name that is not lower_snake_case: given with WithName (explicit), or made from method. Its
// TSH008 waits in the Declare's diagnostics at index until its suggestion is known.
type badName struct {
	at       ast.Expr
	name     string
	method   string
	explicit bool
	index    int
}

// diagnosticBuffer keeps diagnostics in the order they are reported.
type diagnosticBuffer struct{ ds []Diagnostic }

// Report keeps d.
func (b *diagnosticBuffer) Report(d Diagnostic) { b.ds = append(b.ds, d) }

// badName holds the place of b's TSH008 among the Declare's diagnostics.
func (p *parser) badName(b badName) {
	b.index = len(p.buf.ds)
	p.badNames = append(p.badNames, b)
	p.report(b.at, "TSH008", Error, "")
}

// nameBadNames writes the TSH008 of each of the Declare's bad names, with a suggestion that none of its tools, and
// no other suggestion, already has.
func (p *parser) nameBadNames(tools []*model.Tool) {
	if len(p.badNames) == 0 {
		return
	}
	taken := make(map[string]bool, len(tools)+len(p.badNames))
	for _, t := range tools {
		taken[t.Name] = true
	}
	for _, b := range p.badNames {
		want := unusedName(suggestName(b.name), taken)
		taken[want] = true
		d := &p.buf.ds[b.index]
		if !b.explicit {
			d.Message = fmt.Sprintf("the tool name %q made from %s %s: name the tool with WithName(%q)",
				b.name, b.method, nameProblem(b.name), want)
			continue
		}
		d.Message = fmt.Sprintf("tool name %q %s: use %q", b.name, nameProblem(b.name), want)
		d.Fixes = []Fix{{Message: "rename the tool to " + want,
			Edits: []Edit{{Pos: b.at.Pos(), End: b.at.End(), NewText: strconv.Quote(want)}}}}
	}
	p.badNames = p.badNames[:0]
}

// unusedName returns want, or, when taken has it, want with the first number from 2 on that makes it unused,
// cut at a whole word to stay within the longest name.
func unusedName(want string, taken map[string]bool) string {
	if !taken[want] {
		return want
	}
	for n := 2; ; n++ {
		suffix := "_" + strconv.Itoa(n)
		base := want
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
			if cut := strings.LastIndexByte(base, '_'); cut > 0 {
				base = base[:cut]
			}
			base = strings.TrimRight(base, "_")
		}
		if name := base + suffix; !taken[name] {
			return name
		}
	}
}
