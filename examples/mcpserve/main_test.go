package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain runs the program itself when the test binary is started as the server, so that the test reaches it
// over stdio as an MCP host would.
func TestMain(m *testing.M) {
	if os.Getenv("MCPSERVE_AS_SERVER") == "1" {
		os.Args = append(os.Args[:1], strings.Fields(os.Getenv("MCPSERVE_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestServeOverStdio(t *testing.T) {
	tests := []struct {
		name string
		args string
		want []string
	}{
		{"without approval", "", []string{"search_tickets", "get_ticket"}},
		{"with approval", "-approve", []string{"search_tickets", "get_ticket", "close_ticket"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = []string{"MCPSERVE_AS_SERVER=1", "MCPSERVE_ARGS=" + tt.args}
			ctx := context.Background()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v1"}, nil).
				Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
			is.NoErr(err)
			defer cs.Close()
			res, err := cs.ListTools(ctx, nil)
			is.NoErr(err)
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			is.Equal(names, tt.want)
			call, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_ticket", Arguments: map[string]any{"number": 4711}})
			is.NoErr(err)
			is.True(!call.IsError)
		})
	}
}
