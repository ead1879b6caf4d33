package tickets

import "time"

// Status is a ticket's state.
//
//typeshift:enum
type Status string

// The states a ticket moves through.
const (
	StatusOpen    Status = "open"
	StatusPending Status = "pending"
	StatusClosed  Status = "closed"
)

// Ticket is one support ticket, as the tools return it.
type Ticket struct {
	// Number identifies the ticket.
	Number int `json:"number"`
	// Title is the customer's summary.
	Title string `json:"title"`
	// Status is where the ticket stands.
	Status Status `json:"status"`
	// Opened is when the customer opened the ticket (RFC 3339).
	Opened time.Time `json:"opened"`
	// Tags are the support team's labels.
	Tags []string `json:"tags,omitempty"`
	// Resolution is the reason given when the ticket was closed.
	Resolution string `json:"resolution,omitempty"`
}
