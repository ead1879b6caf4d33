package parse

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
)

func TestSuggestName(t *testing.T) {
	long := strings.Repeat("word_", 12) + "lastword" // 68 bytes
	for _, tc := range []struct{ in, want string }{
		{"GetTicket", "get_ticket"},
		{"reopen ticket", "reopen_ticket"},
		{"Close-Ticket", "close_ticket"},
		{"Übersicht", "uebersicht"},
		{"ÜbersichtZeigen", "uebersicht_zeigen"},
		{"café_crème", "cafe_creme"},
		{"StreamIDs", "stream_ids"},
		{long, strings.TrimSuffix(strings.Repeat("word_", 12), "_")},
		{strings.Repeat("x", 70), strings.Repeat("x", 64)},
		{"9lives", "lives"},
		{"Bad-Name", "bad_name"},
		{"GetHTTPStatus", "get_http_status"},
		{"search  tools", "search_tools"},
		{"--", "tool"},
		{"über_tool", "ueber_tool"},
	} {
		got := suggestName(tc.in)
		is.New(t).Equal(got, tc.want)          // tc.in
		is.New(t).True(toolset.ValidName(got)) // the suggestion is a valid name
	}
}

func TestModelDescription(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"SearchTickets", "SearchTickets searches the tickets, newest first.", "Searches the tickets, newest first."},
		{"Search", "Search finds.\n\nMore text.", "Finds.\n\nMore text."},
		{"Search", "Searches the tickets.", "Searches the tickets."},
		{"Search", "SearchTickets is not the name.", "SearchTickets is not the name."},
		{"Open", "Open", "Open"},
		{"Ping", "Ping über the wire.", "Über the wire."},
		{"Ping", "", ""},
	} {
		is.New(t).Equal(modelDescription(tc.name, tc.doc), tc.want)
	}
}

func TestFieldDescription(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"Query", "Query holds the words the title contains.", "Holds the words the title contains."},
		{"ID", "ID is the note's number, as list_notes shows it.", "The note's number, as list_notes shows it."},
		{"Tags", "Tags are labels.", "Labels."},
		{"Since", "Since is", "Is"},
		{"Query", "Words the title contains.", "Words the title contains."},
		{"Query", "QueryText is another field's name.", "QueryText is another field's name."},
		{"Isle", "Isle island.", "Island."},
		{"Limit", "Limit", "Limit"},
		{"Limit", "", ""},
	} {
		is.New(t).Equal(fieldDescription(tc.name, tc.doc), tc.want)
	}
}

func TestUnusedName(t *testing.T) {
	long := strings.Repeat("word_", 12) + "last" // 64 bytes
	taken := map[string]bool{"get_ticket": true, "get_ticket_2": true, long: true}
	for _, tc := range []struct{ want, got string }{
		{"close_ticket", "close_ticket"},
		{"get_ticket", "get_ticket_3"},
		{long, strings.Repeat("word_", 12) + "2"},
	} {
		is := is.New(t)
		got := unusedName(tc.want, taken)
		is.Equal(got, tc.got)
		is.True(toolset.ValidName(got))
	}
}
