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
// TSH007: two tools share a name, within the package or between the package and the packages it imports, or a
// tool takes a name Typeshift reserves (the plan mode and handoff tools).
//
// TSH008: a WithName argument is not lower_snake_case. The suggested fix uses the snake_case form.
//
// TSH009 (warning): a tool has neither a doc comment on its method nor WithDescription.
//
// TSH010: the generated file typeshift_gen.go is missing, out of date, left over in a package without toolsets,
// or not written by typeshift. The analyzer generates the file in memory with the generator's code and compares
// bytes; when the file is only out of date, the suggested fix rewrites it. The check waits until the package has
// no other errors (the generator writes nothing until then), and -generated=false turns it off, for builds that
// run go generate before go vet anyway. A cache in the user's cache directory (TYPESHIFT_VET_CACHE moves it, "off"
// turns it off) spares generating the file again while the declarations stay the same.
//
// TSH014: an AddTool chain is not a statement directly in Declare: it sits in a loop, a condition, a helper or
// a closure, where the generator cannot read it.
//
// TSH015: a tool's chain is split over several statements, or its builder is kept in a variable.
//
// TSH017: a toolset type has type parameters, or gets toolset.Toolset through another type instead of
// embedding it.
//
// TSH018: the value given to WithSettings has a type other than the method's settings parameter.
//
// TSH019: a settings field marked configurable has a type that stored settings cannot hold.
//
// TSH020: a tool's input or result holds a type the generator cannot describe as JSON.
//
// TSH021: a jsonschema struct tag cannot be read: an unknown key, a malformed value, or a constraint that does
// not fit the field's type.
//
// TSH022 (information, off unless -fielddocs is set): an input field has no description, so the model has
// only its name to go by. Booleans and fields whose values are enumerated are exempt.
//
// TSH023 and TSH024 check agent declarations, against the toolsets of the package and of the packages it
// imports, and are reported once the parser reads agents:
//
// TSH023: agent.Use names a type that is not a toolset.
//
// TSH024: an agent's Include or Exclude picks a method that is not a tool of the toolset.
//
// Toolsets declared in _test.go files are not checked: the generator does not read test files either.
package analysis
