package schematest_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/internal/schema/schematest"
)

func TestCompileRejects(t *testing.T) {
	for _, doc := range []string{
		`{"type":"strin"}`,                // not a type the metaschema knows
		`{"minimum":"1"}`,                 // a string where a number belongs
		`{"$ref":"#/$defs/Missing"}`,      // a reference that does not resolve
		`{"properties":{"a":{"type":1}}}`, // nested mistakes count too
		`{"type":"object"`,                // not JSON
		`{"required":["a","a"]}`,          // required names must be unique
	} {
		_, err := schematest.Compile([]byte(doc))
		if err == nil {
			t.Errorf("Compile(%s) succeeded, want an error", doc)
		}
	}
}

func TestValidate(t *testing.T) {
	is := is.New(t)
	s, err := schematest.Compile([]byte(`{"type":"object","properties":{"a":{"type":"integer","maximum":3}},"additionalProperties":false}`))
	is.NoErr(err)
	is.NoErr(schematest.Validate(s, []byte(`{"a":3}`)))
	is.True(schematest.Validate(s, []byte(`{"a":4}`)) != nil)
	is.True(schematest.Validate(s, []byte(`{"b":1}`)) != nil)
	is.True(schematest.Validate(s, []byte(`{"a":1} x`)) != nil)
}
