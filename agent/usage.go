package agent

import (
	"sync"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// usageMeter adds up a run's token usage: the tool loop's model calls and the sub-agents its tools run. It is the only
// part of a run written concurrently (concurrent tools may run sub-agents that report to it).
//
//typeshift:owned
type usageMeter struct {
	mu    sync.Mutex
	usage chat.Usage
}

// add adds u to the run's usage.
func (m *usageMeter) add(u chat.Usage) {
	m.mu.Lock()
	m.usage = m.usage.Add(u)
	m.mu.Unlock()
}

// total returns the run's usage so far. A sub-agent tool abandoned at its timeout may still be reporting.
func (m *usageMeter) total() chat.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage
}
