package providertest

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
	"testing"
)

// CheckProvenance checks a directory of recordings against the PROVENANCE.md beside them: a Markdown table with
// a row per file whose first cell is the file's name and last its SHA-256 in hex, the cells between naming its
// source repository, path, commit and licence. Every .yaml file must have its row and its hash; every row, its
// file. The check keeps recordings as their projects made them: a file edited by hand fails it.
func CheckProvenance(t *testing.T, fsys fs.FS) {
	t.Helper()
	data, err := fs.ReadFile(fsys, "PROVENANCE.md")
	if err != nil {
		t.Fatalf("provenance: %v", err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 6 {
			continue
		}
		name, sum := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[len(cells)-1])
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, c := range cells[1 : len(cells)-1] {
			if strings.TrimSpace(c) == "" {
				t.Errorf("provenance: %s: an empty cell; each file needs its repository, path, commit and licence", name)
			}
		}
		want[name] = sum
	}
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		switch w, ok := want[f]; {
		case !ok:
			t.Errorf("provenance: %s has no row in PROVENANCE.md", f)
		case w != hex.EncodeToString(sum[:]):
			t.Errorf("provenance: %s has SHA-256 %x; PROVENANCE.md records %s: a recording is kept as its project made it", f, sum, w)
		}
		delete(want, path.Base(f))
	}
	for f := range want {
		t.Errorf("provenance: PROVENANCE.md lists %s, which is not there", f)
	}
}
