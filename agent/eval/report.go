package eval

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes results as an indented JSON array: each case, whether it passed and why not, and its scores.
func WriteJSON(w io.Writer, results []Result) error {
	if results == nil {
		results = []Result{}
	}
	b, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes results as JUnit XML, which CI systems show: a test suite per suite the results name
// (Result.Package and Result.Suite; suite names those that name none), a test case per eval case, a failure with its reason for
// each case that did not pass, and the scores as the case's output.
func WriteJUnit(w io.Writer, suite string, results []Result) error {
	var suites []junitSuite
	at := map[string]int{}
	for _, r := range results {
		name := r.Suite
		if name == "" {
			name = suite
		}
		if r.Package != "" {
			name = r.Package + "/" + name
		}
		i, ok := at[name]
		if !ok {
			i = len(suites)
			at[name] = i
			suites = append(suites, junitSuite{Name: name})
		}
		s := &suites[i]
		s.Tests++
		c := junitCase{Name: r.Case, Classname: name}
		var out strings.Builder
		for _, sc := range r.Scores {
			fmt.Fprintf(&out, "%s %.2f: %s\n", sc.Name, sc.Value, sc.Reason)
		}
		if r.Runs > 0 {
			fmt.Fprintf(&out, "%d of %d runs passed\n", r.PassedRuns, r.Runs)
		}
		c.SystemOut = out.String()
		if !r.Passed {
			s.Failures++
			c.Failure = &junitFailure{Message: r.Reason, Type: "eval", Text: out.String()}
		}
		s.Cases = append(s.Cases, c)
	}
	if len(suites) == 0 {
		suites = []junitSuite{{Name: suite}}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(junitSuites{Suites: suites}); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
