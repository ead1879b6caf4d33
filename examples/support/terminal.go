package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
)

// A terminal shows runs as labelled lines and asks the person at it to answer approval requests.
type terminal struct {
	in   *bufio.Reader
	out  io.Writer
	echo bool // print the answers read, when they do not come from a keyboard
	yes  bool // approve without asking
	told bool // the note on answering without input was printed
	// tools is the last list of offered tools printed.
	tools string
	// inText is set while the model's text is being printed.
	inText bool
	// mode is the mode last shown; calls maps the call ids of the run to their tools' names.
	mode  string
	calls map[string]string
}

// label prints one line under a label; later lines of text are indented under the first.
func (t *terminal) label(name, text string) {
	t.endText()
	fmt.Fprintf(t.out, "%-9s%s\n", name, strings.ReplaceAll(text, "\n", "\n"+strings.Repeat(" ", 9)))
}

func (t *terminal) heading(text string) {
	t.endText()
	fmt.Fprintf(t.out, "\n== %s ==\n", text)
}

func (t *terminal) endText() {
	if t.inText {
		fmt.Fprintln(t.out)
		t.inText = false
	}
}

// show prints one update of a run as it arrives.
func (t *terminal) show(u chat.Update) {
	for _, p := range u.Parts {
		switch p := p.(type) {
		case chat.Text:
			if !t.inText {
				fmt.Fprintf(t.out, "%-9s", "support")
				t.inText = true
			}
			fmt.Fprint(t.out, strings.ReplaceAll(p.Text, "\n", "\n"+strings.Repeat(" ", 9)))
		case chat.ToolCall:
			t.calls[p.ID] = p.Name
			if p.Name == agent.ExitPlanModeTool {
				t.label("call", p.Name+" (the plan above)")
			} else {
				t.label("call", p.Name+" "+short(p.Arguments))
			}
		case chat.ToolResult:
			switch {
			case p.Error != "":
				t.label("error", p.Error)
			case t.calls[p.CallID] == agent.ExitPlanModeTool:
				t.setMode(agent.ModeDefault, "the plan is approved: every tool is offered again")
			case string(p.Result) == "null":
				t.label("result", "done")
			default:
				t.label("result", short(p.Result))
			}
		}
	}
}

// setMode shows the mode when it changes.
func (t *terminal) setMode(mode, why string) {
	if mode == t.mode {
		return
	}
	t.mode = mode
	name := mode
	if mode == agent.ModeDefault {
		name = "default"
	}
	if why != "" {
		name += " (" + why + ")"
	}
	t.label("mode", name)
}

// ask asks whether a pending call may run, and returns the answer for the next run.
func (t *terminal) ask(p chat.ApprovalRequest) agent.RunOption {
	question := "Approve? [y/n]"
	if p.Call.Name == agent.ExitPlanModeTool {
		var args struct{ Plan string }
		_ = json.Unmarshal(p.Call.Arguments, &args)
		t.label("plan", args.Plan)
		question = "Approve the plan? [y/n]"
	} else {
		t.label("approval", p.Call.Name+" "+short(p.Call.Arguments))
	}
	fmt.Fprintf(t.out, "%9s%s ", "", question)
	if t.yes {
		fmt.Fprintln(t.out, "y (-yes)")
		return agent.Approve(p.ID)
	}
	answer, ok := t.read()
	if !ok {
		if t.told {
			fmt.Fprintln(t.out, "y (no input)")
		} else {
			fmt.Fprintln(t.out, "y (no input: approving; run it at a terminal to answer, or pass -yes)")
			t.told = true
		}
		return agent.Approve(p.ID)
	}
	if a := strings.ToLower(answer); a == "y" || a == "yes" {
		return agent.Approve(p.ID)
	}
	fmt.Fprintf(t.out, "%9sReason (optional): ", "")
	why, _ := t.read()
	return agent.Reject(p.ID, why)
}

// read reads one line of input; false means there is none left.
func (t *terminal) read() (string, bool) {
	line, err := t.in.ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	line = strings.TrimSpace(line)
	if t.echo {
		fmt.Fprintln(t.out, line)
	}
	return line, true
}

// showTools is a chat.Middleware below the tool loop: it sees the tools of each model call, and prints them when
// they change, as they do when a run enters or leaves plan mode.
func (t *terminal) showTools(next chat.Client) chat.Client { return &toolsLine{next: next, t: t} }

type toolsLine struct {
	next chat.Client
	t    *terminal
}

func (c *toolsLine) note(opts *chat.Options) {
	if opts == nil || len(opts.Tools) == 0 {
		return // the last call of a run's budget offers none: not a change worth showing
	}
	names := make([]string, len(opts.Tools))
	for i, tool := range opts.Tools {
		names[i] = tool.Name
	}
	if s := strings.Join(names, ", "); s != c.t.tools {
		c.t.tools = s
		c.t.label("tools", s)
	}
}

func (c *toolsLine) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	c.note(opts)
	return c.next.Respond(ctx, msgs, opts)
}

func (c *toolsLine) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	c.note(opts)
	return c.next.Stream(ctx, msgs, opts)
}

// short returns JSON on one line, cut to fit.
func short(b json.RawMessage) string {
	const max = 90
	s := strings.Join(strings.Fields(string(b)), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
