package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/anthropic"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/gemini"
	"github.com/typeshift-go/typeshift/agent/openai"
)

// provider picks the model's provider from the environment: OpenAI when OPENAI_API_KEY is set, Claude when
// ANTHROPIC_API_KEY is, Gemini when GEMINI_API_KEY (or GOOGLE_API_KEY) is, and "" (the offline model) otherwise;
// and the model, from OPENAI_MODEL, ANTHROPIC_MODEL or GEMINI_MODEL.
func provider() (name, model string) {
	switch {
	case openai.Available():
		return openai.ProviderName, os.Getenv("OPENAI_MODEL")
	case anthropic.Available():
		model = os.Getenv("ANTHROPIC_MODEL")
		if model == "" {
			model = "claude-sonnet-4-5"
		}
		return anthropic.ProviderName, model
	case gemini.Available():
		model = os.Getenv("GEMINI_MODEL")
		if model == "" {
			model = "gemini-2.5-flash"
		}
		return gemini.ProviderName, model
	}
	return "", ""
}

// useModel sets cfg's model: the registered provider o names (whose SDK reads its key and base URL from the
// environment), or the offline model. The story's runs name Claude or Gemini in their settings; the HTTP API's
// runs read the tenants' stored settings, whose default provider is the agent's (openai), so with pin every run
// of it is sent to that model whatever the settings say.
func useModel(cfg *agent.Config, o options, out io.Writer, pin bool) {
	switch o.provider {
	case openai.ProviderName:
		cfg.Providers = chat.NewProviders(nil)
		openai.Register(cfg.Providers)
		where := "the OpenAI API"
		if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
			where = u
		}
		fmt.Fprintf(out, "OPENAI_API_KEY is set: using %s.\n", where)
	case anthropic.ProviderName:
		if pin {
			cfg.Client = pinned{anthropic.New().WithModel(o.model), o.model}
		} else {
			cfg.Providers = chat.NewProviders(nil)
			anthropic.Register(cfg.Providers)
		}
		where := "the Anthropic API"
		if u := os.Getenv("ANTHROPIC_BASE_URL"); u != "" {
			where = u
		}
		fmt.Fprintf(out, "ANTHROPIC_API_KEY is set: using %s (%s).\n", where, o.model)
	case gemini.ProviderName:
		var err error
		if pin {
			var c *gemini.Client
			if c, err = gemini.New(context.Background(), nil); err == nil {
				cfg.Client = pinned{c.WithModel(o.model), o.model}
			}
		} else {
			cfg.Providers = chat.NewProviders(nil)
			err = gemini.Register(context.Background(), cfg.Providers, nil)
		}
		if err != nil {
			cfg.Client, cfg.Providers = offlineModel(), nil
			fmt.Fprintf(out, "%s is set, but %v: using the offline test model.\n", geminiKey(), err)
			return
		}
		where := "the Gemini API"
		if u := os.Getenv("GOOGLE_GEMINI_BASE_URL"); u != "" {
			where = u
		}
		fmt.Fprintf(out, "%s is set: using %s (%s).\n", geminiKey(), where, o.model)
	default:
		cfg.Client = offlineModel()
		fmt.Fprintln(out, "No OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY: using the offline test model.")
	}
}

// geminiKey names the variable the Gemini SDK takes its key from: GOOGLE_API_KEY when it is set (the SDK prefers
// it), GEMINI_API_KEY otherwise.
func geminiKey() string {
	if os.Getenv("GOOGLE_API_KEY") != "" {
		return "GOOGLE_API_KEY"
	}
	return "GEMINI_API_KEY"
}

// pinned sends every request to one model, whatever the options name.
type pinned struct {
	c     chat.Client
	model string
}

func (p pinned) options(opts *chat.Options) *chat.Options {
	o := opts.Clone()
	o.Model = p.model
	return o
}

func (p pinned) Respond(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
	return p.c.Respond(ctx, msgs, p.options(opts))
}

func (p pinned) Stream(ctx context.Context, msgs []chat.Message, opts *chat.Options) iter.Seq2[chat.Update, error] {
	return p.c.Stream(ctx, msgs, p.options(opts))
}
