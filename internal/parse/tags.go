package parse

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/typeshift-go/typeshift/internal/model"
)

// jsonNumber matches a JSON number literal.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// schemaTag reads a jsonschema struct tag in the key=value form of invopop/jsonschema:
//
//	jsonschema:"description=Words the title contains,enum=open,enum=closed,minimum=1,default=10"
//
// A comma inside a value is written \,. It returns the constraints, the description, a required override
// (from the bare words required and omitempty) and, when the tag is wrong, a message saying what to fix.
func (p *parser) schemaTag(tag string, t *model.Type) (c model.Constraints, desc string, required *bool, problem string) {
	c = model.Constraints{MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}
	if tag == "" {
		return c, "", nil, ""
	}
	// Constraints about values apply through pointers, and to the items of lists.
	list := deref(t)
	scalar := list
	if list.Kind == model.Slice || list.Kind == model.Array {
		scalar = deref(list.Elem)
	}
	for _, part := range splitTag(tag) {
		key, value, hasValue := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !hasValue {
			switch key {
			case "required":
				r := true
				required = &r
			case "omitempty":
				r := false
				required = &r
			case "":
			default:
				return c, "", nil, fmt.Sprintf("%q needs a value, as in %s=...", key, key)
			}
			continue
		}
		var err error
		switch key {
		case "description":
			desc = value
		case "title":
			c.Title = value
		case "enum":
			var lit string
			if lit, err = literal(value, scalar, "enum"); err == nil {
				c.Enum = append(c.Enum, lit)
			}
		case "default":
			c.Default, err = literal(value, list, "default")
		case "example":
			var lit string
			if lit, err = literal(value, list, "example"); err == nil {
				c.Examples = append(c.Examples, lit)
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			var lit string
			if lit, err = bound(value, scalar, key); err == nil {
				switch key {
				case "minimum":
					c.Minimum = lit
				case "maximum":
					c.Maximum = lit
				case "exclusiveMinimum":
					c.ExclusiveMinimum = lit
				default:
					c.ExclusiveMaximum = lit
				}
			}
		case "minLength", "maxLength":
			if scalar.Kind != model.String {
				err = fmt.Errorf("%s applies to strings, not %s", key, scalar.GoType)
				break
			}
			var n int
			if n, err = count(value, key); err == nil {
				if key == "minLength" {
					c.MinLength = n
				} else {
					c.MaxLength = n
				}
			}
		case "minItems", "maxItems":
			if list.Kind != model.Slice && list.Kind != model.Array {
				err = fmt.Errorf("%s applies to slices and arrays, not %s", key, list.GoType)
				break
			}
			var n int
			if n, err = count(value, key); err == nil {
				if key == "minItems" {
					c.MinItems = n
				} else {
					c.MaxItems = n
				}
			}
		case "pattern":
			if scalar.Kind != model.String {
				err = fmt.Errorf("pattern applies to strings, not %s", scalar.GoType)
				break
			}
			if _, rerr := regexp.Compile(value); rerr != nil {
				err = fmt.Errorf("pattern %q does not compile: %v", value, rerr)
				break
			}
			c.Pattern = value
		case "format":
			if scalar.Kind != model.String && scalar.Kind != model.Time {
				err = fmt.Errorf("format applies to strings, not %s", scalar.GoType)
				break
			}
			c.Format = value
		default:
			err = fmt.Errorf("unknown key %q; known keys: description, title, enum, default, example, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, minItems, maxItems, required, omitempty", key)
		}
		if err != nil {
			return c, "", nil, err.Error()
		}
	}
	if c.MinLength >= 0 && c.MaxLength >= 0 && c.MinLength > c.MaxLength {
		return c, "", nil, "minLength is greater than maxLength"
	}
	if c.MinItems >= 0 && c.MaxItems >= 0 && c.MinItems > c.MaxItems {
		return c, "", nil, "minItems is greater than maxItems"
	}
	return c, desc, required, ""
}

// splitTag splits a tag at commas that are not escaped as \,.
func splitTag(tag string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		switch {
		case tag[i] == '\\' && i+1 < len(tag) && tag[i+1] == ',':
			cur.WriteByte(',')
			i++
		case tag[i] == ',':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(tag[i])
		}
	}
	return append(parts, cur.String())
}

// deref follows pointers.
func deref(t *model.Type) *model.Type {
	for t.Kind == model.Pointer {
		t = t.Elem
	}
	return t
}

// literal turns a tag value into a JSON literal of the scalar type t.
func literal(value string, t *model.Type, key string) (string, error) {
	switch t.Kind {
	case model.String:
		b, _ := json.Marshal(value)
		return string(b), nil
	case model.Bool:
		if value != "true" && value != "false" {
			return "", fmt.Errorf("%s=%s is not a boolean: use true or false", key, value)
		}
		return value, nil
	case model.Int, model.Uint, model.Float:
		return number(value, t, key)
	case model.Number:
		if key == "example" {
			return number(value, t, key)
		}
		return "", fmt.Errorf("%s does not apply to json.Number: use a float64 or an integer type", key)
	}
	return "", fmt.Errorf("%s applies to strings, numbers and booleans, not %s", key, t.GoType)
}

// bound checks a numeric bound for a number type.
func bound(value string, t *model.Type, key string) (string, error) {
	switch t.Kind {
	case model.Int, model.Uint, model.Float, model.Number:
		return number(value, t, key)
	}
	return "", fmt.Errorf("%s applies to numbers, not %s", key, t.GoType)
}

// number checks a number literal against a number type: integer types take integers in their range.
func number(value string, t *model.Type, key string) (string, error) {
	if !jsonNumber.MatchString(value) {
		return "", fmt.Errorf("%s=%s is not a number", key, value)
	}
	var err error
	switch t.Kind {
	case model.Int:
		_, err = strconv.ParseInt(value, 10, t.Bits)
	case model.Uint:
		_, err = strconv.ParseUint(value, 10, t.Bits)
	case model.Float:
		_, err = strconv.ParseFloat(value, t.Bits)
	}
	if err != nil {
		return "", fmt.Errorf("%s=%s does not fit %s", key, value, t.GoType)
	}
	return value, nil
}

// count reads a non-negative count.
func count(value, key string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%s is not a non-negative integer", key, value)
	}
	return n, nil
}
