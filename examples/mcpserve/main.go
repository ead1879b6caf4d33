// Command mcpserve serves the tickets toolset as an MCP server, over stdio for an MCP host to start as a
// subprocess, or over streamable HTTP with -http.
//
// Serving a package's toolsets takes one call; the rest of this program is flags:
//
//	mcp.ServeStdio(ctx, &tickets.Tickets{Client: client}, mcp.Principal{}, nil)
//
// To try it in an MCP host, build it (go build -o "$HOME/bin/tickets-mcp" ./examples/mcpserve) and point the
// host at the binary, for example in a host's JSON configuration:
//
//	{"command": "/home/you/bin/tickets-mcp"}
//
// or with the reference inspector: npx @modelcontextprotocol/inspector go run ./examples/mcpserve
//
// close_ticket requires approval: with -approve the server asks the host's user through elicitation before each
// call; without it, the tool is not offered.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeshift-go/typeshift/agent/mcp"
	"github.com/typeshift-go/typeshift/examples/tickets"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcpserve: ")
	addr := flag.String("http", "", "serve streamable HTTP on this address (such as 127.0.0.1:8080) instead of stdio")
	approve := flag.Bool("approve", false, "offer close_ticket, asking the user through elicitation before each call")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	src := &tickets.Tickets{Client: tickets.NewMemoryClient(tickets.SampleTickets()...)}
	opts := mcp.ServeOptions{Implementation: &sdk.Implementation{Name: "tickets", Version: "v1"}}
	if *approve {
		opts.Approval = mcp.ElicitApproval
	}
	if *addr == "" {
		if err := mcp.ServeStdio(ctx, src, mcp.Principal{}, &opts); err != nil && !errors.Is(err, context.Canceled) {
			log.Fatal(err)
		}
		return
	}
	h := mcp.Handler(src, bearerTenant, &mcp.HandlerOptions{ServeOptions: opts})
	srv := &http.Server{Addr: *addr, Handler: h}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Printf("serving MCP on http://%s", *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// bearerTenant takes the tenant from the bearer token as it is. It stands in for an application's real check of
// the token; never trust a token's text like this in a service.
func bearerTenant(r *http.Request) (mcp.Principal, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return mcp.Principal{}, errors.New("no bearer token")
	}
	return mcp.Principal{SettingsID: tok}, nil
}
