package chattest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// GenerateArguments returns a JSON value valid against schema (a JSON Schema, draft 2020-12), built
// deterministically from seed. It honours type (and type lists, so nullable), const, enum, properties and
// required, additionalProperties, min/maxProperties, items, prefixItems, min/maxItems, uniqueItems, min/maxLength,
// pattern (by walking the regular expression), contentEncoding base64 (random bytes, encoded), format (date-time, date, time, email, uri, uuid, hostname, ipv4,
// ipv6), minimum, maximum and their exclusive forms, multipleOf, $ref into $defs or definitions, allOf, anyOf and
// oneOf. An empty schema gives an empty object.
func GenerateArguments(schema json.RawMessage, seed int64) (json.RawMessage, error) {
	if len(schema) == 0 {
		return json.RawMessage(`{}`), nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	g := &generator{root: root, rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
	v, err := g.value(root, 0)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

type generator struct {
	root any
	rng  *rand.Rand
}

// maxSize bounds the lengths a schema may demand, so that a hostile schema cannot make the model allocate
// without limit.
const maxSize = 4096

// maxDepth bounds recursion through $ref: past it, only what the schema requires is generated.
const maxDepth = 8

func (g *generator) value(s any, depth int) (any, error) {
	if depth > 3*maxDepth {
		return nil, errors.New("schema nests too deeply to satisfy")
	}
	switch s := s.(type) {
	case bool:
		if !s {
			return nil, errors.New("schema false accepts no value")
		}
		return "value", nil
	case map[string]any:
		return g.object(s, depth)
	default:
		return nil, fmt.Errorf("schema of type %T", s)
	}
}

func (g *generator) object(s map[string]any, depth int) (any, error) {
	if ref, ok := s["$ref"].(string); ok {
		target, err := g.resolve(ref)
		if err != nil {
			return nil, err
		}
		// Keywords beside $ref apply too (draft 2020-12).
		s = merge(target, without(s, "$ref"))
		depth++
	}
	if all, ok := s["allOf"].([]any); ok {
		merged := without(s, "allOf")
		for _, sub := range all {
			sm, ok := sub.(map[string]any)
			if !ok {
				continue
			}
			if ref, ok := sm["$ref"].(string); ok {
				target, err := g.resolve(ref)
				if err != nil {
					return nil, err
				}
				sm = merge(target, without(sm, "$ref"))
			}
			merged = merge(merged, sm)
		}
		s = merged
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok && len(alts) > 0 {
			alt := alts[g.rng.IntN(len(alts))]
			if am, ok := alt.(map[string]any); ok {
				return g.value(merge(without(s, key), am), depth+1)
			}
			return g.value(alt, depth+1)
		}
	}
	if c, ok := s["const"]; ok {
		return c, nil
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[g.rng.IntN(len(enum))], nil
	}
	switch typ := g.pickType(s, depth); typ {
	case "object":
		return g.obj(s, depth)
	case "array":
		return g.array(s, depth)
	case "string":
		return g.str(s)
	case "integer":
		return g.integer(s)
	case "number":
		return g.number(s)
	case "boolean":
		return g.rng.IntN(2) == 0, nil
	case "null":
		return nil, nil
	default:
		return nil, fmt.Errorf("unknown type %q", typ)
	}
}

// pickType chooses one of the schema's types: null only now and then, and always when recursion runs deep and
// null is allowed; with no type, what the other keywords suggest.
func (g *generator) pickType(s map[string]any, depth int) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var types []string
		nullable := false
		for _, x := range t {
			if x == "null" {
				nullable = true
			} else if str, ok := x.(string); ok {
				types = append(types, str)
			}
		}
		if len(types) == 0 || (nullable && (depth >= maxDepth || g.rng.IntN(4) == 0)) {
			return "null"
		}
		return types[g.rng.IntN(len(types))]
	}
	if s["nullable"] == true && (depth >= maxDepth || g.rng.IntN(4) == 0) {
		return "null"
	}
	switch {
	case has(s, "properties", "required", "additionalProperties", "minProperties"):
		return "object"
	case has(s, "items", "prefixItems", "minItems", "maxItems"):
		return "array"
	case has(s, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	case has(s, "pattern", "format", "minLength", "maxLength"):
		return "string"
	}
	return "object"
}

func (g *generator) obj(s map[string]any, depth int) (any, error) {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	minProps := intKeyword(s, "minProperties", 0)
	maxProps := intKeyword(s, "maxProperties", math.MaxInt)
	if minProps > maxSize {
		return nil, fmt.Errorf("minProperties %d is more than this generator makes", minProps)
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names) // map order must not leak into the result
	out := map[string]any{}
	for name := range required {
		if _, ok := props[name]; !ok {
			out[name] = g.extra(s, depth)
		}
	}
	for _, name := range names {
		include := required[name] || (depth < maxDepth && g.rng.IntN(3) != 0)
		if !include || (!required[name] && len(out) >= maxProps) {
			continue
		}
		v, err := g.value(props[name], depth+1)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		out[name] = v
	}
	// Fill up to minProperties with the optional properties left out, then with additional ones.
	for _, name := range names {
		if len(out) >= minProps {
			break
		}
		if _, ok := out[name]; !ok {
			v, err := g.value(props[name], depth+1)
			if err != nil {
				return nil, fmt.Errorf("property %q: %w", name, err)
			}
			out[name] = v
		}
	}
	for i := 0; len(out) < minProps && s["additionalProperties"] != false; i++ {
		out["extra_"+strconv.Itoa(i)] = g.extra(s, depth)
	}
	return out, nil
}

// extra is a value for a property the schema does not describe.
func (g *generator) extra(s map[string]any, depth int) any {
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		if v, err := g.value(ap, depth+1); err == nil {
			return v
		}
	}
	return "value"
}

func (g *generator) array(s map[string]any, depth int) (any, error) {
	prefix, _ := s["prefixItems"].([]any)
	items, hasItems := s["items"]
	minItems := intKeyword(s, "minItems", 0)
	maxItems := intKeyword(s, "maxItems", math.MaxInt)
	n := max(minItems, len(prefix))
	if depth < maxDepth && n < maxItems && hasItems && items != false {
		n += g.rng.IntN(min(3, maxItems-n) + 1)
	}
	n = min(n, maxItems)
	if n > maxSize {
		return nil, fmt.Errorf("minItems %d is more than this generator makes", n)
	}
	unique := s["uniqueItems"] == true
	seen := map[string]bool{}
	out := make([]any, 0, n)
	for i := 0; len(out) < n; i++ {
		if i > 20*n+20 {
			return nil, errors.New("cannot make enough unique items")
		}
		var sub any = map[string]any{}
		switch {
		case len(out) < len(prefix):
			sub = prefix[len(out)]
		case hasItems:
			sub = items
		}
		v, err := g.value(sub, depth+1)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", len(out), err)
		}
		if unique {
			key, _ := json.Marshal(v)
			if seen[string(key)] {
				continue
			}
			seen[string(key)] = true
		}
		out = append(out, v)
	}
	return out, nil
}

var words = []string{"alpha", "bravo", "delta", "echo", "golf", "hotel", "kilo", "lima", "oscar", "papa", "tango", "zulu"}

func (g *generator) str(s map[string]any) (any, error) {
	minLen := intKeyword(s, "minLength", 0)
	maxLen := intKeyword(s, "maxLength", math.MaxInt)
	if minLen > maxSize {
		return nil, fmt.Errorf("minLength %d is more than this generator makes", minLen)
	}
	fits := func(v string) bool {
		n := utf8.RuneCountInString(v)
		return n >= minLen && n <= maxLen
	}
	if enc, _ := s["contentEncoding"].(string); enc == "base64" {
		// Bytes, written as encoding/json writes a []byte: standard base64 with padding, in whole groups of
		// four characters for every three bytes.
		lo, hi := (minLen+3)/4, min(maxLen/4, 16)
		if lo > hi {
			return nil, fmt.Errorf("cannot make base64 text of %d to %d characters", minLen, maxLen)
		}
		groups := lo + g.rng.IntN(hi-lo+1)
		raw := make([]byte, 3*groups)
		for i := range raw {
			raw[i] = byte(g.rng.IntN(256))
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	}
	if p, ok := s["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		for range 50 {
			v, err := g.fromPattern(p)
			if err != nil {
				return nil, err
			}
			if re.MatchString(v) && fits(v) {
				return v, nil
			}
		}
		return nil, fmt.Errorf("cannot make a string of %d to %d characters matching %q", minLen, maxLen, p)
	}
	if f, ok := s["format"].(string); ok {
		if v, ok := g.format(f); ok && fits(v) {
			return v, nil
		}
	}
	v := words[g.rng.IntN(len(words))]
	for utf8.RuneCountInString(v) < minLen {
		v += "-" + words[g.rng.IntN(len(words))]
	}
	if utf8.RuneCountInString(v) > maxLen {
		v = string([]rune(v)[:maxLen])
	}
	if n := utf8.RuneCountInString(v); n < minLen {
		v += strings.Repeat("x", minLen-n)
	}
	return v, nil
}

// base is the date that generated times count from, so that they do not depend on the clock.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (g *generator) format(f string) (string, bool) {
	r := g.rng
	switch f {
	case "date-time":
		return base.Add(time.Duration(r.IntN(365*24*3600)) * time.Second).Format(time.RFC3339), true
	case "date":
		return base.AddDate(0, 0, r.IntN(365)).Format(time.DateOnly), true
	case "time":
		return base.Add(time.Duration(r.IntN(24*3600)) * time.Second).Format("15:04:05Z"), true
	case "email":
		return fmt.Sprintf("%s%d@example.com", words[r.IntN(len(words))], r.IntN(100)), true
	case "uri", "url", "iri":
		return (&url.URL{Scheme: "https", Host: "example.com", Path: "/" + words[r.IntN(len(words))]}).String(), true
	case "uuid":
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]), true
	case "hostname":
		return words[r.IntN(len(words))] + ".example.com", true
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", 1+r.IntN(254)), true
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", 1+r.IntN(0xfffe)), true
	}
	return "", false
}

// fromPattern builds a string the regular expression matches, choosing among alternatives and repetition
// counts at random. Anchors match the empty string; an unanchored pattern matches inside any string, so what is
// built for it is also valid.
func (g *generator) fromPattern(p string) (string, error) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("pattern %q: %w", p, err)
	}
	var b strings.Builder
	g.walk(&b, re.Simplify())
	return b.String(), nil
}

func (g *generator) walk(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		// Ranges come in pairs; pick a range, then a rune in it, preferring printable ASCII.
		var pairs [][2]rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo < 0x7f && hi >= 0x21 {
				pairs = append(pairs, [2]rune{max(lo, 0x21), min(hi, 0x7e)})
			}
		}
		if len(pairs) == 0 && len(re.Rune) >= 2 {
			pairs = append(pairs, [2]rune{re.Rune[0], re.Rune[1]})
		}
		if len(pairs) > 0 {
			pr := pairs[g.rng.IntN(len(pairs))]
			b.WriteRune(pr[0] + rune(g.rng.IntN(int(pr[1]-pr[0])+1)))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a' + byte(g.rng.IntN(26)))
	case syntax.OpCapture:
		g.walk(b, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			g.walk(b, sub)
		}
	case syntax.OpAlternate:
		g.walk(b, re.Sub[g.rng.IntN(len(re.Sub))])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		for range lo + g.rng.IntN(hi-lo+1) {
			g.walk(b, re.Sub[0])
		}
	}
}

func (g *generator) integer(s map[string]any) (any, error) {
	lo, hi := bounds(s, true)
	if lo > hi {
		return nil, fmt.Errorf("no integer between %v and %v", lo, hi)
	}
	ilo, ihi := int64(math.Ceil(lo)), int64(math.Floor(hi))
	if m, ok := s["multipleOf"].(float64); ok && m > 0 && m == math.Trunc(m) {
		step := int64(m)
		first := ceilDiv(ilo, step) * step
		if first > ihi {
			return nil, fmt.Errorf("no multiple of %d between %d and %d", step, ilo, ihi)
		}
		count := (ihi-first)/step + 1
		return first + step*g.rng.Int64N(min(count, 100)), nil
	}
	if ihi < ilo {
		return nil, fmt.Errorf("no integer between %v and %v", lo, hi)
	}
	return ilo + g.rng.Int64N(min(ihi-ilo, 1000)+1), nil
}

func (g *generator) number(s map[string]any) (any, error) {
	lo, hi := bounds(s, false)
	if lo > hi {
		return nil, fmt.Errorf("no number between %v and %v", lo, hi)
	}
	if m, ok := s["multipleOf"].(float64); ok && m > 0 {
		first := math.Ceil(lo/m) * m
		if first > hi {
			return nil, fmt.Errorf("no multiple of %v between %v and %v", m, lo, hi)
		}
		count := math.Floor((hi-first)/m) + 1
		return first + m*float64(g.rng.IntN(int(min(count, 100)))), nil
	}
	// Two decimals, inside the bounds.
	v := math.Round((lo+g.rng.Float64()*(hi-lo))*100) / 100
	return min(max(v, lo), hi), nil
}

// bounds returns the inclusive range a number must lie in. Exclusive bounds move in by one for integers and by
// a hundredth (or less, for narrow ranges) for numbers. Without bounds the range is [0, 100].
func bounds(s map[string]any, integer bool) (lo, hi float64) {
	step := 0.01
	if integer {
		step = 1
	}
	lo, hasLo := s["minimum"].(float64)
	hi, hasHi := s["maximum"].(float64)
	if x, ok := s["exclusiveMinimum"].(float64); ok && (!hasLo || x >= lo) {
		lo, hasLo = x+step, true
		if integer {
			lo = math.Floor(x) + 1
		}
	}
	if x, ok := s["exclusiveMaximum"].(float64); ok && (!hasHi || x <= hi) {
		hi, hasHi = x-step, true
		if integer {
			hi = math.Ceil(x) - 1
		}
	}
	switch {
	case !hasLo && !hasHi:
		lo, hi = 0, 100
	case !hasLo:
		lo = math.Min(0, hi-100)
	case !hasHi:
		hi = math.Max(lo+100, 100)
	}
	return lo, hi
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// resolve follows a local reference: "#", "#/$defs/Name", "#/definitions/Name" or any JSON pointer into the root.
func (g *generator) resolve(ref string) (map[string]any, error) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("reference %q: only references inside the schema are supported", ref)
	}
	var cur any = g.root
	if ptr != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			tok, _ = url.PathUnescape(tok)
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil, fmt.Errorf("reference %q does not resolve", ref)
				}
				cur = c[i]
			default:
				return nil, fmt.Errorf("reference %q does not resolve", ref)
			}
		}
	}
	switch c := cur.(type) {
	case map[string]any:
		return c, nil
	case bool:
		if c {
			return map[string]any{}, nil
		}
	}
	return nil, fmt.Errorf("reference %q does not resolve to a schema", ref)
}

// merge returns the keywords of a and b in one schema; b wins on conflicts, except that properties and required
// are joined and bounds take the stricter value.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		old, ok := out[k]
		if !ok {
			out[k] = v
			continue
		}
		switch k {
		case "properties":
			pa, _ := old.(map[string]any)
			pb, _ := v.(map[string]any)
			out[k] = merge(pa, pb)
		case "required":
			ra, _ := old.([]any)
			rb, _ := v.([]any)
			out[k] = append(slices.Clone(ra), rb...)
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
			fa, _ := old.(float64)
			fb, _ := v.(float64)
			out[k] = math.Max(fa, fb)
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
			fa, _ := old.(float64)
			fb, _ := v.(float64)
			out[k] = math.Min(fa, fb)
		default:
			out[k] = v
		}
	}
	return out
}

func without(s map[string]any, key string) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func has(s map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

func intKeyword(s map[string]any, key string, def int) int {
	if f, ok := s[key].(float64); ok && f >= 0 {
		return int(min(f, math.MaxInt32))
	}
	return def
}
