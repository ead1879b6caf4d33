package main

import "context"

// commands maps each subcommand to the function that runs it.
var commands = map[string]func(ctx context.Context, args []string) error{
	"eval":         runEval,
	"generate":     runGenerate,
	"migrate":      runMigrate,
	"verify-store": runVerifyStore,
}
