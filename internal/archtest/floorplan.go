// Package archtest holds tests of the project's shape (rules that span packages) and the floor plan of a
// package: the reference graph of its files held against an order of them.
package archtest

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/packages"
)

// Arrow is a use, in the file From, of names declared in the file To of the same package.
type Arrow struct {
	From, To string
	// Names are the names of To that From uses, sorted.
	Names []string
}

// FloorPlan is the reference graph of a package's files held against an order of the files, top first.
type FloorPlan struct {
	// Arrows are every arrow between two files of the package, sorted by From, then To.
	Arrows []Arrow
	// Up are the arrows from a file to one that stands above it in the order: from a file lower in the run back
	// up to one above it.
	Up []Arrow
	// Mutual counts the pairs of files that use each other's names.
	Mutual int
	// Unplaced are the files of the package the order does not name.
	Unplaced []string
}

// LoadFloorPlan loads the package in dir (test files left out) and draws its files' reference graph from go/types'
// uses: an arrow from a file to another for each package-level name, method or field declared in the other that
// the file uses. order lists the files (base names) from the top down.
func LoadFloorPlan(dir string, order []string) (*FloorPlan, error) {
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
	}, ".")
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s: %d packages, want one", dir, len(pkgs))
	}
	p := pkgs[0]
	for _, e := range p.Errors {
		return nil, fmt.Errorf("loading %s: %v", dir, e)
	}
	return floorPlan(p, order), nil
}

func floorPlan(p *packages.Package, order []string) *FloorPlan {
	rank := map[string]int{}
	for i, f := range order {
		rank[f] = i
	}
	names := map[[2]string]map[string]bool{}
	plan := &FloorPlan{}
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		if _, ok := rank[from]; !ok {
			plan.Unplaced = append(plan.Unplaced, from)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !declaredOutside(obj) {
				return true
			}
			to := filepath.Base(p.Fset.Position(obj.Pos()).Filename)
			if to == from {
				return true
			}
			k := [2]string{from, to}
			if names[k] == nil {
				names[k] = map[string]bool{}
			}
			names[k][qualified(obj)] = true
			return true
		})
	}
	for k, ns := range names {
		a := Arrow{From: k[0], To: k[1]}
		for n := range ns {
			a.Names = append(a.Names, n)
		}
		slices.Sort(a.Names)
		plan.Arrows = append(plan.Arrows, a)
		rf, okf := rank[a.From]
		rt, okt := rank[a.To]
		if okf && okt && rt < rf {
			plan.Up = append(plan.Up, a)
		}
		if k[0] < k[1] && names[[2]string{k[1], k[0]}] != nil {
			plan.Mutual++
		}
	}
	byFiles := func(a, b Arrow) int {
		if a.From != b.From {
			return compare(a.From, b.From)
		}
		return compare(a.To, b.To)
	}
	slices.SortFunc(plan.Arrows, byFiles)
	slices.SortFunc(plan.Up, byFiles)
	slices.Sort(plan.Unplaced)
	return plan
}

// declaredOutside reports whether obj is a name other files can use: declared at package level, or a field or a
// method; not a local.
func declaredOutside(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Var:
		if o.IsField() {
			return true
		}
	case *types.Func:
		if o.Type().(*types.Signature).Recv() != nil {
			return true
		}
	}
	return obj.Parent() != nil && obj.Parent() == obj.Pkg().Scope()
}

// qualified is obj's name, with its receiver's or struct's type for a method or a field when it can tell.
func qualified(obj types.Object) string {
	if f, ok := obj.(*types.Func); ok {
		if r := f.Type().(*types.Signature).Recv(); r != nil {
			t := r.Type()
			if pt, ok := t.(*types.Pointer); ok {
				t = pt.Elem()
			}
			if n, ok := t.(*types.Named); ok {
				return n.Obj().Name() + "." + f.Name()
			}
		}
	}
	return obj.Name()
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
