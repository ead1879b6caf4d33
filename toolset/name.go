package toolset

import (
	"strings"
	"unicode"
)

// SnakeCase turns a Go method name into a tool name: GetTicket becomes get_ticket, GetHTTPStatus becomes
// get_http_status, and the plural of an initialism stays one word, so StreamIDs becomes stream_ids and
// URLsByHost urls_by_host. A trailing "Async" or "Context" is not special in Go and is kept.
func SnakeCase(name string) string {
	rs := []rune(name)
	var b strings.Builder
	b.Grow(len(name) + 4)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if nextLower && unicode.IsUpper(prev) && pluralS(rs, i+1) {
					nextLower = false // IDs: the s ends the initialism
				}
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pluralS reports whether rs[i] is a lower-case s that ends a word, as in IDs or URLsByHost.
func pluralS(rs []rune, i int) bool {
	return rs[i] == 's' && (i+1 == len(rs) || !unicode.IsLower(rs[i+1]))
}

// ValidName reports whether name is lower_snake_case: lower-case ASCII letters and digits in words joined by
// single underscores, starting with a letter, at most 64 bytes (the limit most providers set).
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' || name[len(name)-1] == '_' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_' && name[i-1] != '_':
		default:
			return false
		}
	}
	return true
}
