package emit_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/internal/emit"
	"github.com/typeshift-go/typeshift/internal/parse"
)

// formatGolden records, for the format version, each fixture's model and the code generated for it, as hashes.
var formatGolden = filepath.Join("testdata", "format.golden")

// TestFormatVersion keeps emit.FormatVersion honest: the analyzer trusts a generated file whose fingerprint (the
// format version and the model) matches, so the emitter must not write different code for the same model under
// the same version. The test fails when a fixture's model is unchanged but its code is not, and the version is the
// recorded one; -update records the hashes again.
func TestFormatVersion(t *testing.T) {
	pkgs := load(t, fixtures(t))
	got := map[string][2]string{} // fixture -> model hash, code hash
	for name, p := range pkgs {
		failed := false
		m := parse.Package(p.Fset, p.Syntax, p.Types, p.TypesInfo, parse.ReporterFunc(func(d parse.Diagnostic) {
			failed = failed || d.Severity == parse.Error
		}))
		if failed || len(m.Toolsets)+len(m.Agents) == 0 {
			continue
		}
		model, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		src, err := emit.File(m)
		if err != nil {
			t.Fatal(err)
		}
		// Leave out the fingerprint line, which changes with the version.
		head, body, _ := bytes.Cut(src, []byte("\n\n"))
		if _, ok := emit.ReadFingerprint(append(head, '\n')); !ok {
			t.Fatalf("%s: the generated file has no fingerprint line", name)
		}
		got[name] = [2]string{hash(model), hash(body)}
	}
	if len(got) == 0 {
		t.Fatal("no fixture generates a file")
	}

	version, recorded := readFormatGolden(t)
	for name, g := range got {
		r, ok := recorded[name]
		if ok && version == emit.FormatVersion && r[0] == g[0] && r[1] != g[1] {
			t.Errorf("%s: the emitter writes different code for the same model: change emit.FormatVersion (now %s), then run go test ./internal/emit -update",
				name, emit.FormatVersion)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "version %s\n", emit.FormatVersion)
	for _, name := range fixtures(t) {
		if g, ok := got[name]; ok {
			fmt.Fprintf(&b, "%s %s %s\n", name, g[0], g[1])
		}
	}
	compare(t, formatGolden, []byte(b.String()))
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// readFormatGolden reads the recorded version and hashes; a missing file records nothing.
func readFormatGolden(t *testing.T) (string, map[string][2]string) {
	t.Helper()
	out := map[string][2]string{}
	f, err := os.Open(formatGolden)
	if os.IsNotExist(err) {
		return "", out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var version string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		switch {
		case len(fields) == 2 && fields[0] == "version":
			version = fields[1]
		case len(fields) == 3:
			out[fields[0]] = [2]string{fields[1], fields[2]}
		}
	}
	return version, out
}
