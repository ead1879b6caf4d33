package mcp

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNotificationDuringListing checks that a list read while the server announced a change is not cached: the
// list may predate the change.
func TestNotificationDuringListing(t *testing.T) {
	is := is.New(t)
	server := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "v1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "noop"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	var lists atomic.Int64
	var during atomic.Pointer[func()]
	server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
				if f := during.Swap(nil); f != nil {
					(*f)()
				}
			}
			return next(ctx, method, req)
		}
	})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	is.NoErr(err)
	defer ss.Close()
	srv, err := Connect(t.Context(), ct, nil)
	is.NoErr(err)
	defer srv.Close()

	invalidate := srv.Invalidate // as the notification handler would, while the list is on its way
	during.Store(&invalidate)
	tools, err := srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(len(tools), 1)
	_, err = srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(lists.Load(), int64(2)) // the first list was not kept
	_, err = srv.Tools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(lists.Load(), int64(2)) // the second was
}
