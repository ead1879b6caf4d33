// Package toolset declares tools as Go methods and offers them to a language model.
//
// A toolset is a struct that embeds [Toolset]. Its Declare method registers each tool with one builder chain:
//
//	type Tickets struct {
//		toolset.Toolset
//		Client TicketClient
//	}
//
//	func (t *Tickets) Declare() {
//		t.WithDisplayName("Tickets")
//		t.AddTool(t.SearchTickets).ReadOnly().WithSettings(SearchSettings{Limit: 20})
//		t.AddTool(t.CloseTicket).RequiresApproval()
//	}
//
// Running `go generate` (the typeshift generator) reads those chains, the methods' signatures, their input
// structs and their doc comments, and writes a file with each tool's JSON schema as a literal and typed code that
// decodes the model's arguments, calls the method and encodes its result. The generated file makes the toolset a
// [Source]; nothing at run time reflects over the struct.
//
// # Tools and sources
//
// A [Tool] is what a model sees (name, description, schema) plus what the run needs (read-only and approval
// flags, an identity that survives renaming, and the invoker). A [Source] yields the tools offered for one turn.
// Sources compose: see [Prefix], [Rename], [Filter], [Combine] and [Wrap].
//
// # Errors a model can cause
//
// Bad arguments yield an [*ArgumentError] naming the JSON path; a tool may ask the model to try again with
// [Retry]; a panicking tool yields a [*PanicError]. All of them are messages for the model, never crashes.
//
// # For generated code
//
// These names exist for the code the typeshift generator writes (and for package agent, which records an agent's
// own tools as a toolset does), and are not for programs to call: [Toolset.Declared], which runs Declare once and
// builds the tools; [ToolBuilder.Settings] and [ToolBuilder.Func], which read a chain back; and [NewToolBuilder].
// Generated code reports [ErrStale] when it no longer matches the Declare method; a program may test for it with
// errors.Is. The generated decoders and encoders use package
// [github.com/typeshift-go/typeshift/toolset/tooljson], which is for generated code as a whole.
package toolset
