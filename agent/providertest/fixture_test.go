package providertest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"
	"golang.org/x/tools/txtar"
)

func TestParseFixture(t *testing.T) {
	is := is.New(t)
	f, err := parseFixture(txtar.Parse([]byte("A comment: with a colon.\nstatus: 429\nheader: Retry-After: 7\nstatus.2: 200\n" +
		"usage: input=10 output=2\nhold: true\n-- response --\n{\"a\":1}\n-- want --\nx\n\ny\n-- reject --\nz\n-- response.2 --\ndata: {}\n\n-- want.2 --\nq\n")))
	is.NoErr(err)
	is.Equal(len(f.exchanges), 2)
	is.Equal(f.exchanges[0].status, 429)
	is.Equal(f.exchanges[0].header.Get("Retry-After"), "7")
	is.Equal(f.exchanges[0].want, []string{"x", "y"}) // blank lines are not wanted
	is.Equal(f.exchanges[0].reject, []string{"z"})
	is.Equal(f.exchanges[1].status, http.StatusOK)
	is.True(isStream(f.exchanges[1].body))
	is.True(!isStream(f.exchanges[0].body))
	is.Equal(f.usage, "input=10 output=2")
	is.True(f.hold)
}

func TestParseFixtureErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"no response", "status: 200\n", "no response file"},
		{"nothing", "just a comment\n", "no response"},
		{"bad status", "status: ok\n-- response --\n{}\n", "status"},
		{"status out of range", "status: 42\n-- response --\n{}\n", "status"},
		{"bad header", "header: Retry-After\n-- response --\n{}\n", "header"},
		{"unknown file", "-- answer --\n{}\n", "unknown file"},
		{"exchange number", "-- response.0 --\n{}\n", "exchange number"},
		{"exchange number too big", "-- response.10 --\n{}\n", "exchange number"},
		{"numbered key", "status.x: 200\n-- response --\n{}\n", "exchange number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := parseFixture(txtar.Parse([]byte(tt.in)))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.want)) // the error says what is wrong
		})
	}
}

func TestParseUsage(t *testing.T) {
	is := is.New(t)
	u, err := parseUsage("input=2000 output=300 total=2300 cache_read=1800 cache_write=150 reasoning=120")
	is.NoErr(err)
	is.Equal(u.CacheWriteTokens, int64(150))
	is.Equal(u.ReasoningTokens, int64(120))
	_, err = parseUsage("inputs=1")
	is.True(err != nil)
	_, err = parseUsage("input=x")
	is.True(err != nil)
}

// FuzzParseFixture checks that no archive makes the parser panic, and that a parsed fixture has an exchange.
func FuzzParseFixture(f *testing.F) {
	f.Add([]byte("status: 429\nheader: Retry-After: 7\n-- response --\n{}\n-- want --\nx\n"))
	f.Add([]byte("-- response.2 --\n-- want.9 --\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx, err := parseFixture(txtar.Parse(data))
		if err == nil && len(fx.exchanges) == 0 {
			t.Fatal("a fixture without exchanges parsed")
		}
	})
}
