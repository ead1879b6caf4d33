// Package tsh030 adds one method as two tools. // want package:`tools example\.com/tsh030\.Library\{get_loan, get_loan_id\}`
package tsh030

import (
	"context"

	"github.com/typeshift-go/typeshift/toolset"
)

type LoanRef struct {
	// ID is the loan's number.
	ID int `json:"id"`
}

// Library lends books.
type Library struct{ toolset.Toolset }

func (l *Library) Declare() {
	l.AddTool(l.GetLoan)
	l.AddTool(l.GetLoan).WithName("read_loan") // want `TSH030: Library\.GetLoan is already the tool "get_loan": a method is one tool, under one name; remove this AddTool, or to offer it under a second name too, add a method that calls GetLoan`
	l.AddTool(l.GetLoan)                       // want `TSH030: Library\.GetLoan is already the tool "get_loan"`
	l.AddTool(l.GetLoanID)
}

// GetLoan reads a loan.
func (l *Library) GetLoan(ctx context.Context, in LoanRef) error { return nil }

// GetLoanID offers GetLoan under a second name, as a method of its own.
func (l *Library) GetLoanID(ctx context.Context, in LoanRef) error { return l.GetLoan(ctx, in) }
