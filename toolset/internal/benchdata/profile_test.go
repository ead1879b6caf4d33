package benchdata_test

import (
	"strings"
	"testing"

	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/agent/schemaprofile"
	"github.com/typeshift-go/typeshift/internal/schema/schematest"
)

// TestProfilesKeepTheDecodersChecks adapts each fixture tool's schema to every provider profile, writes
// arguments against the adapted schema as a model would, restores them, and holds the generated decoder to the
// original schema on them: it accepts exactly what validation against the original and json.Unmarshal accept.
func TestProfilesKeepTheDecodersChecks(t *testing.T) {
	checked := 0
	for name, fx := range fixtures(t) {
		for _, p := range []*schemaprofile.Profile{schemaprofile.OpenAIStrict, schemaprofile.Gemini} {
			a, err := p.Adapt(name, fx.tool.Schema)
			if err != nil {
				if p == schemaprofile.OpenAIStrict && (strings.Contains(err.Error(), "not declared") || strings.Contains(err.Error(), "any type")) {
					continue // strict mode cannot describe a map or a value of any type; the provider sends the tool as it is
				}
				t.Fatalf("%s: %s: %v", p.Name, name, err)
			}
			checked++
			valid := 0
			for seed := range int64(60) {
				args, err := chattest.GenerateArguments(a.Schema, seed)
				if err != nil {
					t.Fatalf("%s: %s: no arguments for the adapted schema: %v", p.Name, name, err)
				}
				restored := a.Restore(args)
				if diff := fx.compare(restored); diff != "" {
					t.Errorf("%s: %s: %s (restored from %s): %s", p.Name, name, restored, args, diff)
				}
				if schematest.Validate(fx.schema, restored) == nil {
					valid++
				}
			}
			// Strict mode keeps every constraint but lengths and defaults, so arguments written against it,
			// restored, are nearly all ones the tool takes (without the restoring, the nulls of optional fields
			// would fail most). Gemini's profile moves patterns into descriptions: a model reads them there,
			// a schema-driven generator does not, so only the agreement above is held there.
			if p == schemaprofile.OpenAIStrict && valid < 45 {
				t.Errorf("%s: %s: %d of 60 restored arguments valid against the original schema", p.Name, name, valid)
			}
		}
	}
	if checked < 3 {
		t.Errorf("%d adapted schemas checked", checked)
	}
}
