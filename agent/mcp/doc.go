// Package mcp speaks the Model Context Protocol both ways: it offers the tools of an MCP server to an agent, as a
// [toolset.Source], and it serves any toolset.Source to MCP hosts ([ToolServer], [ServeStdio], [Handler]).
//
// It is a client of the official MCP Go SDK (github.com/modelcontextprotocol/go-sdk/mcp, imported here as sdk):
// the SDK speaks the protocol and owns the transport; this package turns each server tool into a
// [*toolset.Tool] and each call into a CallTool request.
//
//	srv, err := mcp.Connect(ctx, &sdk.CommandTransport{Command: exec.Command("github-mcp-server", "stdio")},
//		&mcp.Options{Name: "github"})
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	host, err := agent.NewHost(myAgent, agent.Config{Client: client, Tools: []toolset.Source{srv}})
//
// # Tools
//
// Each server tool becomes a tool with the server's name, description and input schema (made an object schema
// when the server leaves out "type" or "properties"), and the ID "mcp:<server>:<tool>", which approval rules and
// settings key on. A tool the server marks with the readOnlyHint annotation is [toolset.Tool.ReadOnly], so plan
// mode offers it; every other tool [toolset.Tool.RequiresApproval] unless [Options.RequiresApproval] decides
// otherwise. Names are the server's own: wrap the server in [toolset.Prefix] to namespace them.
//
// # The tool list
//
// A [Server] made by [Connect] hears the server's notifications/tools/list_changed, so it lists the tools once
// and again only after the server says they changed. A [Server] made by [Tools] over a session made elsewhere
// cannot hear them, and lists the tools every turn.
//
// # Errors
//
// Arguments that are not a JSON object fail with a [*toolset.ArgumentError] before the server is asked. A result
// the server flags with isError becomes a [*ToolError] whose message is the server's text, so the model reads
// what went wrong. Cancellation of the context cancels the request on the server. A server that stops during a
// call ends it with an error saying so, and offers no tools from then on.
//
// # Progress, sampling, elicitation
//
// Each call carries a progress token; the server's reports reach a streamed run as updates with
// [chat.Update.Progress] set, and the call's span as events. Sampling requests are answered only when
// [Options.Sampling] says how; elicitation only through the SDK's handler in [Options.Client]. Subprocess servers
// start with [MinimalEnv] unless their command sets an environment.
//
// # Serving
//
//	err := mcp.ServeStdio(ctx, &tickets.Tickets{Client: client}, mcp.Principal{}, nil)
//
// [ToolServer] answers tools/list and tools/call from the source on every request, with the generated schemas,
// readOnlyHint for read-only tools, and tool errors and panics as results flagged isError. Tools that require
// approval are left out, or asked for through elicitation ([ElicitApproval]); they never run unasked.
// [Handler] serves over streamable HTTP behind the application's [Authenticate] callback, which names the
// [Principal] and so the tenant whose stored settings ([ServeOptions.Settings]) apply.
package mcp
