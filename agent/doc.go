// Package agent runs agents over toolsets.
//
// An agent is a struct that embeds [Agent] and describes itself in a Declare method: its instructions, its chat
// options and which of them a tenant may change, its run options, and the toolsets it uses:
//
//	type Support struct{ agent.Agent }
//
//	func (a *Support) Declare() {
//		a.WithInstructions("You help customers with their support tickets.")
//		a.WithModel("openai", "gpt-4.1-mini").Configurable()
//		agent.Use[*Tickets](a).Exclude((*Tickets).CloseTicket)
//	}
//
// A [Host] runs it with the toolset instances and a model client:
//
//	host, err := agent.NewHost(&Support{}, agent.Config{
//		Toolsets:  []toolset.Source{&Tickets{Client: client}},
//		Providers: providers,
//	})
//	res, err := host.Run(ctx, agent.Text("Where is ticket 4711?"), agent.SettingsID("tenant-42"))
//
// # A run
//
// A run is a chain of [chat.Client] decorators over the provider's client. The chain is listed in one place, the
// source of pipeline.go (and described in docs/how-a-run-works.md), with what each stage reads and writes of the
// run: the conversation, run middleware ([Config.Middleware]), context providers, approval and modes, the tool
// loop, the checkpoints, [Config.Inner] (where compaction goes), and the provider's client.
// The tool loop calls the model and the tools it asks for until the model answers in text, bounded by the run's
// budget of model calls. Every error a model can cause (bad arguments, an unknown or hidden tool, a failing or
// panicking tool) goes back to it as a message it can act on.
//
// # Approval and modes
//
// Calls to tools that require approval wait. Rules, standing approvals and auto mode answer what they can; the
// rest end the run with [Result.Pending], answered in the next run with [Approve] or [Reject]. In plan mode the run
// offers only read-only tools and exit_plan_mode, whose approval ends plan mode.
//
// # Conversations
//
// With [Config.Store] and [Conversation], a run continues a stored conversation: it claims it (one live run per
// conversation, across processes with Postgres), loads its history, pending approval requests, mode and standing
// approvals, stores each step before the next model call, and releases it at the end. The caller passes only the
// new input or the answers. [Host.Steer] stores input for a conversation's live run, which takes it in before its
// next model call or keeps it in the conversation; [Host.Watch] and [Host.WatchAfter] follow its streaming runs,
// resuming after an update's id. See docs/conversations.md.
//
// # Settings and telemetry
//
// Each run applies settings layers over the code's defaults: the tenant's stored settings ([Config.Settings],
// [StoredSettings]) and the run's ([RunSettings]), including per-tool overrides. With [Config.Telemetry] a run
// is traced and measured with OpenTelemetry.
//
// See docs/defining-agents.md, docs/how-a-run-works.md, docs/tool-approval.md, docs/tool-settings.md and
// docs/conversations.md.
//
// # For generated code
//
// These names exist for the code the typeshift generator writes, and are not for programs to call: [Declared] and
// the [Declaration] (with its [UseDeclaration]s) it returns, what the generator read from an agent's Declare
// method; [OwnTools], the agent's own tools; [Agent.DeclaredTools], which builds them; and [Answered], whose
// [AnswerType] describes the answer type an agent declares with [Returns] (see docs/typed-answers.md). A test may implement
// Declared by hand for an agent written without the generator. The package the generated decoders and encoders
// use is [github.com/typeshift-go/typeshift/toolset/tooljson]; the names of package toolset for generated code are
// listed in its own such section.
package agent
