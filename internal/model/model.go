// Package model holds what the parser reads from a package's toolsets and agents, as plain data for the
// emitter and the analyzer. Models carry no positions and no go/types objects.
package model

import "strings"

// Package is everything the generator writes one file for.
type Package struct {
	// Path is the package's import path and Name its name.
	Path, Name string
	// Toolsets and Agents are in source order.
	Toolsets []*Toolset
	Agents   []*Agent
	// Types are the named struct types that tools take or return, keyed by Type.Key. Fields, tool inputs,
	// settings and results refer to them with Kind Named.
	Types map[string]*Type
	// Imports maps the import path of every other package that a GoType spelling names to the name it is
	// spelled with, such as "time" for "time.Time".
	Imports map[string]string
}

// Toolset is a struct that embeds toolset.Toolset and declares tools.
type Toolset struct {
	// TypeName is the Go type's name, such as "Tickets".
	TypeName string
	// Doc is the type's doc comment.
	Doc string
	// Tools are in the order of their AddTool chains in Declare.
	Tools []*Tool
	// Field names the embedded toolset.Toolset field when it is not Toolset: the name of an alias it is
	// embedded through.
	Field string `json:",omitempty"`
}

// Tool is one AddTool chain and the method it names.
type Tool struct {
	// Method is the Go method name (or function name when Func is true).
	Method string
	// Func reports a package-level function rather than a method of the toolset.
	Func bool
	// Name is the tool's name: WithName's or the snake_case method name.
	Name string
	// Description is WithDescription's text or the method's doc comment.
	Description string
	// ReadOnly and RequiresApproval mirror the chain's calls.
	ReadOnly, RequiresApproval bool

	// HasContext reports a first context.Context parameter.
	HasContext bool
	// Input is the input struct's type, or nil for a tool that takes no input. It is a Kind Named reference
	// to Package.Types.
	Input *Type
	// Settings is the settings struct's type when WithSettings is used, else nil; a Kind Named reference.
	Settings *Type
	// Configurable lists the json names of the settings fields that stored settings and runs may override.
	Configurable []string
	// HasCall reports a trailing *toolset.Call parameter.
	HasCall bool
	// Result describes what the method returns.
	Result Result
}

// ResultKind says how a tool's method returns its result.
type ResultKind int

const (
	// ResultNone: the method returns nothing or only an error.
	ResultNone ResultKind = iota
	// ResultValue: the method returns T or (T, error).
	ResultValue
	// ResultSeq: the method returns iter.Seq[T], read to its end and sent as one array.
	ResultSeq
	// ResultSeq2: the method returns iter.Seq2[T, error], read to its end or its first error.
	ResultSeq2
)

// Result is a tool method's result shape.
type Result struct {
	Kind ResultKind
	// Type is T (the element type for streams), nil for ResultNone.
	Type *Type
	// HasError reports a trailing error result.
	HasError bool
}

// Kind is the JSON-relevant kind of a Go type.
type Kind int

const (
	Invalid Kind = iota
	Bool
	Int   // Bits: 8, 16, 32, 64 (int is 64)
	Uint  // Bits: 8, 16, 32, 64
	Float // Bits: 32, 64
	String
	Bytes   // []byte, base64 as encoding/json does
	Time    // time.Time, RFC 3339 date-time
	Raw     // json.RawMessage or any: any JSON value
	Struct  // Fields
	Slice   // Elem
	Array   // Elem, Len
	Map     // string keys, Elem
	Pointer // Elem; nullable
	Named   // a reference to Package.Types[Ref]; lets recursive types terminate
	Number  // json.Number: a JSON number kept as the literal it was written as
)

// Type describes a Go type as JSON sees it.
type Type struct {
	Kind Kind
	// Bits is the size of Int, Uint and Float kinds.
	Bits int
	// GoType is the type as generated code spells it in the package, such as "SearchInput", "[]string",
	// "time.Time" or "*Filter".
	GoType string
	// Key names a named type for Package.Types (its qualified name, such as "example.com/x.Filter").
	// For Kind Named it is the type this reference points to.
	Key string
	// Doc is a named type's doc comment.
	Doc string
	// Elem is the element type of Slice, Array, Map and Pointer.
	Elem *Type
	// Len is an Array's length.
	Len int
	// Fields are a Struct's fields as encoding/json sees them: embedded structs flattened, "-" dropped.
	Fields []*Field
	// Enum lists the allowed values of a named string type whose constants the user asked to enumerate,
	// as JSON literals.
	Enum []string
	// Nullable reports a type that accepts null: pointers, slices (including []byte), maps, Raw.
	Nullable bool
	// MapKey is the GoType of a Map's key: "string" or a named string type.
	MapKey string
	// HasIsZero reports a type with an IsZero() bool method, which the omitzero option calls.
	HasIsZero bool
	// Marshaler reports a result type that implements json.Marshaler or encoding.TextMarshaler (Kind Raw):
	// generated encoders hand it to encoding/json. Input types never have it; the parser reports them.
	Marshaler bool
	// Any reports the empty interface (Kind Raw): decoded and encoded with encoding/json's rules for any.
	Any bool
	// Layout is a named struct's fields as the compiler sees them, in order, with their tags: one line each,
	// "Name Type `tag`" (or "Type `tag`" for an embedded field), spelled for the generated file. The generated
	// file passes a zero value of the struct where this layout is wanted, so that a struct changed since the file
	// was written fails to compile. Empty for a struct of another package.
	Layout []string `json:",omitempty"`
}

// Field is a struct field as encoding/json sees it.
type Field struct {
	// GoName is the field's Go name; Path is its selector path from the struct: "Base.ID" for a field of an
	// embedded struct, the GoName otherwise.
	GoName, Path string
	// JSONName is the property name.
	JSONName string
	// Type is the field's type.
	Type *Type
	// Required is false for omitempty, omitzero and pointer fields.
	Required bool
	// OmitEmpty and OmitZero mirror the json tag options, for encoding.
	OmitEmpty, OmitZero bool
	// Stringify mirrors the json ",string" option.
	Stringify bool
	// Description comes from the field's doc comment or the jsonschema tag's description.
	Description string
	// Configurable marks a settings field tagged `typeshift:"configurable"`.
	Configurable bool
	// Constraints come from the jsonschema tag. On a slice or array field (or a pointer to one), MinItems and
	// MaxItems apply to the list and the other constraints to its items; on a pointer field they apply to the
	// value it points to.
	Constraints Constraints
}

// Constraints are the JSON Schema keywords a jsonschema struct tag sets. Numbers and defaults are kept as JSON
// literal text so that they are emitted exactly as written.
type Constraints struct {
	Enum                               []string // JSON literals
	Default                            string   // JSON literal, or ""
	Minimum, Maximum                   string   // JSON number literals, or ""
	ExclusiveMinimum, ExclusiveMaximum string
	MinLength, MaxLength               int // -1 when unset
	MinItems, MaxItems                 int // -1 when unset
	Pattern                            string
	Format                             string
	Title                              string
	Examples                           []string // JSON literals
}

// Agent is a struct that embeds agent.Agent and describes itself in its Declare method.
type Agent struct {
	// TypeName is the Go type's name, such as "Support".
	TypeName string
	// Doc is the type's doc comment.
	Doc string
	// Name is WithName's constant, or TypeName.
	Name string
	// Field names the embedded agent.Agent field when it is not Agent: the name of an alias it is embedded
	// through.
	Field string `json:",omitempty"`
	// Configurable lists, in a fixed order, the settings names of the chat options the chains mark
	// Configurable, such as "model" and "temperature"; marking WithModel opens "provider" too.
	Configurable []string
	// Uses are the toolsets the agent offers, in the order of their agent.Use calls.
	Uses []*ToolsetUse
	// Tools are the agent's own tools, in the order of its AddTool chains in Declare.
	Tools []*Tool
	// Answer is the type agent.Returns names, a Kind Named reference to Package.Types, or nil for an agent that
	// answers with text.
	Answer *Type `json:",omitempty"`
}

// ToolsetUse is one agent.Use chain.
type ToolsetUse struct {
	// Toolset is the used toolset's qualified type name, such as "example.com/tickets.Tickets".
	Toolset string
	// Include and Exclude list the picked tools by method name, in the order of the picks.
	Include, Exclude []string
	// IncludeNames and ExcludeNames are the tool names those methods declare, in the same order.
	IncludeNames, ExcludeNames []string
	// Configurable lists the offered tools of the toolset that have configurable settings, when the parser can
	// see them: those of toolsets in the agent's own package.
	Configurable []UseTool
}

// UseTool names a tool an agent offers.
type UseTool struct {
	// Name is the tool's name and ID its identity (toolset.Tool.ID).
	Name, ID string
}

// IDConst names the exported constant that the generated code of a toolset declares for the identity of one of
// its tools (toolset.Tool.ID), such as TicketsCloseTicketID for the method CloseTicket of Tickets. Approval rules
// name tools by it, and the parser reads it from a toolset's package to resolve an agent's picks across packages.
func IDConst(toolsetType, method string) string {
	if i := strings.LastIndex(method, "."); i >= 0 {
		method = method[i+1:] // a function of another package: other.Ping
	}
	return toolsetType + method + "ID"
}
