package toolset

import (
	"strings"
	"unicode"
)

// SnakeCase turns a Go method name into a tool name: GetTicket becomes get_ticket and GetHTTPStatus becomes
// get_http_status. A trailing "Async" or "Context" is not special in Go and is kept.
func SnakeCase(name string) string {
	rs := []rune(name)
	var b strings.Builder
	b.Grow(len(name) + 4)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
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
