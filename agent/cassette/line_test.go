package cassette_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/cassette"
)

// TestFailuresAtTheTestsLine: a request the cassette does not hold fails the test at the test's line that made
// it, and an exchange never asked for at the line that made the cassette, not at a line of package cassette.
func TestFailuresAtTheTestsLine(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "empty.txt")
	is.NoErr(os.WriteFile(path, cassette.Format(&cassette.Cassette{}), 0o644))
	c := &capture{TB: t}
	rec := cassette.New(c, path, &cassette.Options{Mode: cassette.Replay})
	_, _, line, _ := runtime.Caller(0)
	_, err := rec.Client().Get("http://127.0.0.1:1/v1/models") // the line the miss is reported at: line+1
	is.True(err != nil)
	is.Equal(len(c.errors), 1)
	is.True(strings.HasPrefix(c.errors[0], fmt.Sprintf("line_test.go:%d: cassette %s: GET /v1/models matches no recorded exchange", line+1, path)))

	// A recorded exchange the test never asked for, found when the test ends, is reported where the cassette was made.
	full := record(t, providers[0], "text", "Is ticket 4711 open?", cassette.Options{})
	c = &capture{TB: t}
	t.Run("unused", func(t *testing.T) {
		c.TB = t
		_, _, line, _ = runtime.Caller(0)
		cassette.New(c, full, &cassette.Options{Mode: cassette.Replay}) // line+1
	})
	is.Equal(len(c.errors), 1)
	is.True(strings.HasPrefix(c.errors[0], fmt.Sprintf("line_test.go:%d: cassette %s: exchange 1", line+1, full)))
}
