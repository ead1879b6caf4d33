package parse

import (
	"encoding/json"
	"go/constant"
	"go/types"
)

// enumValues lists, as JSON literals in declaration order, the constants of a named string type marked
// //typeshift:enum, from the scope of the package that declares the type.
func (p *parser) enumValues(n *types.Named) []string {
	scope := n.Obj().Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), n) && c.Val().Kind() == constant.String {
			consts = append(consts, c)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range sortedByPos(consts) {
		b, _ := json.Marshal(constant.StringVal(c.Val()))
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, string(b))
		}
	}
	return out
}
