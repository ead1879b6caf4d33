package chat

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A ProviderFactory makes the client of one provider for one model.
type ProviderFactory func(model string) (Client, error)

// Providers maps a (provider, model) pair to a [Client]: the host asks it for the client of the model a run is
// configured with. Each provider is a [ProviderFactory] registered under a name; clients are made on first use
// and kept, one per pair. The zero value is ready to use, and a Providers is safe for concurrent use.
type Providers struct {
	mu        sync.Mutex
	factories map[string]ProviderFactory
	clients   map[providerKey]*providerEntry
}

type providerKey struct{ provider, model string }

// providerEntry makes its client once, even when several runs ask for it at the same moment.
type providerEntry struct {
	once   sync.Once
	client Client
	err    error
}

// NewProviders returns a registry holding the given factories, keyed by provider name.
func NewProviders(factories map[string]ProviderFactory) *Providers {
	p := &Providers{}
	for name, f := range factories {
		p.Register(name, f)
	}
	return p
}

// Register adds the factory of a provider, replacing any factory of the same name and the clients it made.
func (p *Providers) Register(name string, f ProviderFactory) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.factories == nil {
		p.factories = make(map[string]ProviderFactory)
	}
	p.factories[name] = f
	for k := range p.clients {
		if k.provider == name {
			delete(p.clients, k)
		}
	}
}

// Names returns the registered providers' names, sorted.
func (p *Providers) Names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]string, 0, len(p.factories))
	for n := range p.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Client returns the client of model at provider, making it on first use. An unknown provider is an
// [*UnknownProviderError]; a factory's error is returned wrapped, and the next call tries again.
func (p *Providers) Client(ctx context.Context, provider, model string) (Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := providerKey{provider, model}
	p.mu.Lock()
	f, ok := p.factories[provider]
	if !ok {
		p.mu.Unlock()
		return nil, &UnknownProviderError{Provider: provider, Known: p.Names()}
	}
	e := p.clients[key]
	if e == nil {
		if p.clients == nil {
			p.clients = make(map[providerKey]*providerEntry)
		}
		e = &providerEntry{}
		p.clients[key] = e
	}
	p.mu.Unlock()

	e.once.Do(func() {
		e.client, e.err = f(model)
		if e.err == nil && e.client == nil {
			e.err = fmt.Errorf("factory returned no client")
		}
	})
	if e.err != nil {
		p.mu.Lock()
		if p.clients[key] == e {
			delete(p.clients, key)
		}
		p.mu.Unlock()
		return nil, fmt.Errorf("provider %q, model %q: %w", provider, model, e.err)
	}
	return e.client, nil
}

// UnknownProviderError reports a provider name that no factory is registered under.
type UnknownProviderError struct {
	Provider string
	// Known lists the registered providers.
	Known []string
}

func (e *UnknownProviderError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("unknown provider %q: no provider is registered", e.Provider)
	}
	return fmt.Sprintf("unknown provider %q: the registered providers are %s", e.Provider, strings.Join(e.Known, ", "))
}
