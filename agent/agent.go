package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// Agent is embedded in a struct to make it an agent. The struct's Declare method describes the agent with chains
// on the embedded Agent, one statement each:
//
//	type Support struct{ agent.Agent }
//
//	func (a *Support) Declare() {
//		a.WithInstructions("You help customers with their support tickets.")
//		a.WithModel("openai", "gpt-4.1-mini").Configurable()
//		a.WithTemperature(0.2).Configurable()
//		a.WithMaxIterations(20)
//		agent.Use[*Tickets](a).Exclude((*Tickets).CloseTicket)
//	}
//
// At run time the chains only record values (instructions, option defaults, which options a tenant may set). What
// a pick such as (*Tickets).CloseTicket means is decided by generated code: see [Declaration].
type Agent struct {
	name         string
	instructions string
	chat         chatDefaults
	runOpts      runDefaults
	configurable []string
	uses         []*ToolsetUse
	answers      []string   // the type names Returns recorded (returns.go)
	answering    answerDecl // how the typed answer is asked for and checked (answermode.go)
	declared     bool

	// tools are the chains of the agent's own tools; own, ownErr what generated code built from them, once.
	tools   []*toolset.ToolBuilder
	ownOnce sync.Once
	own     []*toolset.Tool
	ownErr  error
}

// chatDefaults are the chat options an agent's code sets.
type chatDefaults struct {
	provider    string
	model       string
	fallback    []chat.Route
	temperature *float64
	topP        *float64
	maxTokens   *int
	seed        *int64
	stop        []string
}

// runDefaults are the run options an agent's code sets; zero values mean the package defaults.
type runDefaults struct {
	maxIterations        *int
	maxRetries           *int
	maxConsecutiveErrors *int
	concurrentTools      bool
}

// A Declarer is an agent: a pointer to a struct that embeds [Agent] and describes the agent in its Declare method.
type Declarer interface {
	Declare()
	base() *Agent
}

func (a *Agent) base() *Agent { return a }

// WithName names the agent in telemetry and in the author name of its messages. The default is the struct's type
// name as the generated declaration gives it, or "agent".
func (a *Agent) WithName(name string) { a.name = name }

// WithInstructions sets the system instructions the model reads first.
func (a *Agent) WithInstructions(text string) { a.instructions = text }

// An OptionBuilder refines one option an agent sets.
type OptionBuilder struct {
	a    *Agent
	name string
}

// Configurable lets stored settings and a run's settings change the option. Options are fixed in code unless
// marked.
func (b *OptionBuilder) Configurable() *OptionBuilder {
	if !slices.Contains(b.a.configurable, b.name) {
		b.a.configurable = append(b.a.configurable, b.name)
	}
	return b
}

func (a *Agent) option(name string) *OptionBuilder { return &OptionBuilder{a: a, name: name} }

// WithModel sets the provider (a name registered in the host's [chat.Providers]) and the model. Marking it
// Configurable opens both "provider" and "model" to settings.
func (a *Agent) WithModel(provider, model string) *OptionBuilder {
	a.chat.provider, a.chat.model = provider, model
	return a.option(optionModel)
}

// WithFallback sets the models a run moves on to, in order, when the model of [Agent.WithModel] keeps failing
// with a rate limit, an overload, a server error or an answer cut short (see [chat.Fallback]). A route with no
// provider takes the provider before it. The list is open to settings ("fallback") when the model is: a tenant
// that may choose its model may store its own list.
func (a *Agent) WithFallback(routes ...chat.Route) {
	a.chat.fallback = append([]chat.Route(nil), routes...)
}

// WithTemperature sets the sampling temperature.
func (a *Agent) WithTemperature(t float64) *OptionBuilder {
	a.chat.temperature = &t
	return a.option(optionTemperature)
}

// WithTopP sets nucleus sampling.
func (a *Agent) WithTopP(p float64) *OptionBuilder {
	a.chat.topP = &p
	return a.option(optionTopP)
}

// WithMaxTokens bounds the tokens of each response.
func (a *Agent) WithMaxTokens(n int) *OptionBuilder {
	a.chat.maxTokens = &n
	return a.option(optionMaxTokens)
}

// WithSeed asks the provider for reproducible sampling.
func (a *Agent) WithSeed(seed int64) *OptionBuilder {
	a.chat.seed = &seed
	return a.option(optionSeed)
}

// WithStop sets stop sequences.
func (a *Agent) WithStop(stop ...string) *OptionBuilder {
	a.chat.stop = stop
	return a.option(optionStop)
}

// WithMaxIterations bounds the model calls of one run (default 40). Run options are always open to settings.
func (a *Agent) WithMaxIterations(n int) { a.runOpts.maxIterations = &n }

// WithMaxRetries bounds how many steps in a row one tool may ask the model to retry (default 3).
func (a *Agent) WithMaxRetries(n int) { a.runOpts.maxRetries = &n }

// WithMaxConsecutiveErrors sets how many rounds in a row may have a failing tool call before the run ends
// (default 3; 0 ends the run at the first failing round).
func (a *Agent) WithMaxConsecutiveErrors(n int) { a.runOpts.maxConsecutiveErrors = &n }

// WithConcurrentTools runs the tool calls of one response concurrently instead of in order.
func (a *Agent) WithConcurrentTools() { a.runOpts.concurrentTools = true }

// AddTool registers one of the agent's own tools. fn is a method value of the agent, such as a.Escalate, or a
// package-level function, with the signature a toolset's tools have. The returned builder describes the tool
// further; chain its calls in the same statement. The agent offers its own tools after those of its uses.
func (a *Agent) AddTool(fn any) *toolset.ToolBuilder {
	b := toolset.NewToolBuilder(fn)
	a.tools = append(a.tools, b)
	return b
}

// OwnTools is implemented by the generated code of an agent that adds tools of its own. The host offers them as
// a source of their own, after the agent's uses. It is for generated code (see the package doc).
type OwnTools interface {
	TypeshiftTools(ctx context.Context, run *toolset.Run) ([]*toolset.Tool, error)
}

// DeclaredTools runs d's Declare once (d is the agent that embeds a), checks that it added as many tools as the
// generated code knows (n), and builds them once with build. Later calls return the same tools. It is for
// generated code (see the package doc).
func (a *Agent) DeclaredTools(d Declarer, n int, build func([]*toolset.ToolBuilder) ([]*toolset.Tool, error)) ([]*toolset.Tool, error) {
	if _, err := declare(d); err != nil {
		return nil, err
	}
	a.ownOnce.Do(func() {
		if len(a.tools) != n {
			a.ownErr = fmt.Errorf("agent %T adds %d tools but its generated code knows %d: %w", d, len(a.tools), n, toolset.ErrStale)
			return
		}
		a.own, a.ownErr = build(a.tools)
	})
	if a.ownErr != nil {
		return nil, a.ownErr
	}
	return append([]*toolset.Tool(nil), a.own...), nil
}

// The names of the chat options in settings documents and in [Declaration.Configurable].
const (
	optionProvider = "provider"
	optionModel    = "model"
	// optionFallback is open to settings wherever optionModel is.
	optionFallback    = "fallback"
	optionTemperature = "temperature"
	optionTopP        = "top_p"
	optionMaxTokens   = "max_tokens"
	optionSeed        = "seed"
	optionStop        = "stop"
)

// declare runs the agent's Declare once and returns the recorded values.
func declare(d Declarer) (a *Agent, err error) {
	if d == nil {
		return nil, errors.New("agent: the agent is nil")
	}
	func() {
		// A nil pointer to the agent's struct cannot reach its embedded Agent; without reflect, recovering is how
		// we tell.
		defer func() {
			if recover() != nil {
				a = nil
			}
		}()
		a = d.base()
	}()
	if a == nil {
		return nil, fmt.Errorf("agent: the agent is a nil %T", d)
	}
	if a.declared {
		return a, nil
	}
	func() {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("agent %T: Declare panicked: %v", d, v)
			}
		}()
		d.Declare()
	}()
	if err != nil {
		return nil, err
	}
	// WithModel marked Configurable opens the provider too.
	if slices.Contains(a.configurable, optionModel) && !slices.Contains(a.configurable, optionProvider) {
		a.configurable = append(a.configurable, optionProvider)
	}
	a.declared = true
	return a, nil
}

// A ToolsetUse records that an agent offers the tools of a toolset type. Its picks narrow what is offered.
type ToolsetUse struct {
	index    int
	typeName string
	match    func(toolset.Source) bool
	includes int
	excludes int
}

// Include offers only the tools of these methods, given as method expressions such as (*Tickets).GetTicket, so
// that the compiler checks them. Which tool names they mean is written by the generator into the agent's
// [Declaration]; at run time the values themselves are not read.
func (u *ToolsetUse) Include(methods ...any) *ToolsetUse {
	u.includes += len(methods)
	return u
}

// Exclude offers every tool of the toolset except those of these methods. See [ToolsetUse.Include].
func (u *ToolsetUse) Exclude(methods ...any) *ToolsetUse {
	u.excludes += len(methods)
	return u
}
