package tickets

import "time"

// SampleTickets returns a few tickets for examples and tests.
func SampleTickets() []Ticket {
	day := func(d int) time.Time { return time.Date(2026, time.March, d, 9, 30, 0, 0, time.UTC) }
	return []Ticket{
		{Number: 4711, Title: "Printer prints blank pages", Status: StatusOpen, Opened: day(12), Tags: []string{"hardware"}},
		{Number: 4712, Title: "Invoice shows the wrong address", Status: StatusPending, Opened: day(14), Tags: []string{"billing"}},
		{Number: 4713, Title: "Printer jams on envelopes", Status: StatusClosed, Opened: day(2), Tags: []string{"hardware", "printer"},
			Resolution: "Replaced the feed roller."},
		{Number: 4714, Title: "Cannot log in after password reset", Status: StatusOpen, Opened: day(20)},
	}
}
