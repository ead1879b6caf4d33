package chat_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// namedClient is a client that only remembers the model it was made for.
type namedClient struct{ model string }

func (c *namedClient) Respond(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
	return &chat.Response{Model: c.model}, nil
}

func (c *namedClient) Stream(context.Context, []chat.Message, *chat.Options) iter.Seq2[chat.Update, error] {
	return func(yield func(chat.Update, error) bool) { yield(chat.Update{Model: c.model}, nil) }
}

func TestProvidersClient(t *testing.T) {
	is := is.New(t)
	var made atomic.Int32
	p := chat.NewProviders(map[string]chat.ProviderFactory{
		"local": func(model string) (chat.Client, error) {
			made.Add(1)
			return &namedClient{model: model}, nil
		},
	})
	ctx := context.Background()

	a, err := p.Client(ctx, "local", "small")
	is.NoErr(err)
	resp, err := a.Respond(ctx, nil, nil)
	is.NoErr(err)
	is.Equal(resp.Model, "small")

	again, err := p.Client(ctx, "local", "small")
	is.NoErr(err)
	is.True(again == a) // cached per (provider, model)

	b, err := p.Client(ctx, "local", "large")
	is.NoErr(err)
	is.True(b != a)
	is.Equal(made.Load(), int32(2))
}

func TestProvidersUnknown(t *testing.T) {
	is := is.New(t)
	var p chat.Providers // the zero value is ready
	_, err := p.Client(context.Background(), "openai", "gpt")
	var unknown *chat.UnknownProviderError
	is.True(errors.As(err, &unknown))
	is.True(strings.Contains(err.Error(), "no provider is registered"))

	p.Register("test", func(string) (chat.Client, error) { return &namedClient{}, nil })
	p.Register("openai", func(string) (chat.Client, error) { return &namedClient{}, nil })
	_, err = p.Client(context.Background(), "anthropic", "claude")
	is.True(errors.As(err, &unknown))
	is.Equal(unknown.Known, []string{"openai", "test"})
	is.True(strings.Contains(err.Error(), `"anthropic"`))
	is.True(strings.Contains(err.Error(), "openai, test"))
}

func TestProvidersFactoryError(t *testing.T) {
	is := is.New(t)
	boom := errors.New("no key")
	fail := true
	p := chat.NewProviders(map[string]chat.ProviderFactory{
		"flaky": func(model string) (chat.Client, error) {
			if fail {
				return nil, boom
			}
			return &namedClient{model: model}, nil
		},
		"empty": func(string) (chat.Client, error) { return nil, nil },
	})
	_, err := p.Client(context.Background(), "flaky", "m")
	is.True(errors.Is(err, boom))
	fail = false
	c, err := p.Client(context.Background(), "flaky", "m") // errors are not cached
	is.NoErr(err)
	is.True(c != nil)

	_, err = p.Client(context.Background(), "empty", "m")
	is.True(err != nil)
}

func TestProvidersReRegisterDropsClients(t *testing.T) {
	is := is.New(t)
	var p chat.Providers
	p.Register("x", func(m string) (chat.Client, error) { return &namedClient{model: "v1"}, nil })
	c1, _ := p.Client(context.Background(), "x", "m")
	p.Register("x", func(m string) (chat.Client, error) { return &namedClient{model: "v2"}, nil })
	c2, _ := p.Client(context.Background(), "x", "m")
	is.Equal(c1.(*namedClient).model, "v1")
	is.Equal(c2.(*namedClient).model, "v2")
}

func TestProvidersCanceled(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var p chat.Providers
	_, err := p.Client(ctx, "x", "m")
	is.True(errors.Is(err, context.Canceled))
}

func TestProvidersConcurrent(t *testing.T) {
	is := is.New(t)
	var made atomic.Int32
	var p chat.Providers
	p.Register("x", func(m string) (chat.Client, error) {
		made.Add(1)
		return &namedClient{model: m}, nil
	})
	var wg sync.WaitGroup
	clients := make([]chat.Client, 64)
	for i := range clients {
		wg.Go(func() {
			c, err := p.Client(context.Background(), "x", []string{"a", "b"}[i%2])
			if err == nil {
				clients[i] = c
			}
		})
	}
	wg.Wait()
	is.Equal(made.Load(), int32(2)) // one client per model, however many asked at once
	for i, c := range clients {
		is.True(c == clients[i%2])
	}
}
