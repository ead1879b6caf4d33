package analysis_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/typeshift-go/typeshift/analysis"
	"github.com/typeshift-go/typeshift/internal/emit"
)

// The vet benchmark's package: this many toolsets of this many tools each.
const (
	benchToolsets = 200
	benchTools    = 5
)

// BenchmarkVet measures what typeshift-vet adds to go vet, on a generated package of 200 toolsets with 5 tools
// each and an up-to-date typeshift_gen.go. Each iteration edits a comment in the package, so that go vet must
// check it again while everything it depends on stays cached, and then times four commands:
//
//   - plain: go vet with the standard analyzers;
//   - typeshift: go vet -vettool=typeshift-vet. The analyzer keeps nothing between runs, so this is both the
//     first run after a change to a declaration (cold) and every run after it (warm): TSH010 compares the
//     fingerprint of the parsed model with the one in the generated file;
//   - stale: the same with a generated file whose fingerprint does not match, the rare case where TSH010
//     generates the file for its suggested fix (go vet then fails, as it should);
//   - noop: go vet -vettool with a driver built the same way whose analyzer does nothing, which measures what
//     any vet tool costs (the go command, loading export data, type-checking the package).
//
// The analyzer's own cost is typeshift (or stale) minus noop, reported as a share of plain. Run it with
//
//	go test -run='^$' -bench='Vet$' -benchtime=10x ./analysis
//
// To compare with an earlier build, set TYPESHIFT_VET_BEFORE to its typeshift-vet: the benchmark then also times it
// (before), with the generated file as that build writes it (without the fingerprint line), and the same with
// TYPESHIFT_VET_CACHE=off (before-cold), for builds that kept a cache; both run in the same iterations, on the same
// machine state, as the others.
func BenchmarkVet(b *testing.B) {
	dir := benchModule(b)
	typeshiftVet := filepath.Join(dir, "bin", "typeshift-vet")
	goBuild(b, repoRootB(b), typeshiftVet, "./cmd/typeshift-vet")
	noopVet := filepath.Join(dir, "bin", "noop-vet")
	goBuild(b, dir, noopVet, "./noopvet")

	genPath := filepath.Join(dir, "tools", analysis.GeneratedFile)
	gen, err := os.ReadFile(genPath)
	if err != nil {
		b.Fatal(err)
	}
	fp, ok := emit.ReadFingerprint(gen)
	if !ok {
		b.Fatal("the generated file has no fingerprint")
	}
	staleGen := []byte(strings.Replace(string(gen), fp, strings.Repeat("0", len(fp)), 1))

	type command struct {
		name  string
		stale bool
		args  []string
		// file, when set, is the generated file to vet with, and env more environment.
		file []byte
		env  string
	}
	commands := []command{
		{name: "plain", args: []string{"vet", "./tools"}},
		{name: "typeshift", args: []string{"vet", "-vettool=" + typeshiftVet, "./tools"}},
		{name: "stale", stale: true, args: []string{"vet", "-vettool=" + typeshiftVet, "./tools"}, file: staleGen},
		{name: "noop", args: []string{"vet", "-vettool=" + noopVet, "./tools"}},
	}
	if before := os.Getenv("TYPESHIFT_VET_BEFORE"); before != "" {
		old := []byte(strings.Replace(string(gen), emit.FingerprintPrefix+fp+"\n", "", 1))
		args := []string{"vet", "-vettool=" + before, "./tools"}
		commands = append(commands,
			command{name: "before", args: args, file: old, env: "TYPESHIFT_VET_CACHE=" + filepath.Join(dir, "cache")},
			command{name: "before-cold", args: args, file: old, env: "TYPESHIFT_VET_CACHE=off"})
	}
	write := func(path string, src []byte) {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	touch := func(i int) {
		write(filepath.Join(dir, "tools", "touch.go"), fmt.Appendf(nil, "package tools\n\n// Touched %d.\n", i))
	}
	// vet runs a command, which must fail with TSH010 exactly when the generated file is stale.
	vet := func(stale bool, env string, args []string) {
		cmd := goCmd(dir, args...)
		if env != "" {
			cmd.Env = append(cmd.Env, env)
		}
		out, err := cmd.CombinedOutput()
		switch {
		case stale && (err == nil || !strings.Contains(string(out), "TSH010")):
			b.Fatalf("go %s: want TSH010, got %v\n%s", strings.Join(args, " "), err, out)
		case !stale && err != nil:
			b.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run := func(c command) time.Duration {
		if c.file != nil {
			write(genPath, c.file)
			defer write(genPath, gen)
		}
		start := time.Now()
		vet(c.stale, c.env, c.args)
		return time.Since(start)
	}
	// Warm the build and vet caches of the dependencies, and check that the package is clean.
	for i, c := range commands {
		touch(-1 - i)
		run(c)
	}

	total := make([]time.Duration, len(commands))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for j, c := range commands {
			b.StopTimer()
			touch(i*len(commands) + j)
			b.StartTimer()
			total[j] += run(c)
		}
	}
	n := float64(b.N)
	ms := make([]float64, len(total))
	for i, d := range total {
		ms[i] = d.Seconds() * 1000 / n
		b.ReportMetric(ms[i], commands[i].name+"-ms")
	}
	plain, typeshift, stale, noop := ms[0], ms[1], ms[2], ms[3]
	b.ReportMetric(100*(typeshift-noop)/plain, "analyzer-%-of-plain")
	b.ReportMetric(100*(stale-noop)/plain, "stale-analyzer-%-of-plain")
	if len(ms) > 4 {
		b.ReportMetric(100*(ms[4]-noop)/plain, "before-analyzer-%-of-plain")
		b.ReportMetric(100*(ms[5]-noop)/plain, "before-cold-analyzer-%-of-plain")
	}
}

// BenchmarkVetParts times, in process, the steps of the analyzer that grow with the package: parsing the
// declarations of the 200 toolsets, the model's fingerprint (what TSH010 computes on every run) and generating
// typeshift_gen.go in memory (what it does only for a stale file).
func BenchmarkVetParts(b *testing.B) {
	p := load(b, benchModule(b), "./tools")[0]
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			parseFiles(p.Fset, p.Syntax, p.Types, p.TypesInfo)
		}
	})
	m := parseFiles(p.Fset, p.Syntax, p.Types, p.TypesInfo).model
	b.Run("fingerprint", func(b *testing.B) {
		for b.Loop() {
			if _, err := emit.Fingerprint(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("emit", func(b *testing.B) {
		var size int
		for b.Loop() {
			src, err := emit.File(m)
			if err != nil {
				b.Fatal(err)
			}
			size = len(src)
		}
		b.ReportMetric(float64(size), "bytes")
	})
}

// benchModule writes a module that replaces typeshift with this repository, holding the package tools (the
// toolsets and their generated file) and noopvet (the baseline vet tool).
func benchModule(b *testing.B) string {
	b.Helper()
	root := repoRootB(b)
	dir := b.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		b.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/vetbench\n\ngo 1.26.0\n\n" +
			"require (\n\tgithub.com/typeshift-go/typeshift v0.0.0\n\tgolang.org/x/tools v0.52.0\n)\n\n" +
			"replace github.com/typeshift-go/typeshift => " + root + "\n",
		"go.sum":            string(sum),
		"noopvet/main.go":   noopVetMain,
		"tools/touch.go":    "package tools\n",
		"tools/inputs.go":   benchInputs(),
		"tools/toolsets.go": benchToolsetsSource(),
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Write the generated file as the generator would.
	src := generate(b, load(b, dir, "./tools")[0])
	if err := os.WriteFile(filepath.Join(dir, "tools", analysis.GeneratedFile), src, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

const noopVetMain = `// Command noop-vet is a vet tool whose analyzer does nothing: the baseline of the vet benchmark.
package main

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/singlechecker"
)

var noop = &analysis.Analyzer{
	Name: "noop",
	Doc:  "noop: report nothing",
	Run:  func(*analysis.Pass) (any, error) { return nil, nil },
}

func main() { singlechecker.Main(noop) }
`

// benchToolsetsSource declares the toolsets: each with a doc comment and five documented tools.
func benchToolsetsSource() string {
	var s strings.Builder
	s.WriteString("package tools\n\nimport (\n\t\"context\"\n\n\t\"github.com/typeshift-go/typeshift/toolset\"\n)\n")
	for i := range benchToolsets {
		fmt.Fprintf(&s, "\n// Set%d holds the tools of area %d.\ntype Set%d struct{ toolset.Toolset }\n\n", i, i, i)
		fmt.Fprintf(&s, "func (s *Set%d) Declare() {\n", i)
		for j := range benchTools {
			switch j {
			case 0:
				fmt.Fprintf(&s, "\ts.AddTool(s.Search%d_%d).ReadOnly()\n", i, j)
			case 1:
				fmt.Fprintf(&s, "\ts.AddTool(s.Search%d_%d).WithDescription(\"Finds records of area %d.\")\n", i, j, i)
			default:
				fmt.Fprintf(&s, "\ts.AddTool(s.Search%d_%d)\n", i, j)
			}
		}
		s.WriteString("}\n")
		for j := range benchTools {
			fmt.Fprintf(&s, "\n// Search%d_%d searches the records of area %d.\n", i, j, i)
			fmt.Fprintf(&s, "func (s *Set%d) Search%d_%d(ctx context.Context, in Input%d_%d) ([]Record, error) {\n\treturn nil, nil\n}\n", i, i, j, i, j)
		}
	}
	return s.String()
}

// benchInputs declares one input struct per tool and the result type.
func benchInputs() string {
	var s strings.Builder
	s.WriteString("package tools\n\nimport \"time\"\n\n// Record is one search result.\ntype Record struct {\n" +
		"\tID      int       `json:\"id\"`\n\tTitle   string    `json:\"title\"`\n\tCreated time.Time `json:\"created\"`\n}\n")
	for i := range benchToolsets {
		for j := range benchTools {
			fmt.Fprintf(&s, "\ntype Input%d_%d struct {\n", i, j)
			s.WriteString("\t// Query is what to look for.\n\tQuery string `json:\"query\"`\n")
			s.WriteString("\t// Limit caps the results.\n\tLimit int `json:\"limit,omitempty\" jsonschema:\"minimum=1,maximum=100,default=20\"`\n")
			s.WriteString("\t// Closed includes closed records.\n\tClosed bool `json:\"closed,omitempty\"`\n}\n")
		}
	}
	return s.String()
}

// goCmd returns a go command run in dir without network.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
	return cmd
}

func goBuild(b *testing.B, dir, out, pkg string) {
	b.Helper()
	if o, err := goCmd(dir, "build", "-o", out, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, o)
	}
}

func repoRootB(b *testing.B) string {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	return root
}
