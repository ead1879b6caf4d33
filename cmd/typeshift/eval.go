package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/storage"
)

// runEval is "typeshift eval": it runs eval suites, compares two result files, or makes a case of a conversation.
func runEval(ctx context.Context, args []string) error {
	return evalCommand(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

func evalCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "compare":
			return evalCompare(args[1:], stdout, stderr)
		case "case":
			return evalCase(args[1:], stdin, stdout, stderr)
		}
	}
	return evalRun(ctx, args, stdout, stderr)
}

const evalUsage = `usage: typeshift eval [-run regexp] [-baseline file] [-o file] [-junit file] [-live] [-k n] [-all] [-v] [packages]
       typeshift eval compare [-all] old.json new.json
       typeshift eval case [-name name] [-settings-id id] [file]

typeshift eval runs the eval suites of the packages (default ".") with go test:
every test that calls eval.RunCases and matches -run writes its results, which
typeshift eval gathers, prints, and writes as JSON (-o) and JUnit XML (-junit).
With -baseline, an earlier -o file, it prints a table of the cases that changed
and exits with status 1 on a regression: a case that passed and fails now, a
score that fell (by how much is in the table), or a new case that fails.
Without it, it exits with status 1 when a case fails. The suites replay their
cassettes unless -live, which sets TYPESHIFT_EVAL_LIVE=1 for suites that build
a live host (and -k n, TYPESHIFT_EVAL_K, runs each case n times: pass@k).

typeshift eval compare does the same for two result files.

typeshift eval case reads a conversation as JSON from file or standard input:
the HTTP API's GET /conversations/{id}, or messages (an array, or an object
with "messages"). It prints an eval case of its last turn: the question, the
tool calls made and the answer as expectations to edit.

`

// evalRun runs the suites with go test and reports, or compares with the baseline.
func evalRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, evalUsage); fs.PrintDefaults() }
	run := fs.String("run", ".", "run only the tests matching `regexp` (go test -run)")
	baseline := fs.String("baseline", "", "compare with the results in `file`, written by -o earlier")
	out := fs.String("o", "", "write the results as JSON to `file`")
	junitOut := fs.String("junit", "", "write the results as JUnit XML to `file`")
	live := fs.Bool("live", false, "run against the live model (TYPESHIFT_EVAL_LIVE=1) instead of the cassettes")
	k := fs.Int("k", 0, "with -live, run each case `n` times (TYPESHIFT_EVAL_K)")
	all := fs.Bool("all", false, "list the cases that did not change too")
	verbose := fs.Bool("v", false, "print go test's output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *k < 0 || (*k > 0 && !*live) {
		return errors.New("eval: -k needs -live and a count above 0: a replayed case runs as often as it was recorded")
	}
	var was []eval.Result
	if *baseline != "" {
		var err error
		if was, err = readResults(*baseline); err != nil {
			return err
		}
	}
	pkgs := fs.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	dir, err := os.MkdirTemp("", "typeshift-eval-")
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer os.RemoveAll(dir)

	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1", "-run", *run}, pkgs...)...)
	cmd.Env = append(os.Environ(), eval.EnvResults+"="+dir)
	if *live {
		cmd.Env = append(cmd.Env, eval.EnvLive+"=1")
		if *k > 0 {
			cmd.Env = append(cmd.Env, eval.EnvRepeat+"="+strconv.Itoa(*k))
		}
	} else {
		cmd.Env = append(cmd.Env, eval.EnvLive+"=")
	}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if *verbose {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&log, stderr), io.MultiWriter(&log, stderr)
	}
	testErr := cmd.Run()
	if testErr != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	now, err := gather(dir)
	if err != nil {
		return err
	}
	if len(now) == 0 {
		if !*verbose {
			stderr.Write(log.Bytes())
		}
		if testErr != nil {
			return fmt.Errorf("eval: go test failed before any suite wrote results: %w", testErr)
		}
		return fmt.Errorf("eval: no test matching -run %q in %v runs an eval suite (eval.RunCases)", *run, pkgs)
	}
	if *out != "" {
		if err := writeFile(*out, func(w io.Writer) error { return eval.WriteJSON(w, now) }); err != nil {
			return err
		}
	}
	if *junitOut != "" {
		if err := writeFile(*junitOut, func(w io.Writer) error { return eval.WriteJUnit(w, "eval", now) }); err != nil {
			return err
		}
	}
	failed := report(stdout, was, now, *baseline != "", *all)
	if testErr != nil && !failed && !anyFailed(now) {
		// Every case passed, yet go test failed: something else in the run did.
		if !*verbose {
			stderr.Write(log.Bytes())
		}
		return fmt.Errorf("eval: go test failed although every case passed: %w", testErr)
	}
	if failed {
		return errReported
	}
	return nil
}

// report prints the results, or their changes from was, and says whether they should fail the command.
func report(w io.Writer, was, now []eval.Result, compare, all bool) bool {
	passed := 0
	for _, r := range now {
		if r.Passed {
			passed++
		}
	}
	fmt.Fprintf(w, "%d cases, %d passed, %d failed\n", len(now), passed, len(now)-passed)
	if !compare {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range now {
			if r.Passed && !all {
				continue
			}
			status, why := "pass", ""
			if !r.Passed {
				status, why = "FAIL", r.Reason
			}
			if r.Runs > 0 {
				why = strings.TrimPrefix(fmt.Sprintf("%s; %d of %d runs passed", why, r.PassedRuns, r.Runs), "; ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", eval.CaseName(r.Package, r.Suite, r.Case), status, strings.Join(strings.Fields(why), " "))
		}
		tw.Flush()
		return passed < len(now)
	}
	changes := eval.Compare(was, now)
	failing := 0
	for _, c := range changes {
		if c.Failing() {
			failing++
		}
	}
	regressed, improved := 0, 0
	for _, c := range changes {
		switch c.Kind {
		case eval.Regressed:
			regressed++
		case eval.Improved:
			improved++
		}
	}
	fmt.Fprintf(w, "against the baseline: %d regressed, %d improved\n", regressed, improved)
	eval.WriteTable(w, changes, all)
	return failing > 0
}

func anyFailed(rs []eval.Result) bool {
	for _, r := range rs {
		if !r.Passed {
			return true
		}
	}
	return false
}

// gather reads the results the suites wrote to dir, in order of suite and case.
func gather(dir string) ([]eval.Result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var all []eval.Result
	for _, f := range files {
		rs, err := readResults(f)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Package != all[j].Package {
			return all[i].Package < all[j].Package
		}
		if all[i].Suite != all[j].Suite {
			return all[i].Suite < all[j].Suite
		}
		return all[i].Case < all[j].Case
	})
	return all, nil
}

func readResults(name string) ([]eval.Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	rs, err := eval.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rs, nil
}

func writeFile(name string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// evalCompare compares two result files.
func evalCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, evalUsage); fs.PrintDefaults() }
	all := fs.Bool("all", false, "list the cases that did not change too")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errors.New("eval compare: give two result files, the old one first")
	}
	was, err := readResults(fs.Arg(0))
	if err != nil {
		return err
	}
	now, err := readResults(fs.Arg(1))
	if err != nil {
		return err
	}
	if report(stdout, was, now, true, *all) {
		return errReported
	}
	return nil
}

// maxConversation bounds the conversation file eval case reads.
const maxConversation = 64 << 20

// evalCase prints a case made of a conversation's last turn.
func evalCase(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval case", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, evalUsage); fs.PrintDefaults() }
	name := fs.String("name", "", "the case's `name` (default: the file's name, when it is saved as name.json)")
	settingsID := fs.String("settings-id", "", "the tenant the case runs for")
	if err := fs.Parse(args); err != nil {
		return err
	}
	in := stdin
	if fs.NArg() > 1 {
		return errors.New("eval case: give one conversation file, or none to read standard input")
	}
	if fs.NArg() == 1 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("eval case: %w", err)
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(io.LimitReader(in, maxConversation+1))
	if err != nil {
		return fmt.Errorf("eval case: %w", err)
	}
	if len(data) > maxConversation {
		return fmt.Errorf("eval case: the conversation is larger than %d MiB", maxConversation>>20)
	}
	c, err := readCase(data)
	if err != nil {
		return fmt.Errorf("eval case: %w", err)
	}
	c.Name, c.SettingsID = *name, *settingsID
	out, err := c.MarshalIndent()
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// readCase makes a case of a conversation: an array of messages in chat.Message's JSON form, an object holding
// one under "messages", or the HTTP API's conversation (GET /conversations/{id}), whose "entries" hold them.
func readCase(data []byte) (*eval.Case, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var doc struct {
			Messages []chat.Message `json:"messages"`
			Entries  []struct {
				Type string          `json:"type"`
				Data json.RawMessage `json:"data"`
			} `json:"entries"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("the conversation is not JSON messages: %w", err)
		}
		if doc.Entries != nil {
			entries := make([]storage.Entry, len(doc.Entries))
			for i, e := range doc.Entries {
				entries[i] = storage.Entry{Type: storage.EntryType(e.Type), Data: e.Data}
			}
			return eval.FromEntries(entries)
		}
		if doc.Messages == nil {
			return nil, errors.New(`the object has no "messages" and no "entries"`)
		}
		return eval.FromMessages(doc.Messages)
	}
	var msgs []chat.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, fmt.Errorf("the conversation is not JSON messages: %w", err)
	}
	return eval.FromMessages(msgs)
}
