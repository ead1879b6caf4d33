// Command typeshift generates the tools of your toolsets and maintains a Typeshift store.
//
// Usage:
//
//	typeshift generate [-check] [-v] [-tags list] [packages]
//	typeshift eval [-run regexp] [-baseline file] [-o file] [-junit file] [-live] [-k n] [packages]
//	typeshift eval compare old.json new.json
//	typeshift eval case [-name name] [file]
//	typeshift migrate [flags]
//	typeshift verify-store [flags]
//
// # generate
//
// generate reads every package named by the patterns (default ".", the package in the current directory) and
// writes typeshift_gen.go next to its sources. A package's generated file holds, for each struct that embeds
// toolset.Toolset, the methods that make it a toolset.Source and one *toolset.Tool per AddTool chain of its
// Declare method: the JSON Schema of the tool's arguments as a literal, a decoder of the arguments that checks
// them in one pass, the call of the method and an encoder of its result. None of it uses reflection.
// docs/generated-code.md describes the file member by member.
//
// Given this toolset:
//
//	package tickets
//
//	//go:generate go run github.com/typeshift-go/typeshift/cmd/typeshift generate
//
//	// Tickets holds the tools for the customer's support tickets.
//	type Tickets struct {
//		toolset.Toolset
//		Client *Client
//	}
//
//	func (t *Tickets) Declare() {
//		t.AddTool(t.SearchTickets).ReadOnly().WithSettings(SearchSettings{Limit: 20})
//		t.AddTool(t.CloseTicket).RequiresApproval()
//	}
//
//	// SearchTickets searches the customer's support tickets, newest first.
//	func (t *Tickets) SearchTickets(ctx context.Context, in SearchInput, s SearchSettings) ([]Ticket, error) {
//		return t.Client.Search(ctx, in.Query, s.Limit)
//	}
//
//	// CloseTicket closes a ticket for good.
//	func (t *Tickets) CloseTicket(ctx context.Context, in CloseInput) error {
//		return t.Client.Close(ctx, in.Number)
//	}
//
// running go tool typeshift generate ./... writes tickets/typeshift_gen.go, and (*Tickets).Tools then returns
// the search_tickets and close_ticket tools.
//
// Declare it as a tool of your module and run it once at the module's root; docs/getting-started.md shows the
// whole setup:
//
//	go get -tool github.com/typeshift-go/typeshift/cmd/typeshift
//	go tool typeshift generate ./...
//
// A single directive in a file at the root, //go:generate go tool typeshift generate ./..., lets go generate ./...
// do the same. One run is enough from any state of the generated files: a package is read without its generated
// file, type errors that code using generated names causes are tolerated, and packages are read imports first, so
// that an agent's picks are checked against its toolsets' sources. The module's packages that the named ones
// import are read too, so running it package by package, in any order, writes the same files.
//
// generate deletes a typeshift_gen.go it wrote earlier when its package no longer declares a toolset. It never
// writes a package with a declaration it cannot read: it prints every problem as
//
//	tickets/tickets.go:12:14: TSH003: AddTool takes a method value of Tickets, such as t.Search, ...
//
// with the path relative to the module's root, as go vet prints it, and exits with status 1. The same problems, with the same codes, are what the typeshift-vet analyzer reports
// in go vet.
//
// The flags are:
//
//	-check
//		write nothing; report each package whose typeshift_gen.go is missing or out of date and exit with
//		status 1 if there is one (for CI)
//	-tags list
//		comma-separated build tags to load the packages with
//	-v
//		print each file written and the time taken (printed anyway from 25 packages on)
//
// # eval
//
// eval runs the eval suites of the packages (the tests that call eval.RunCases, package agent/eval) with go
// test, gathers their results, and writes them as JSON (-o) and JUnit XML (-junit). Given an earlier JSON file
// with -baseline, it prints a table of the cases that regressed or improved, with each score that moved and by
// how much, and exits with status 1 on a regression (a case that passed and fails, a score that fell, a new case
// that fails); without one, when a case fails. -live runs against the live model instead of the cassettes,
// -k n repeats each case n times there. eval compare does the same for two result files; eval case turns a
// conversation's messages (JSON) into a case to edit. docs/testing-agents.md shows the workflow.
//
// # migrate and verify-store
//
// migrate creates or upgrades the tables of a Postgres store; verify-store runs the rules a store must keep
// against one, after checking that row-level security binds its role (it fails, saying why, for a superuser, a
// BYPASSRLS role, or a table without FORCE ROW LEVEL SECURITY or its policy). Run typeshift migrate -h and
// typeshift verify-store -h for their flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"slices"
	"strings"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("typeshift: ")
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	run, ok := commands[os.Args[1]]
	if !ok {
		log.Printf("unknown command %q", os.Args[1])
		usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[2:]); err != nil {
		if !errors.Is(err, errReported) {
			log.Print(err)
		}
		stop()
		os.Exit(1)
	}
}

// errReported says that a command has printed its problems already and only the exit status remains.
var errReported = errors.New("problems reported")

// usage prints the commands.
func usage() {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	fmt.Fprintf(os.Stderr, "usage: typeshift <command> [arguments]\n\ncommands: %s\n", strings.Join(names, ", "))
}
