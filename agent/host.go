package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"iter"
	"slices"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/toolset"
)

// regenerate is the advice an error about generated code gives: the generator's own command, which works in a
// module with no //go:generate line.
const regenerate = "run go tool typeshift generate ./... at the module's root (go run github.com/typeshift-go/typeshift/cmd/typeshift generate ./... where go.mod has no tool directive for it)"

// NewHost returns a host for the agent a, a pointer to a struct that embeds [Agent]. It runs a's Declare once and
// binds its toolset uses to the instances in cfg.Toolsets.
func NewHost(a Declarer, cfg Config) (*Host, error) {
	ag, err := declare(a)
	if err != nil {
		return nil, err
	}
	if err := checkConfig(a, ag, cfg); err != nil {
		return nil, err
	}
	h := &Host{cfg: cfg, agent: ag, exitPlan: newExitPlanTool()}
	h.useFeeds()
	if h.answer, err = newAnswerSpec(a, ag, cfg.AnswerMode); err != nil {
		return nil, err
	}
	if d, ok := a.(Declared); ok {
		h.decl = d.TypeshiftDeclaration()
	} else {
		h.decl = Declaration{Name: "agent"}
		for _, u := range ag.uses {
			if u.includes+u.excludes > 0 {
				return nil, fmt.Errorf("agent %T picks tools with Include or Exclude but has no generated declaration: %s", a, regenerate)
			}
			h.decl.Uses = append(h.decl.Uses, UseDeclaration{Index: u.index})
		}
	}
	if ag.name != "" {
		h.decl.Name = ag.name
	}
	if h.decl.Configurable == nil {
		h.decl.Configurable = ag.configurable
	}
	if h.decl.SettingsKind == "" {
		h.decl.SettingsKind = h.decl.Name
	}
	if len(h.decl.Uses) != len(ag.uses) {
		return nil, fmt.Errorf("agent %s makes %d toolset uses but its declaration knows %d: %w", h.decl.Name, len(ag.uses), len(h.decl.Uses), toolset.ErrStale)
	}
	for _, d := range h.decl.Uses {
		if d.Index < 0 || d.Index >= len(ag.uses) {
			return nil, fmt.Errorf("agent %s: declaration names use %d of %d: %w", h.decl.Name, d.Index, len(ag.uses), toolset.ErrStale)
		}
		u := ag.uses[d.Index]
		var found []toolset.Source
		for _, s := range cfg.Toolsets {
			if u.match(s) {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			return nil, &UseError{Toolset: u.typeName, Found: len(found)}
		}
		h.uses = append(h.uses, hostUse{src: found[0], include: d.Include, exclude: d.Exclude})
	}
	if o, ok := a.(OwnTools); ok {
		h.own = &ownSource{name: h.decl.Name + " (own tools)", src: o}
	} else if len(ag.tools) > 0 {
		return nil, fmt.Errorf("agent %T adds tools of its own but its generated code does not offer them: %s: %w", a, regenerate, toolset.ErrStale)
	}
	if cfg.Client == nil && cfg.Providers == nil {
		return nil, ErrNoClient
	}
	h.offer = h.combine()
	if err := h.checkSchemas(context.Background()); err != nil {
		return nil, err
	}
	if err := h.AddHandoffs(cfg.Handoffs...); err != nil {
		return nil, err
	}
	h.invoker = chainTools(h.baseInvoke, cfg.ToolMiddleware)
	if cfg.Store != nil {
		h.useStore()
	}
	if cfg.Client != nil {
		// One client whatever the settings say: instrument it once, as the provider the agent names.
		h.fixed = h.instrument(cfg.Client, ag.chat.provider)
	}
	return h, nil
}

// Run runs the agent to the end of its turn: until the model answers without calling tools, the run's budget is
// spent, or approval requests are left. It never returns a nil Result: on an error, the Result holds what the
// run produced before it, which is nothing when the run could not start.
func (h *Host) Run(ctx context.Context, opts ...RunOption) (res *Result, err error) {
	if tel := h.cfg.Telemetry; tel != nil {
		var span *telemetry.AgentSpan
		ctx, span = tel.StartAgent(ctx, h.decl.Name, conversationOf(opts))
		defer func() {
			var usage chat.Usage
			if res != nil {
				usage = res.Usage
			}
			span.End(usage, err)
		}()
	}
	p, in, err := h.prepare(ctx, opts)
	if err != nil {
		return &Result{Agent: h.decl.Name}, err
	}
	resp, err := p.client.Respond(ctx, in.msgs, p.opts)
	return p.result(in, resp), err
}

// RunStream runs the agent as [Host.Run] does and yields its updates as they arrive: model text, tool calls, tool
// results and approval requests. A non-nil error ends the sequence. [ResultInto] receives the Result.
func (h *Host) RunStream(ctx context.Context, opts ...RunOption) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) {
		ctx := ctx
		var runErr error
		var usage chat.Usage
		if tel := h.cfg.Telemetry; tel != nil {
			var span *telemetry.AgentSpan
			ctx, span = tel.StartAgent(ctx, h.decl.Name, conversationOf(opts))
			defer func() { span.End(usage, runErr) }()
		}
		p, in, err := h.prepare(ctx, opts)
		if err != nil {
			runErr = err
			yield(chat.Update{}, err)
			return
		}
		resp, _ := chat.Collect(func(collect func(chat.Update, error) bool) {
			for u, err := range p.client.Stream(ctx, in.msgs, p.opts) {
				if err != nil {
					runErr = err
					collect(u, err)
					return
				}
				if !yield(u, nil) {
					return
				}
				collect(u, nil)
			}
		})
		usage = p.st.usage.total()
		if in.into != nil {
			*in.into = *p.result(in, resp)
		}
		if runErr != nil {
			yield(chat.Update{}, runErr)
		}
	}
}

// prepared is a run ready to start.
type prepared struct {
	st     *runState
	client chat.Client
	opts   *chat.Options
	conv   *conversationRun // nil for a run without a conversation
}

// preparedInput is the run's messages.
type preparedInput struct {
	msgs []chat.Message // history + input
	nIn  int            // len(msgs): where the run's new messages start
	into *Result
}

func (p prepared) result(in preparedInput, resp *chat.Response) *Result {
	last := p.st
	if p.conv != nil {
		last = p.conv.st // the run may have been handed off: the last agent's state is the run's
	}
	res := &Result{Mode: last.session.mode(), Pending: last.session.pending, Usage: p.st.usage.total(), Agent: last.ask.name()}
	res.Cost, _ = p.st.costs.runCost()
	res.Messages = in.msgs
	if resp != nil {
		res.Messages = append(slices.Clip(in.msgs), resp.Messages...)
		res.FinishReason = resp.FinishReason
	}
	res.New = res.Messages[in.nIn:]
	if a := last.stages.answer; a != nil {
		res.Answer, res.Value = a.raw, a.value
		if a.raw != nil {
			res.AnswerType = a.ans.ans.Name
		}
	}
	return res
}

// prepare resolves a run's options, settings and tools, and builds its pipeline.
func (h *Host) prepare(ctx context.Context, opts []RunOption) (prepared, preparedInput, error) {
	// The run's state holds what would otherwise be allocated one by one: the options' target, the resolved
	// settings, the chat options and the pipeline's stages.
	st := &runState{}
	ri := st.ask.begin(h)
	for _, o := range opts {
		if o != nil {
			o(ri)
		}
	}
	in := preparedInput{into: ri.into}
	in.msgs = append(slices.Clip(ri.history), ri.input...)
	if len(ri.parts) > 0 {
		in.msgs = append(in.msgs, chat.Message{Role: chat.RoleUser, Parts: ri.parts})
	}
	in.nIn = len(in.msgs)
	if ri.err != nil {
		return prepared{}, in, ri.err
	}

	// The standing approvals are inherited by a sub-agent's run from its caller (see AsTool).
	st.session.start(toolset.Run{SettingsID: ri.settingsID, ConversationID: ri.conversationID, RunID: newRunID(),
		Agent: h.decl.Name, Mode: ri.mode}, ri.standing)

	// Load: the conversation is claimed and read before anything is decided.
	claimed, err := h.claimFirst(ctx, st, in.msgs)
	if err != nil {
		return prepared{}, in, err
	}
	conv, msgs, err := h.openConversation(ctx, st, in.msgs, claimed)
	if err != nil {
		claimed.drop() // claimed by claimFirst, for a run refused before it took the claim over
		return prepared{}, in, err
	}
	if conv != nil {
		in.msgs, in.nIn = msgs, len(msgs)
	}
	// Decide: the agent whose run it is (the conversation goes to the agent that answered last), and with it the
	// mode and the standing approvals the conversation stored (openConversation).
	run := h
	if conv != nil {
		if run, st, err = h.route(conv, st); err != nil {
			_ = conv.close()
			return prepared{}, in, err
		}
		if run != h {
			claimed = nil // its stored settings are h's
		}
	}
	// Build: the tools, resolved once with the run as it is, and the pipeline, once.
	if run.cfg.Meter != nil && run.advances(ri) {
		st.ahead = &ahead{input: in.msgs}
	}
	client, err := run.resolve(ctx, st, claimed)
	if err != nil {
		st.ahead.drop(ctx, run.runs)
		if conv != nil {
			_ = conv.close()
		}
		if run != h {
			err = fmt.Errorf("handing the conversation to agent %s: %w", run.decl.Name, err)
		}
		return prepared{}, in, err
	}
	return prepared{st: st, client: run.pipeline(st, client, conv), opts: st.ask.options(), conv: conv}, in, nil
}

// combine composes what runs offer: the agent's uses in declaration order, each narrowed by its picks, then the
// agent's own tools, then Config.Tools. In conflict messages, tools[i] counts them in that order; a use with picks is Filtered(...).
func (h *Host) combine() *toolset.Combined {
	srcs := make([]toolset.Source, 0, len(h.uses)+1+len(h.cfg.Tools))
	for _, u := range h.uses {
		if len(u.include)+len(u.exclude) == 0 {
			srcs = append(srcs, u.src)
			continue
		}
		include, exclude := u.include, u.exclude
		srcs = append(srcs, toolset.Filter(u.src, func(_ context.Context, _ *toolset.Run, t *toolset.Tool) (bool, error) {
			return (len(include) == 0 || slices.Contains(include, t.Name)) && !slices.Contains(exclude, t.Name), nil
		}))
	}
	if h.own != nil {
		srcs = append(srcs, h.own)
	}
	srcs = append(srcs, h.cfg.Tools...)
	return toolset.Combine(srcs...)
}

func newRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
