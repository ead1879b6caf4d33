package toolset

// A ToolBuilder describes one tool in a toolset's Declare method. Its calls are read by the generator from the
// source; at run time they record only the values generated code reads back, such as default settings.
type ToolBuilder struct {
	fn              any
	name            string
	description     string
	readOnly        bool
	requireApproval bool
	settings        any
	hasSettings     bool
}

// NewToolBuilder returns a builder for fn, for types other than Toolset that record tool chains, such as an
// agent's own tools. Only the generator reads what it describes; at run time it records the same values. It is
// for generated code and package agent (see the package doc).
func NewToolBuilder(fn any) *ToolBuilder { return &ToolBuilder{fn: fn} }

// WithName names the tool instead of the snake_case form of its method's name. The name must be
// lower_snake_case and unique. Pin a tool's name before renaming its method: stored settings key on it.
func (b *ToolBuilder) WithName(name string) *ToolBuilder { b.name = name; return b }

// WithDescription describes the tool instead of its method's doc comment.
func (b *ToolBuilder) WithDescription(text string) *ToolBuilder { b.description = text; return b }

// ReadOnly marks a tool that changes nothing. Plan mode offers only read-only tools.
func (b *ToolBuilder) ReadOnly() *ToolBuilder { b.readOnly = true; return b }

// RequiresApproval makes each call of the tool wait for approval before it runs.
func (b *ToolBuilder) RequiresApproval() *ToolBuilder { b.requireApproval = true; return b }

// WithSettings gives the tool settings the model never sees, with these defaults. The method takes the settings
// struct as the parameter after its input. Fields tagged `typeshift:"configurable"` may be overridden by stored
// settings and by a run.
func (b *ToolBuilder) WithSettings(defaults any) *ToolBuilder {
	b.settings, b.hasSettings = defaults, true
	return b
}

// WithConfigurableSettings is WithSettings with every field configurable except those NotConfigurable names.
func (b *ToolBuilder) WithConfigurableSettings(defaults any) *ToolBuilder {
	return b.WithSettings(defaults)
}

// Configurable opens the settings fields with these json names to stored settings and runs, as the
// `typeshift:"configurable"` tag does.
func (b *ToolBuilder) Configurable(jsonNames ...string) *ToolBuilder { return b }

// NotConfigurable keeps the settings fields with these json names in code after WithConfigurableSettings.
func (b *ToolBuilder) NotConfigurable(jsonNames ...string) *ToolBuilder { return b }

// Settings returns the defaults given to WithSettings. It is for generated code (see the package doc).
func (b *ToolBuilder) Settings() (any, bool) { return b.settings, b.hasSettings }

// Func returns the function given to AddTool. It is for generated code (see the package doc) and tests.
func (b *ToolBuilder) Func() any { return b.fn }
