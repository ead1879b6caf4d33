package agent

// A Declaration is what the generator reads from an agent's Declare method and writes, per agent, as Go code: the
// facts that cannot be recovered at run time without reflection, such as the tool names that the method
// expressions of [ToolsetUse.Include] and [ToolsetUse.Exclude] stand for.
//
// Generated code makes the agent implement [Declared]. Tests and agents written without the generator may
// implement it by hand. When an agent does not implement it, the host uses what the chains recorded and refuses
// picks, whose meaning it cannot know.
type Declaration struct {
	// Name names the agent, such as "Support".
	Name string
	// Uses describes the toolset uses in the order Declare makes them.
	Uses []UseDeclaration
	// Configurable lists the chat options a tenant may set, by their settings names:
	// "provider", "model", "fallback", "temperature", "top_p", "max_tokens", "seed", "stop". Nil means: those the
	// chains marked Configurable.
	Configurable []string
	// SettingsKind is the kind under which the agent's settings are stored, such as "example.com/support.Support".
	// Empty means the agent's Name.
	SettingsKind string
	// SettingsVersion is the schema version of the agent's generated Settings type.
	SettingsVersion int
}

// A UseDeclaration says what one [Use] offers.
type UseDeclaration struct {
	// Index is the position of the Use call in Declare, from 0.
	Index int
	// Include, when not empty, lists the only tool names offered (the toolset's own names).
	Include []string
	// Exclude lists tool names not offered.
	Exclude []string
}

// Declared is implemented by an agent's generated code. It is for generated code (see the package doc).
type Declared interface {
	TypeshiftDeclaration() Declaration
}
