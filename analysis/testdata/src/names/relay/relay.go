// Package relay declares no toolsets but imports base, so it passes base's tool names on to its importers. // want package:`tools example\.com/names/base\.Notes\{add_note, lookup\} example\.com/names/base\.Tickets\{search_tickets, get_ticket\}`
package relay

import "example.com/names/base"

// Query is a search of base's.
type Query = base.Input
