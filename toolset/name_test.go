package toolset_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/toolset"
)

func TestSnakeCase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GetTicket", "get_ticket"},
		{"GetHTTPStatus", "get_http_status"},
		{"StreamIDs", "stream_ids"},
		{"IDs", "ids"},
		{"ListURLsByHost", "list_urls_by_host"},
		{"URLs2", "urls2"},
		{"IDSet", "id_set"},
		{"HTTPServer", "http_server"},
		{"GetAs", "get_as"},
		{"APIsAndSDKs", "apis_and_sdks"},
		{"Search", "search"},
		{"SearchV2", "search_v2"},
		{"Übersicht", "übersicht"},
	} {
		is.New(t).Equal(toolset.SnakeCase(tc.in), tc.want) // tc.in
	}
}
