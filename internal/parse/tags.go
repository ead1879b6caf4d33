package parse

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
			if list.Kind == model.Array {
				// The decoder reads an array's items exactly as many as its length; bounds of another
				// count would make the schema promise what the decoder refuses.
				err = fmt.Errorf("%s applies to slices, not to the array %s, which always has %d items", key, list.GoType, list.Len)
				break
			}
			if list.Kind != model.Slice {
				err = fmt.Errorf("%s applies to slices, not %s", key, list.GoType)
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
			err = fmt.Errorf("unknown key %q%s; known keys: %s", key, didYouMean(key, tagKeys), strings.Join(tagKeys, ", "))
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

// tagConflict says how a jsonschema tag's keywords contradict each other or the field's type, "" if they do
// not: a range that holds no value, a default or an enum value the other keywords refuse, or an enum on a field
// whose schema cannot hold it. Such a tag reads, but no value, or not its default, would pass.
func tagConflict(c model.Constraints, t *model.Type, stringify bool) string {
	list := deref(t)
	scalar := list
	if list.Kind == model.Slice || list.Kind == model.Array {
		scalar = deref(list.Elem)
	}
	if stringify && (len(c.Enum) > 0 || c.Default != "") {
		return "enum and default cannot apply to a field with the ,string option, whose schema is a string: drop them or the option"
	}
	lo, hi := c.Minimum, c.Maximum
	switch {
	case lo != "" && hi != "" && cmpNumber(lo, hi) > 0:
		return fmt.Sprintf("minimum %s is greater than maximum %s, so no value passes: swap them", lo, hi)
	case c.ExclusiveMinimum != "" && c.ExclusiveMaximum != "" && cmpNumber(c.ExclusiveMinimum, c.ExclusiveMaximum) >= 0:
		return fmt.Sprintf("exclusiveMinimum %s is not less than exclusiveMaximum %s, so no value passes", c.ExclusiveMinimum, c.ExclusiveMaximum)
	case lo != "" && c.ExclusiveMaximum != "" && cmpNumber(lo, c.ExclusiveMaximum) >= 0:
		return fmt.Sprintf("minimum %s is not less than exclusiveMaximum %s, so no value passes", lo, c.ExclusiveMaximum)
	case c.ExclusiveMinimum != "" && hi != "" && cmpNumber(c.ExclusiveMinimum, hi) >= 0:
		return fmt.Sprintf("exclusiveMinimum %s is not less than maximum %s, so no value passes", c.ExclusiveMinimum, hi)
	}
	check := func(what, lit string) string {
		if problem := refuses(c, scalar, lit); problem != "" {
			return fmt.Sprintf("%s %s %s", what, lit, problem)
		}
		return ""
	}
	if c.Default != "" && scalar == list {
		if len(c.Enum) > 0 && !slices.Contains(c.Enum, c.Default) {
			return fmt.Sprintf("default %s is not one of the enum values %s: add it or change the default", c.Default, strings.Join(c.Enum, ", "))
		}
		if len(scalar.Enum) > 0 && !slices.Contains(scalar.Enum, c.Default) {
			return fmt.Sprintf("default %s is not a value of %s (%s): use one of them", c.Default, scalar.GoType, strings.Join(scalar.Enum, ", "))
		}
		if p := check("default", c.Default); p != "" {
			return p + ": change the default or the bound"
		}
	}
	for _, e := range c.Enum {
		if len(scalar.Enum) > 0 && !slices.Contains(scalar.Enum, e) {
			return fmt.Sprintf("enum value %s is not a value of %s (%s), so it can never pass: drop it", e, scalar.GoType, strings.Join(scalar.Enum, ", "))
		}
		if p := check("enum value", e); p != "" {
			return p + ", so it can never pass: drop it or change the bound"
		}
	}
	return ""
}

// refuses says why the other keywords of c refuse the JSON literal lit, "" if they accept it.
func refuses(c model.Constraints, t *model.Type, lit string) string {
	switch t.Kind {
	case model.Int, model.Uint, model.Float, model.Number:
		switch {
		case c.Minimum != "" && cmpNumber(lit, c.Minimum) < 0:
			return "is below minimum " + c.Minimum
		case c.Maximum != "" && cmpNumber(lit, c.Maximum) > 0:
			return "is above maximum " + c.Maximum
		case c.ExclusiveMinimum != "" && cmpNumber(lit, c.ExclusiveMinimum) <= 0:
			return "is not above exclusiveMinimum " + c.ExclusiveMinimum
		case c.ExclusiveMaximum != "" && cmpNumber(lit, c.ExclusiveMaximum) >= 0:
			return "is not below exclusiveMaximum " + c.ExclusiveMaximum
		}
	case model.String:
		var s string
		if json.Unmarshal([]byte(lit), &s) != nil {
			return ""
		}
		n := utf8.RuneCountInString(s)
		switch {
		case c.MinLength >= 0 && n < c.MinLength:
			return fmt.Sprintf("is shorter than minLength %d", c.MinLength)
		case c.MaxLength >= 0 && n > c.MaxLength:
			return fmt.Sprintf("is longer than maxLength %d", c.MaxLength)
		case c.Pattern != "" && !regexp.MustCompile(c.Pattern).MatchString(s):
			return "does not match the pattern " + c.Pattern
		}
	}
	return ""
}

// cmpNumber compares two JSON number literals exactly.
func cmpNumber(a, b string) int {
	x, okx := new(big.Rat).SetString(a)
	y, oky := new(big.Rat).SetString(b)
	if !okx || !oky {
		return 0
	}
	return x.Cmp(y)
}

// tagKeys are the keys a jsonschema tag knows.
var tagKeys = []string{"description", "title", "enum", "default", "example", "minimum", "maximum", "exclusiveMinimum",
	"exclusiveMaximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "required", "omitempty"}

// didYouMean suggests the known word closest to a misspelt one, as "; did you mean minimum?", or "" if none is
// within two edits.
func didYouMean(word string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(word), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + best + "?"
}

// editDistance is the Levenshtein distance between two strings, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
