package archtest

import (
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// The bounds of the exported surfaces of package agent and package storage: what users of the library read and
// may come to depend on. A name only sibling packages need goes to an internal package, or is unexported, rather
// than raising a bound; lower a bound when names go.
const (
	maxAgentNames   = 300
	maxStorageNames = 194
)

// TestSurfaceIsBounded counts the exported names of package agent and package storage (package-level names, the
// methods of their types and the fields of their structs) and holds each to its bound; every exported name and
// method has a doc comment for its user.
func TestSurfaceIsBounded(t *testing.T) {
	for _, c := range []struct {
		pkg string
		max int
	}{
		{"./agent", maxAgentNames},
		{"./storage", maxStorageNames},
	} {
		t.Run(c.pkg, func(t *testing.T) {
			is := is.New(t)
			s, err := LoadSurface(filepath.Join("..", ".."), c.pkg)
			is.NoErr(err)
			t.Logf("%s exports %d names (bound %d)", c.pkg, len(s.Names), c.max)
			if len(s.Names) > c.max {
				t.Errorf("%s exports %d names, more than %d: move a name only sibling packages use to an internal package, or unexport it", c.pkg, len(s.Names), c.max)
			}
			is.Equal(s.Undocumented, []string(nil)) // every exported name says what it is for
		})
	}
}

// TestSurfaceFindsNames plants a package with exported and unexported names, documented and not, and checks what
// LoadSurface counts and which it reports undocumented.
func TestSurfaceFindsNames(t *testing.T) {
	is := is.New(t)
	s, err := LoadSurface(filepath.Join("testdata", "surface"), ".")
	is.NoErr(err)
	is.Equal(s.Names, []string{"C1", "F", "I", "I.Do", "T", "T.A", "T.Error", "T.M", "V"})
	is.Equal(s.Undocumented, []string{"T.M", "V"})
}
