// Package evalhttp lets an agenthttp.Handler answer GET /conversations/{id}/eval-case: the eval case package
// eval makes of a tenant's conversation, as a file to save.
//
//	api, err := agenthttp.New(hosts, agenthttp.Options{
//		Store:        store,
//		Authenticate: authenticate,
//		EvalCase:     evalhttp.Case, // development servers: package eval is test tooling
//	})
//
// The handler reads the conversation under the request's tenant, as GET /conversations/{id} does, and answers
// the case's JSON. The dev UI's "Save as eval case" action downloads it (devui.Options.EvalCases). Package
// agenthttp does not import package eval itself, which imports testing and the OpenTelemetry SDK: a server links
// them only when it sets Options.EvalCase. See docs/evals.md.
package evalhttp

import (
	"context"
	"errors"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/agenthttp"
	"github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/storage"
)

// Case makes the case of a conversation's stored entries with [eval.FromEntries], for the request's tenant and
// with its name, and returns it as a case file holds it. An answer given by an agent with an answer type
// (req.AnswerTypes) is checked field by field ([eval.Case.ExpectAnswerFields]). A conversation without a turn the model answered is
// [agenthttp.ErrNoTurn] (409). It is an agenthttp.Options.EvalCase.
func Case(_ context.Context, entries []storage.Entry, req agenthttp.CaseRequest) ([]byte, error) {
	c, err := eval.FromEntries(entries)
	if errors.Is(err, eval.ErrNoTurn) {
		return nil, fmt.Errorf("%w: %w", agenthttp.ErrNoTurn, err)
	}
	if err != nil {
		return nil, err
	}
	c.Name, c.SettingsID = req.Name, req.SettingsID
	if req.AnswerTypes[c.AnsweredBy()] != "" {
		// An answer that is not JSON was never accepted: its words stay the check.
		_ = c.ExpectAnswerFields()
	}
	return c.MarshalIndent()
}

var _ = agenthttp.Options{EvalCase: Case}
