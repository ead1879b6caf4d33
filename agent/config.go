package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/internal/metering"
	"github.com/typeshift-go/typeshift/agent/telemetry"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/toolset"
)

// Config is what a [Host] runs an agent with. Only a client (Client or Providers) is required.
type Config struct {
	// Toolsets are the toolset instances the agent's [Use] calls pick from, by type. Instances the agent does
	// not use are not offered.
	Toolsets []toolset.Source
	// Tools are offered to every run in addition to the agent's uses, such as composed sources ([toolset.Prefix]
	// and the like), MCP servers' tools or tools built by hand. The uses and Tools are combined by the rules of
	// [toolset.Combine]: a name offered twice fails the run with a [*toolset.ConflictError], except that
	// standalone *toolset.Tool values may repeat a name (the first is offered).
	Tools []toolset.Source

	// Client answers every run when set. Otherwise Providers is asked for the client of the run's provider and
	// model.
	Client    chat.Client
	Providers *chat.Providers
	// AnswerMode, when set, is how runs ask for the typed answer of an agent that declares one (see [Returns]),
	// over the agent's own choice (Agent.WithAnswerMode); a run's [UseAnswerMode] goes over it.
	AnswerMode AnswerMode
	// Retry says how a model call that failed with a rate limit, an overload, a server error or an answer cut
	// short is tried again, inside the run's deadline (see [chat.Retry]); nil means [chat.DefaultRetryPolicy],
	// and MaxAttempts 1 turns retrying off. Each model of a fallback list (see [Agent.WithFallback]) is tried
	// this way before the next is asked.
	Retry *chat.RetryPolicy

	// Settings returns the tenant's stored settings; nil means none, or Store's when Store is set.
	Settings SettingsSource

	// Store keeps the conversations of runs with a [Conversation] id, and, unless Settings is set, the stored
	// settings. See docs/conversations.md.
	Store storage.Store
	// LeaseTTL is how long a run's claim on its conversation lasts unless renewed; zero means 30 seconds.
	// A crashed process's conversations are free again after it.
	LeaseTTL time.Duration
	// Owner names this process in the claims it takes, for people reading the store; "" means host:pid:agent.
	Owner string

	// Middleware wraps each pass of a run, outermost first, streaming included.
	Middleware []chat.Middleware
	// ContextProviders add instructions, messages and tools to each run.
	ContextProviders []ContextProvider
	// Rules decide approval requests before anyone is asked; the first decision other than Ask wins.
	Rules []Rule
	// ApprovalKey authenticates the approval requests the host issues (HMAC-SHA256 over the call), so that a run
	// without a conversation, whose history the caller keeps ([Messages]), binds answers only to requests a host
	// with this key issued. Nil means a random key of the process: such histories verify only in the process
	// that ran them. Give every instance of a service the same secret key when callers keep histories across
	// instances or restarts. Runs with a [Conversation] trust the stored requests and need no key.
	ApprovalKey []byte
	// ToolMiddleware wraps every tool invocation, outermost first.
	ToolMiddleware []ToolMiddleware
	// Inner wraps the provider's client below the tool loop, the checkpoints and the unique call ids, outermost
	// first: the place for compaction, which sees every model call of the loop.
	Inner []chat.Middleware
	// Telemetry, when not nil, traces and measures every run: an invoke_agent span per run, an execute_tool span
	// per tool call and a chat span (with the token and duration metrics) per model call.
	Telemetry *telemetry.Instrumentation
	// Meter, when not nil, prices each model call of a run and may refuse one before it is sent, such as to hold
	// a tenant to a budget (see package budget and docs/budgets.md). A run's cost is in its [Result] and its end
	// entry.
	Meter Meter
	// Instrument, when not nil, wraps the provider's client innermost (inside Telemetry's), for instrumentation
	// of one's own.
	Instrument func(chat.Client) chat.Client

	// HideToolErrors sends the model `tool "x" failed` instead of a failing tool's error message. Retry requests
	// and argument errors are always shown: they are written for the model.
	HideToolErrors bool
	// MaxResultBytes caps the JSON of one tool result; a longer result is cut and the model told so. The images
	// of a toolset.Content result count against it by their size in base64, after its text: one that would pass
	// it is left out, the model told so. Zero means 64 KiB; negative means no cap.
	MaxResultBytes int
	// ToolTimeout bounds each tool call. A tool still running when it passes is abandoned and the model told it
	// timed out. Zero means no bound beyond the run's context.
	ToolTimeout time.Duration
	// Logger receives what the model must not read, such as a panicking tool's value and stack. Nil means
	// [slog.Default] at the time of the log; slog.New(slog.DiscardHandler) discards it.
	Logger *slog.Logger

	// Handoffs are the agents a run with a [Conversation] may hand the conversation to, each offered as a tool
	// handoff_to_<agent>; the conversation's next run goes to the agent that answered last. [Host.AddHandoffs]
	// adds targets after the host exists, for handoffs both ways. See docs/handoff.md.
	Handoffs []Handoff
}

// defaultLeaseTTL is how long a run's claim on its conversation lasts unless renewed, when Config.LeaseTTL is
// zero. The host renews its runs' claims every third of it, all together (see lease.go); a crashed process's
// conversation is free again after it.
const defaultLeaseTTL = 30 * time.Second

// Handoff is an agent a host may hand its conversations to. See docs/handoff.md.
type Handoff struct {
	// To is the host of the agent handed to.
	To *Host
	// Description tells the model when to hand the conversation over. The default names the agent only: say what
	// it knows and can do.
	Description string
}

// A ToolInvoker runs one tool call.
type ToolInvoker func(ctx context.Context, tool *toolset.Tool, call *toolset.Call) (json.RawMessage, error)

// ToolMiddleware wraps every tool invocation of a run: to log, to meter, to check permissions, to change a result.
// An error it returns reaches the model as the tool's error.
type ToolMiddleware func(next ToolInvoker) ToolInvoker

// A Host runs one agent. It is safe for concurrent use: each run builds its own pipeline.
type Host struct {
	cfg   Config
	agent *Agent
	decl  Declaration
	uses  []hostUse
	// own offers the agent's own tools (generated code's OwnTools), or is nil.
	own toolset.Source
	// offer combines the uses (narrowed by their picks) and Config.Tools: the composition's rules find every name
	// conflict, and its filters say which tools they hid.
	offer    *toolset.Combined
	invoker  ToolInvoker
	exitPlan *toolset.Tool
	live     liveRuns // runs holding their conversation, for Steer
	// hub holds the feeds of the conversations the host runs and watches, shared with the hosts it is joined to
	// (live.go).
	hub      atomic.Pointer[feedRegistry]
	handoffs handoffs    // the agents runs may hand their conversation to
	fixed    chat.Client // Config.Client, instrumented
	answer   *answerSpec // the agent's typed answer, or nil (answermode.go)
	// clients keeps the instrumented client of each (provider, model), so the instrumentation's caches live as
	// long as the host.
	clients sync.Map // clientKey -> *instrumented

	// runs is Config.Store's way for runs, looked up once (storeutil.Runs), or nil without a store; leases renews
	// the claims of the live runs; storeSettings says Config.Settings is Config.Store's, so a run may read them
	// with its claim (lease.go).
	runs          storage.RunStore
	advancer      metering.Ahead // Config.Meter, when it reserves a run's first call in runs' BeginRun, or nil
	leases        leaseKeeper
	storeSettings bool
}

type clientKey struct{ provider, model string }

// instrumented is a provider's client and its instrumented form.
type instrumented struct {
	base, wrapped chat.Client
}

// hostUse is one of the agent's toolset uses, bound to its instance.
type hostUse struct {
	src              toolset.Source
	include, exclude []string
}

// ownSource offers an agent's own tools under a name of their own in conflict messages.
type ownSource struct {
	name string
	src  OwnTools
}

// SourceName returns the agent's name followed by "(own tools)".
func (o *ownSource) SourceName() string { return o.name }

// Tools returns the agent's own tools.
func (o *ownSource) Tools(ctx context.Context, run *toolset.Run) ([]*toolset.Tool, error) {
	return o.src.TypeshiftTools(ctx, run)
}

// handoffs are a host's targets, each with its tool.
type handoffs struct {
	mu      sync.RWMutex
	targets []handoffTarget
}

// handoffTarget is one agent a host may hand off to, and the tool that does it.
type handoffTarget struct {
	host *Host
	tool *toolset.Tool
}

// list returns the targets as they are now.
func (hs *handoffs) list() []handoffTarget {
	hs.mu.RLock()
	defer hs.mu.RUnlock()
	return hs.targets
}

// Name returns the agent's name.
func (h *Host) Name() string { return h.decl.Name }

// picked reports whether one of the agent's picks leaves out a tool called name.
func (h *Host) picked(name string) bool {
	for _, u := range h.uses {
		if slices.Contains(u.exclude, name) || (len(u.include) > 0 && !slices.Contains(u.include, name)) {
			return true
		}
	}
	return false
}

// leaseTTL is Config.LeaseTTL, or its default.
func (h *Host) leaseTTL() time.Duration {
	if h.cfg.LeaseTTL > 0 {
		return h.cfg.LeaseTTL
	}
	return defaultLeaseTTL
}
