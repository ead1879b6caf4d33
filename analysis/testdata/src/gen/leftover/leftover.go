// Package leftover no longer declares toolsets but still has a generated file.
package leftover

// Tickets was a toolset once.
type Tickets struct{}
