package chat

import (
	"context"
	"encoding/json"
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
	checks    map[string]SchemaCheck
}

// A SchemaCheck reports a tool's JSON Schema that a provider cannot take, as an error naming the tool, the field
// and the provider (the providers of this module return a [*schemaprofile.Error]).
//
// [*schemaprofile.Error]: https://pkg.go.dev/github.com/typeshift-go/typeshift/agent/schemaprofile#Error
type SchemaCheck func(tool string, schema json.RawMessage) error

// A SchemaChecker is a client whose provider takes only part of JSON Schema. A host built on one client checks
// the tools it offers with it, when it is built.
type SchemaChecker interface {
	CheckSchema(tool string, schema json.RawMessage) error
}

// SetSchemaCheck registers the schema check of a provider. A host checks the tools it offers against every
// registered provider's check when it is built, since a tenant's settings may choose any of them: a tool a
// provider cannot take fails the host's construction, not a run.
func (p *Providers) SetSchemaCheck(name string, check SchemaCheck) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.checks == nil {
		p.checks = make(map[string]SchemaCheck)
	}
	p.checks[name] = check
}

// CheckSchema runs the schema check of every registered provider that has one over a tool's schema, in the
// order of the providers' names, and returns the first error.
func (p *Providers) CheckSchema(tool string, schema json.RawMessage) error {
	p.mu.Lock()
	names := make([]string, 0, len(p.checks))
	for n := range p.checks {
		if _, ok := p.factories[n]; ok {
			names = append(names, n)
		}
	}
	checks := make([]SchemaCheck, len(names))
	slices.Sort(names)
	for i, n := range names {
		checks[i] = p.checks[n]
	}
	p.mu.Unlock()
	for _, check := range checks {
		if err := check(tool, schema); err != nil {
			return err
		}
	}
	return nil
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
