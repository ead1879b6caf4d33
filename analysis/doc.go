// Package analysis defines the typeshift analyzer, which checks toolset and agent declarations inside go vet.
//
// The analyzer reads declarations with the same parser as the generator (cmd/typeshift), so a package it finds
// clean is a package the generator reads in full. Run it with the typeshift-vet command:
//
//	go install github.com/typeshift-go/typeshift/cmd/typeshift-vet
//	go vet -vettool=$(go env GOPATH)/bin/typeshift-vet ./...
//
// or on its own, as typeshift-vet ./... . docs/diagnostics.md shows each diagnostic with a wrong and a right
// example.
//
// # Analyzer typeshift
//
// typeshift: check toolset and agent declarations for the typeshift generator
//
// Every diagnostic starts with a stable code, which is also its category. go vet has no severities: whatever is
// reported fails it. The -skip flag turns codes off, such as the warning TSH009.
//
// TSH003: AddTool takes something other than a method value of the toolset (t.Search) or a package-level
// function: a variable, a closure, a call result.
//
// TSH004: a tool's method cannot be bound: its parameters are not in the order context.Context, input struct,
// settings struct, *toolset.Call; the input is not a struct or there is more than one; or a channel, func,
// unsafe.Pointer or complex type appears in its input or its result.
//
// TSH007: two tools share a name, within the package, between the package and the packages it imports, or between
// two toolsets one agent uses, or a tool takes a name Typeshift reserves (the plan mode and handoff tools).
//
// TSH008: a tool's WithName argument is not lower_snake_case (the suggested fix uses the snake_case form), or an
// agent's WithName argument is not a string constant.
//
// TSH009 (warning): a tool has neither a doc comment on its method nor WithDescription.
//
// TSH010: the generated file typeshift_gen.go is missing, out of date, left over in a package without toolsets,
// or not written by typeshift. The generator writes a fingerprint of what it read (the model) under the file's
// header; the analyzer compares it with the fingerprint of the model it parsed, without generating the file. When
// the file is only out of date, the suggested fix rewrites it. Edits by hand below the fingerprint are left to CI's
// go generate and git diff. The check waits until the package has no other errors (the generator writes nothing
// until then), and -generated=false turns it off.
//
// TSH014: an AddTool chain, or an agent's agent.Use chain or agent.Returns call, is not a statement directly in
// Declare: it sits in a loop, a condition, a variable, a helper or a closure, where the generator cannot read it.
//
// TSH015: a tool's chain is split over several statements, or its builder is kept in a variable.
//
// TSH017: a toolset type has type parameters, or gets toolset.Toolset through another type instead of
// embedding it.
//
// TSH018: the value given to WithSettings has a type other than the method's settings parameter, or a constant
// in its literal that the field's jsonschema tag refuses (a Days of 90 where the tag says maximum=28; a field
// left out counts as its zero value).
//
// TSH019: a settings field marked configurable has a type that stored settings cannot hold.
//
// TSH020: a tool's input or result holds a type the generator cannot describe as JSON, a //typeshift:enum mark
// on a type that is not a string, or an unexported field with a json or jsonschema tag that JSON leaves out.
//
// TSH021: a jsonschema struct tag cannot be read: an unknown key, a malformed value, or a constraint that does
// not fit the field's type.
//
// TSH022 (information, off unless -fielddocs is set): an input field has no description, so the model has
// only its name to go by. Booleans and fields whose values are enumerated are exempt.
//
// TSH025: a jsonschema tag reads, but its keywords contradict each other or the field: a minimum above its
// maximum, a default outside its bounds, enum, length or pattern, an enum value the field's own enumerated type or
// bounds refuse, or an enum or default on a field with the ,string option.
//
// TSH023: agent.Use names a type that is not a toolset.
//
// TSH024: an agent's Include or Exclude picks a method that is not a tool of the toolset, or something other than
// a method expression of it. A toolset of another package is known by the tools its source declares, from the
// facts of the imported packages, so a pick that its out-of-date generated code still allows is caught too.
//
// TSH026: agent.Returns names a type that cannot be an agent's answer: not a named struct type, or a pointer
// to one (the suggested fix drops the pointer). The answer struct's fields are checked as a tool input's are, with
// the same codes (TSH004, TSH020, TSH021, TSH025) at the field.
//
// TSH027: an agent calls agent.Returns twice; an agent has one answer type. The suggested fix removes the second
// call.
//
// TSH030: the generated file would declare an identifier twice: a method added as a tool twice (a method is one
// tool, under one name), two tools whose
// toolset and method names run together alike (Ticket.SearchX and TicketSearch.X both give TicketSearchXID), or
// a name the package declares itself, such as a type SupportSettings beside an agent Support.
//
// Toolsets declared in _test.go files are not checked: the generator does not read test files either.
package analysis
