package emit

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// AgentSettingsVersion is the schema version of the Settings types the generator writes today. Raise it when
// their JSON shape changes in a way an older reader would misread.
const AgentSettingsVersion = 1

// settingsField is one field of an agent's generated Settings type.
type settingsField struct {
	goName, jsonName, goType string
	// read is the decoder call that reads the value, write the encoder that appends *v or v.
	read, write string
	// ptr reports a pointer field (nil: not set); otherwise nil slice means not set.
	ptr bool
	// finite marks a float, which JSON cannot hold when NaN or infinite.
	finite bool
	doc    string
}

// chatFields are the chat options' fields, in settings order; a field appears when the agent marks it
// Configurable.
var chatFields = []settingsField{
	{goName: "Provider", jsonName: "provider", goType: "string", read: "d.String()", write: "tooljson.AppendString(b, %s)", ptr: true,
		doc: "Provider names the provider, one registered in the host's chat.Providers."},
	{goName: "Model", jsonName: "model", goType: "string", read: "d.String()", write: "tooljson.AppendString(b, %s)", ptr: true,
		doc: "Model names the model."},
	{goName: "Temperature", jsonName: "temperature", goType: "float64", read: "d.Float(64)", write: "tooljson.AppendFloat(b, %s, 64)", ptr: true, finite: true,
		doc: "Temperature sets the sampling temperature."},
	{goName: "TopP", jsonName: "top_p", goType: "float64", read: "d.Float(64)", write: "tooljson.AppendFloat(b, %s, 64)", ptr: true, finite: true,
		doc: "TopP sets nucleus sampling."},
	{goName: "MaxTokens", jsonName: "max_tokens", goType: "int", read: "int(d.Int(64))", write: "tooljson.AppendInt(b, int64(%s))", ptr: true,
		doc: "MaxTokens bounds the tokens of each response."},
	{goName: "Seed", jsonName: "seed", goType: "int64", read: "d.Int(64)", write: "tooljson.AppendInt(b, %s)", ptr: true,
		doc: "Seed asks the provider for reproducible sampling."},
	{goName: "Stop", jsonName: "stop", goType: "[]string",
		doc: "Stop sets stop sequences; nil leaves the agent's."},
}

// runFields are the run options' fields: always open to settings.
var runFields = []settingsField{
	{goName: "MaxIterations", jsonName: "max_iterations", goType: "int", read: "int(d.Int(64))", write: "tooljson.AppendInt(b, int64(%s))", ptr: true,
		doc: "MaxIterations bounds the model calls of one run (at least 1)."},
	{goName: "MaxRetries", jsonName: "max_retries", goType: "int", read: "int(d.Int(64))", write: "tooljson.AppendInt(b, int64(%s))", ptr: true,
		doc: "MaxRetries bounds how many steps in a row one tool may ask the model to retry."},
	{goName: "MaxConsecutiveErrors", jsonName: "max_consecutive_errors", goType: "int", read: "int(d.Int(64))", write: "tooljson.AppendInt(b, int64(%s))", ptr: true,
		doc: "MaxConsecutiveErrors sets how many rounds in a row may have a failing tool call."},
	{goName: "ConcurrentTools", jsonName: "concurrent_tools", goType: "bool", read: "d.Bool()", write: "tooljson.AppendBool(b, %s)", ptr: true,
		doc: "ConcurrentTools runs the tool calls of one response concurrently."},
}

// toolField is a Settings field holding one tool's overrides.
type toolField struct {
	goName string
	tool   model.UseTool
}

// agent writes an agent's declaration, its Settings type and the Settings' JSON methods.
func (g *gen) agent(a *model.Agent) error {
	t := a.TypeName
	settings := t + "Settings"
	g.needs["agentHelpers"] = true

	g.p("")
	g.p("var _ agent.Declared = (*%s)(nil)", t)
	g.p("")
	g.p("// TypeshiftDeclaration returns what the generator read from %s's Declare method: the tool names its picks", t)
	g.p("// stand for, the chat options a tenant may set and the kind of its settings.")
	g.p("func (a *%s) TypeshiftDeclaration() agent.Declaration {", t)
	g.p("return agent.Declaration{")
	g.p("Name: %q,", a.Name)
	if len(a.Uses) > 0 {
		g.p("Uses: []agent.UseDeclaration{")
		for i, u := range a.Uses {
			fields := []string{fmt.Sprintf("Index: %d", i)}
			if len(u.IncludeNames) > 0 {
				fields = append(fields, "Include: "+stringsLiteral(u.IncludeNames))
			}
			if len(u.ExcludeNames) > 0 {
				fields = append(fields, "Exclude: "+stringsLiteral(u.ExcludeNames))
			}
			g.p("{%s}, // %s", strings.Join(fields, ", "), u.Toolset)
		}
		g.p("},")
	}
	g.p("Configurable: %s,", stringsLiteral(a.Configurable))
	g.p("SettingsKind: %sKind,", settings)
	g.p("SettingsVersion: %sVersion,", settings)
	g.p("}")
	g.p("}")

	chat := chatFieldsOf(a)
	tools := toolFieldsOf(a, chat)
	g.p("")
	g.p("// The kind and schema version of %s's stored settings: storage.Document's Kind and SchemaVersion.", t)
	g.p("const (")
	g.p("%sKind = %q", settings, g.pkg.Path+"."+t)
	g.p("%sVersion = %d", settings, AgentSettingsVersion)
	g.p(")")
	g.p("")
	g.p("// %s are the settings a tenant's stored document or a run may give %s, typed: the chat options its", settings, t)
	g.p("// Declare marks Configurable, the run options and the overrides of its tools' configurable settings. A nil")
	g.p("// field leaves the value of the layer below. Its JSON is the document agent.RunSettings and stored settings take.")
	g.p("type %s struct {", settings)
	for _, f := range append(chat, runFields...) {
		g.p("// %s", f.doc)
		if f.ptr {
			g.p("%s *%s", f.goName, f.goType)
		} else {
			g.p("%s %s", f.goName, f.goType)
		}
	}
	for _, f := range tools {
		g.p("// %s overrides the configurable settings of %s (%s): a JSON object of their json names.", f.goName, f.tool.Name, f.tool.ID)
		g.p("%s json.RawMessage", f.goName)
	}
	g.p("// Tools holds the overrides of other tools, keyed by tool ID (toolset.Tool.ID) or by the name offered.")
	g.p("Tools map[string]json.RawMessage")
	g.p("}")

	g.settingsMarshal(settings, chat, tools)
	g.settingsUnmarshal(settings, chat, tools)

	g.p("")
	g.p("// Document returns the settings as the stored document of the tenant settingsID, with their kind and schema")
	g.p("// version, for a storage.SettingsStore's PutSettings.")
	g.p("func (s %s) Document(settingsID string) (storage.Document, error) {", settings)
	g.p("data, err := s.MarshalJSON()")
	g.p("if err != nil {")
	g.p("return storage.Document{}, err")
	g.p("}")
	g.p("return storage.Document{SettingsID: settingsID, Kind: %sKind, SchemaVersion: %sVersion, Data: data}, nil", settings, settings)
	g.p("}")
	if len(a.Tools) > 0 {
		return g.ownTools(a)
	}
	return nil
}

// ownTools writes the agent.OwnTools method of an agent that adds tools of its own, and the tools, as a
// toolset's are written.
func (g *gen) ownTools(a *model.Agent) error {
	t := a.TypeName
	build := "typeshift" + ident(t) + "Tools"
	g.p("")
	g.p("var _ agent.OwnTools = (*%s)(nil)", t)
	g.p("")
	g.p("// TypeshiftTools returns the tools %s adds itself, made once from the chains its Declare method records.", t)
	g.p("func (a *%s) TypeshiftTools(ctx context.Context, run *toolset.Run) ([]*toolset.Tool, error) {", t)
	g.p("return a.%s.DeclaredTools(a, %d, func(chains []*toolset.ToolBuilder) ([]*toolset.Tool, error) {", cmp.Or(a.Field, "Agent"), len(a.Tools))
	g.p("return %s(a, chains)", build)
	g.p("})")
	g.p("}")
	return g.toolsBuild(&model.Toolset{TypeName: t, Tools: a.Tools}, build)
}

// chatFieldsOf returns the fields of the chat options an agent marks Configurable.
func chatFieldsOf(a *model.Agent) []settingsField {
	var out []settingsField
	for _, f := range chatFields {
		for _, c := range a.Configurable {
			if c == f.jsonName {
				out = append(out, f)
			}
		}
	}
	return out
}

// toolFieldsOf names a field per offered tool with configurable settings, away from the other fields' names.
func toolFieldsOf(a *model.Agent, chat []settingsField) []toolField {
	taken := map[string]bool{"Tools": true}
	for _, f := range append(append([]settingsField(nil), chat...), runFields...) {
		taken[f.goName] = true
	}
	var out []toolField
	for _, u := range a.Uses {
		for _, t := range u.Configurable {
			name := ident(t.Name) + "Overrides"
			for i := 2; taken[name]; i++ {
				name = fmt.Sprintf("%sOverrides%d", ident(t.Name), i)
			}
			taken[name] = true
			out = append(out, toolField{goName: name, tool: t})
		}
	}
	return out
}

// settingsMarshal writes the Settings' MarshalJSON: the set fields only, tools under "tools".
func (g *gen) settingsMarshal(settings string, chat []settingsField, tools []toolField) {
	g.p("")
	g.p("// MarshalJSON writes the settings document: only the fields that are set.")
	g.p("func (s %s) MarshalJSON() ([]byte, error) {", settings)
	g.p("b := append(make([]byte, 0, 64), '{')")
	for _, f := range append(append([]settingsField(nil), chat...), runFields...) {
		v := "s." + f.goName
		if !f.ptr { // stop: a []string
			g.p("if %s != nil {", v)
			g.p("b = typeshiftSettingsKey(b, %q)", f.jsonName)
			g.p("b = append(b, '[')")
			g.p("for i, v := range %s {", v)
			g.p("if i > 0 {")
			g.p("b = append(b, ',')")
			g.p("}")
			g.p("b = tooljson.AppendString(b, v)")
			g.p("}")
			g.p("b = append(b, ']')")
			g.p("}")
			continue
		}
		g.p("if %s != nil {", v)
		if f.finite {
			g.p("if !tooljson.FloatOK(*%s) {", v)
			g.p("return nil, fmt.Errorf(\"settings: %s: %%v is not a JSON number\", *%s)", f.jsonName, v)
			g.p("}")
		}
		g.p("b = typeshiftSettingsKey(b, %q)", f.jsonName)
		g.p("b = "+f.write, "*"+v)
		g.p("}")
	}
	cond := []string{"len(s.Tools) > 0"}
	for _, f := range tools {
		cond = append(cond, fmt.Sprintf("len(s.%s) > 0", f.goName))
	}
	g.p("if %s {", strings.Join(cond, " || "))
	g.p("b = append(typeshiftSettingsKey(b, \"tools\"), '{')")
	for _, f := range tools {
		g.p("if len(s.%s) > 0 {", f.goName)
		g.p("if !tooljson.RawOK(s.%s) {", f.goName)
		g.p("return nil, fmt.Errorf(\"settings: %s: not one JSON value\")", f.goName)
		g.p("}")
		g.p("b = tooljson.AppendRaw(typeshiftSettingsKey(b, %q), s.%s)", f.tool.ID, f.goName)
		g.p("}")
	}
	g.p("for _, k := range slices.Sorted(maps.Keys(s.Tools)) {")
	g.p("if !tooljson.RawOK(s.Tools[k]) {")
	g.p("return nil, fmt.Errorf(\"settings: tools: %%q: not one JSON value\", k)")
	g.p("}")
	g.p("b = tooljson.AppendRaw(typeshiftSettingsKey(b, k), s.Tools[k])")
	g.p("}")
	g.p("b = append(b, '}')")
	g.p("}")
	g.p("return append(b, '}'), nil")
	g.p("}")
}

// settingsUnmarshal writes the Settings' UnmarshalJSON, which refuses what the agent would refuse: an unknown key
// or a chat option the agent keeps fixed.
func (g *gen) settingsUnmarshal(settings string, chat []settingsField, tools []toolField) {
	fields := append(append([]settingsField(nil), chat...), runFields...)
	var known []string
	for _, f := range fields {
		known = append(known, f.jsonName)
	}
	known = append(known, "tools")
	g.p("")
	g.p("// UnmarshalJSON reads a settings document, checking its types and keys as the agent will.")
	g.p("func (s *%s) UnmarshalJSON(data []byte) error {", settings)
	g.p("*s = %s{}", settings)
	g.p("d := tooljson.NewDecoder(data)")
	g.p("if !d.Null() && d.Object() {")
	g.p("for {")
	g.p("key, ok := d.Field()")
	g.p("if !ok {")
	g.p("break")
	g.p("}")
	g.p("switch string(key) {")
	for _, f := range fields {
		g.p("case %q:", f.jsonName)
		v := "s." + f.goName
		g.p("if d.Null() {")
		g.p("%s = nil", v)
		if f.ptr {
			g.p("} else {")
			g.p("v := %s", f.read)
			g.p("%s = &v", v)
			g.p("}")
			continue
		}
		g.p("} else if d.Array() {")
		g.p("%s = []string{}", v)
		g.p("for d.Elem() {")
		g.p("%s = append(%s, d.String())", v, v)
		g.p("}")
		g.p("}")
	}
	g.p("case \"tools\":")
	g.p("if !d.Null() && d.Object() {")
	g.p("for {")
	g.p("tool, ok := d.Field()")
	g.p("if !ok {")
	g.p("break")
	g.p("}")
	g.p("switch string(tool) {")
	for _, f := range tools {
		g.p("case %q:", f.tool.ID)
		g.p("s.%s = d.Raw()", f.goName)
	}
	g.p("default:")
	g.p("if s.Tools == nil {")
	g.p("s.Tools = map[string]json.RawMessage{}")
	g.p("}")
	g.p("s.Tools[string(tool)] = d.Raw()")
	g.p("}")
	g.p("}")
	g.p("}")
	g.p("default:")
	g.p("d.Unknown(key, %q)", strings.Join(known, ", "))
	g.p("}")
	g.p("}")
	g.p("}")
	g.p("d.End()")
	g.p("return d.Err()")
	g.p("}")
}

// agentHelpers writes the helpers the agents' code uses.
func (g *gen) agentHelpers() {
	if !g.needs["agentHelpers"] {
		return
	}
	g.p("")
	g.p("// typeshiftSettingsKey appends an object's key, after a comma unless it is the first.")
	g.p("func typeshiftSettingsKey(b []byte, key string) []byte {")
	g.p("if b[len(b)-1] != '{' {")
	g.p("b = append(b, ',')")
	g.p("}")
	g.p("return append(tooljson.AppendString(b, key), ':')")
	g.p("}")
}

// stringsLiteral spells a []string literal; nil becomes an empty, non-nil slice.
func stringsLiteral(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}
