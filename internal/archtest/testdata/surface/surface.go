// Package surface is a planted package for TestSurfaceFindsNames.
package surface

// T is documented.
type T struct {
	A int
	b int
}

func (T) M() {}

func (T) m() {}

// Error needs no comment of its own.
func (T) Error() string { return "" }

// F is documented.
func F() {}

var V int

// The group's comment documents its members.
const (
	C1 = 1
	c2 = 2
)

// I is documented.
type I interface {
	Do()
}

type hidden struct{ X int }

func (hidden) Y() {}
