package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// ReadJSON reads results as [WriteJSON] wrote them.
func ReadJSON(r io.Reader) ([]Result, error) {
	var out []Result
	d := json.NewDecoder(r)
	if err := d.Decode(&out); err != nil {
		return nil, fmt.Errorf("eval: reading results: %w", err)
	}
	for i, res := range out {
		if res.Case == "" {
			return nil, fmt.Errorf("eval: reading results: result %d names no case", i+1)
		}
	}
	return out, nil
}

// How a case changed from one result file to the next.
const (
	Regressed = "regressed" // it passed and fails now, or a score fell
	Improved  = "improved"  // it failed and passes now, or a score rose and none fell
	Same      = "same"
	Added     = "added"   // it is new
	Removed   = "removed" // it is gone
)

// A Change is what became of one case between two runs of its suite.
type Change struct {
	Package, Suite, Case string
	// Kind is Regressed, Improved, Same, Added or Removed.
	Kind string
	// Was and Now are the case's results in each run; nil where it is missing.
	Was, Now *Result
	// Scores lists the scores that moved, by how much.
	Scores []ScoreChange
}

// A ScoreChange is one scorer's value in both runs. A scorer missing from a run counts as 0 there.
type ScoreChange struct {
	Name     string
	Was, Now float64
}

// Delta is how much the score moved: negative when it fell.
func (s ScoreChange) Delta() float64 { return s.Now - s.Was }

// Failing reports whether the change should fail a build: the case regressed, or it is new and fails.
func (c Change) Failing() bool {
	return c.Kind == Regressed || (c.Kind == Added && !c.Now.Passed)
}

// scoreEpsilon is below what a score can move by: differences of rounding are not changes.
const scoreEpsilon = 1e-9

// Compare matches the cases of two runs by package, suite and name and says how each changed, in that order.
func Compare(was, now []Result) []Change {
	type key struct{ pkg, suite, name string }
	old := map[key]*Result{}
	for i := range was {
		old[key{was[i].Package, was[i].Suite, was[i].Case}] = &was[i]
	}
	var out []Change
	seen := map[key]bool{}
	for i := range now {
		n := &now[i]
		k := key{n.Package, n.Suite, n.Case}
		seen[k] = true
		w, ok := old[k]
		if !ok {
			out = append(out, Change{Package: n.Package, Suite: n.Suite, Case: n.Case, Kind: Added, Now: n})
			continue
		}
		out = append(out, compareCase(w, n))
	}
	for i := range was {
		w := &was[i]
		if !seen[key{w.Package, w.Suite, w.Case}] {
			out = append(out, Change{Package: w.Package, Suite: w.Suite, Case: w.Case, Kind: Removed, Was: w})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		if out[i].Suite != out[j].Suite {
			return out[i].Suite < out[j].Suite
		}
		return out[i].Case < out[j].Case
	})
	return out
}

func compareCase(w, n *Result) Change {
	c := Change{Package: n.Package, Suite: n.Suite, Case: n.Case, Kind: Same, Was: w, Now: n}
	values := func(r *Result) map[string]float64 {
		m := map[string]float64{}
		for _, s := range r.Scores {
			m[s.Name] = s.Value
		}
		return m
	}
	wv, nv := values(w), values(n)
	var names []string
	for _, s := range n.Scores {
		names = append(names, s.Name)
	}
	for _, s := range w.Scores {
		if _, ok := nv[s.Name]; !ok {
			names = append(names, s.Name)
		}
	}
	fell, rose := false, false
	for _, name := range names {
		sc := ScoreChange{Name: name, Was: wv[name], Now: nv[name]}
		switch d := sc.Delta(); {
		case d < -scoreEpsilon:
			fell = true
		case d > scoreEpsilon:
			rose = true
		default:
			continue
		}
		c.Scores = append(c.Scores, sc)
	}
	switch {
	case w.Passed && !n.Passed, fell:
		c.Kind = Regressed
	case !w.Passed && n.Passed, rose:
		c.Kind = Improved
	}
	return c
}

// WriteTable writes the changes as a table, one case a line: its name, whether it passed in each run, how it
// changed, and the scores that moved. With all false, cases that did not change are left out.
func WriteTable(w io.Writer, changes []Change, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\twas\tnow\tchange\tscores")
	status := func(r *Result) string {
		switch {
		case r == nil:
			return "-"
		case r.Passed:
			return "pass"
		}
		return "FAIL"
	}
	for _, c := range changes {
		if c.Kind == Same && !all {
			continue
		}
		name := CaseName(c.Package, c.Suite, c.Case)
		moved := make([]string, len(c.Scores))
		for i, s := range c.Scores {
			moved[i] = fmt.Sprintf("%s %.2f→%.2f (%+.2f)", s.Name, s.Was, s.Now, s.Delta())
		}
		detail := strings.Join(moved, ", ")
		if c.Now != nil && !c.Now.Passed && c.Now.Reason != "" && (c.Kind == Regressed || c.Kind == Added) {
			if detail != "" {
				detail += "; "
			}
			detail += clip(c.Now.Reason)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, status(c.Was), status(c.Now), c.Kind, oneLine(detail))
	}
	return tw.Flush()
}

// oneLine makes s fit a table's cell: its line breaks and tabs become spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// CaseName names a case in reports: its package, suite and name joined by slashes, leaving out those that are
// empty ("examples/support/TestEvals/close_waits").
func CaseName(pkg, suite, name string) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{pkg, suite, name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}
