package main

import "context"

// commands maps each subcommand to the function that runs it. migrate and verify-store join it as
// runMigrate and runVerifyStore once the store commands exist.
var commands = map[string]func(ctx context.Context, args []string) error{
	"generate": runGenerate,
}
