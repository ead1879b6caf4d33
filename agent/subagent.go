package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
	"github.com/typeshift-go/typeshift/toolset/tooljson"
)

// DefaultMaxDepth is how deep sub-agents may nest unless [SubAgentMaxDepth] says otherwise: a run may start a
// sub-agent, whose run may start another, down to this many levels below the first run.
const DefaultMaxDepth = 4

// subAgentSchema is the arguments' schema of every sub-agent tool.
var subAgentSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"task":{"type":"string","description":"The task for the agent, complete enough to be done without this conversation."},` +
	`"context":{"type":"string","description":"Facts from this conversation the agent needs, such as names, ids and what was tried."}` +
	`},"required":["task"],"additionalProperties":false}`)

// A SubAgentOption configures the tool [AsTool] makes.
type SubAgentOption func(*subAgent)

// SubAgentName names the tool. The default is "ask_" and the agent's name in snake case, such as ask_billing.
func SubAgentName(name string) SubAgentOption { return func(s *subAgent) { s.name = name } }

// SubAgentDescription tells the calling model what the agent is for and when to delegate to it. The default
// names the agent only, which rarely tells a model enough: describe what it knows and can do.
func SubAgentDescription(text string) SubAgentOption {
	return func(s *subAgent) { s.description = text }
}

// SubAgentMaxDepth bounds how deeply sub-agents nest below the first run; a call that would go deeper fails with a
// [DepthError] the model reads. Zero or less means [DefaultMaxDepth].
func SubAgentMaxDepth(n int) SubAgentOption { return func(s *subAgent) { s.maxDepth = n } }

// SubAgentApproval makes each call of the tool wait for approval, as any tool that requires approval does.
func SubAgentApproval() SubAgentOption { return func(s *subAgent) { s.approval = true } }

// subAgent is what the tool of one delegate host knows.
type subAgent struct {
	host        *Host
	name        string
	description string
	maxDepth    int
	approval    bool
}

// AsTool offers host's agent to other agents as a tool. The calling model passes a task (and, optionally, context
// from its own conversation); the tool runs host to the end of its turn and returns its final text.
//
// The delegate runs as the caller: with its settings id, in its mode and with its standing approvals, so a tenant's
// settings, plan mode and what the user approved for the rest of the conversation hold below it too. The
// delegate's token usage adds to the caller's [Result.Usage]. A delegate that stops with approval requests of its
// own does not finish: the tool fails with a [SubAgentApprovalError] that tells the model which calls needed
// approval. The tool is read-only, since in plan mode the delegate offers only read-only tools itself; a delegate
// in plan mode that presents its plan (calls exit_plan_mode) returns that plan as its answer.
//
// The tool's [toolset.State.Delegate] is host, in the tool and in every prefixed or renamed copy. Offer it with
// [toolset.List], such as Config.Tools: []toolset.Source{toolset.List{agent.AsTool(billing)}}. See
// docs/sub-agents.md. A nil host gives a nil tool, which a run that offers it reports as an error.
func AsTool(host *Host, opts ...SubAgentOption) *toolset.Tool {
	if host == nil {
		return nil
	}
	s := &subAgent{host: host}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.name == "" {
		s.name = subAgentToolName(host.Name())
	}
	if s.description == "" {
		s.description = fmt.Sprintf("Delegates a task to the %s agent and returns its answer. Give it the whole task: it does not see this conversation.", host.Name())
	}
	if s.maxDepth <= 0 {
		s.maxDepth = DefaultMaxDepth
	}
	return &toolset.Tool{
		Name:             s.name,
		Description:      s.description,
		Schema:           subAgentSchema,
		ReadOnly:         true,
		RequiresApproval: s.approval,
		ID:               "typeshift.subagent." + host.Name(),
		Invoke:           s.invoke,
		State:            &toolset.State{Delegate: host},
	}
}

// SubAgents offers each host's agent as a tool made by [AsTool] with its defaults, for Config.Tools A nil host
// gives a nil tool, as with AsTool.
func SubAgents(hosts ...*Host) toolset.List {
	l := make(toolset.List, len(hosts))
	for i, h := range hosts {
		l[i] = AsTool(h)
	}
	return l
}

// subAgentToolName is ask_ and name in snake case, keeping only what tool names allow, or ask_agent when nothing
// of the name is left.
func subAgentToolName(name string) string {
	if out := agentToolName("ask_", name); toolset.ValidName(out) {
		return out
	}
	return "ask_agent"
}

// DepthError reports a sub-agent call that would nest deeper than the limit. The calling model reads it.
type DepthError struct {
	// Agent is the delegate's name.
	Agent string
	// Limit is the deepest nesting allowed.
	Limit int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("agent %s was not asked: sub-agents are already nested %d deep, the limit; do the task yourself or answer with what you have", e.Agent, e.Limit)
}

// SubAgentApprovalError reports a delegate that stopped because calls of its own wait for approval, which a
// sub-agent cannot ask for. The calling model reads it; Pending holds the requests for the application.
type SubAgentApprovalError struct {
	// Agent is the delegate's name.
	Agent string
	// Pending are the delegate's open requests.
	Pending []chat.ApprovalRequest
	// Text is what the delegate wrote before it stopped, if anything.
	Text string
}

func (e *SubAgentApprovalError) Error() string {
	names := make([]string, 0, len(e.Pending))
	for _, r := range e.Pending {
		if !slices.Contains(names, r.Call.Name) {
			names = append(names, r.Call.Name)
		}
	}
	msg := fmt.Sprintf("agent %s did not finish the task: it needs approval to call %s, and a sub-agent cannot ask for approval. "+
		"Tell the user which approval is needed, or do the task another way.", e.Agent, strings.Join(names, ", "))
	if e.Text != "" {
		msg += " What it wrote before it stopped: " + e.Text
	}
	return msg
}

// depthKey is the context key of the nesting depth of a sub-agent's run: 1 for a delegate of the first run.
type depthKey struct{}

// inheritStanding seeds a sub-agent's run with the standing approvals of the run that called it.
func inheritStanding(s []standingApproval) RunOption {
	return func(r *runInput) { r.standing = s }
}

// invoke runs the delegate with the task as its input.
func (s *subAgent) invoke(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	task, extra, err := decodeTask(call.Arguments)
	if err != nil {
		return nil, err
	}
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= s.maxDepth {
		return nil, &DepthError{Agent: s.host.Name(), Limit: s.maxDepth}
	}
	ctx = context.WithValue(ctx, depthKey{}, depth+1)

	input := task
	if extra != "" {
		input += "\n\nContext:\n" + extra
	}
	opts := []RunOption{Text(input)}
	if r := call.Run; r != nil {
		opts = append(opts, SettingsID(r.SettingsID), Mode(r.Mode))
	}
	caller, _ := ctx.Value(callerKey{}).(*inherited)
	if caller != nil && len(caller.standing) > 0 {
		opts = append(opts, inheritStanding(caller.standing))
	}
	res, err := s.host.Run(ctx, opts...)
	if caller != nil && res != nil && ctx.Err() == nil {
		caller.costs.addCost(res.Cost)
		caller.usage.add(res.Usage) // not for a call the caller abandoned at its timeout: its run may be over
	}
	if err != nil {
		return nil, fmt.Errorf("agent %s failed: %w", s.host.Name(), err)
	}
	if len(res.Pending) == 1 && res.Pending[0].ToolID == ExitPlanModeID {
		// In plan mode the delegate ends by presenting a plan: that plan is its answer, for the caller (in plan
		// mode too) to take into its own.
		text := fmt.Sprintf("%s is in plan mode, changed nothing, and proposes this plan:\n%s", s.host.Name(), planOf(res.Pending[0].Call.Arguments))
		return tooljson.AppendString(nil, text), nil
	}
	if len(res.Pending) > 0 {
		return nil, &SubAgentApprovalError{Agent: s.host.Name(), Pending: res.Pending, Text: res.Text()}
	}
	if res.Answer != nil {
		return res.Answer, nil // a typed answer goes to the caller as the JSON it is
	}
	return tooljson.AppendString(nil, res.Text()), nil
}

// planOf returns the plan of exit_plan_mode's arguments, or the arguments themselves when they hold none.
func planOf(args json.RawMessage) string {
	d := tooljson.NewDecoder(args)
	plan := ""
	if d.Object() {
		for {
			k, ok := d.Field()
			if !ok {
				break
			}
			if string(k) == "plan" {
				plan = d.String()
			} else {
				d.Skip()
			}
		}
	}
	if d.Err() != nil || plan == "" {
		return string(args)
	}
	return plan
}

// decodeTask reads the arguments {"task": ..., "context": ...}.
func decodeTask(args json.RawMessage) (task, extra string, err error) {
	d := tooljson.NewDecoder(args)
	seen := false
	if d.Object() {
		for {
			k, ok := d.Field()
			if !ok {
				break
			}
			switch string(k) {
			case "task":
				task, seen = d.String(), true
			case "context":
				if !d.Null() {
					extra = d.String()
				}
			default:
				d.Unknown(k, "task, context")
			}
		}
		if !seen {
			d.Missing("task")
		}
	}
	d.End()
	if err := d.Err(); err != nil {
		return "", "", err
	}
	if strings.TrimSpace(task) == "" {
		return "", "", &tooljson.Error{Path: "task", Message: `"task" is empty: say what the agent should do`}
	}
	return task, extra, nil
}
