package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/openai/openai-go/v3/option"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/openai"
	"github.com/typeshift-go/typeshift/agent/openai/openaitest"
)

// fastRetry retries at once, so that the tests do not wait.
var fastRetry = &chat.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Second}

// twoProviders registers "primary" and "backup", each a local Chat Completions server.
func twoProviders(primary, backup []openaitest.Reply) (*chat.Providers, *openaitest.Server, *openaitest.Server) {
	p, b := openaitest.NewServer(primary...), openaitest.NewServer(backup...)
	var providers chat.Providers
	providers.Register("primary", openai.Factory(option.WithBaseURL(p.URL), option.WithAPIKey("sk-p")))
	providers.Register("backup", openai.Factory(option.WithBaseURL(b.URL), option.WithAPIKey("sk-b")))
	return &providers, p, b
}

func TestFallbackFromStoredSettings(t *testing.T) {
	serverError := openaitest.Error(500, "server_error", "", "The server had an error while processing your request.")
	tests := []struct {
		name     string
		stored   string
		primary  []openaitest.Reply
		stream   bool
		text     string
		errIs    error
		requests [2]int // primary, backup
		model    string // the model the backup was asked for
	}{
		{"primary answers", `{"fallback":[{"provider":"backup","model":"b-1"}]}`,
			[]openaitest.Reply{{Text: "from primary"}}, false, "from primary", nil, [2]int{1, 0}, ""},
		{"retried then fallen back", `{"fallback":[{"provider":"backup","model":"b-1"}]}`,
			[]openaitest.Reply{serverError}, false, "from backup", nil, [2]int{3, 1}, "b-1"},
		{"streamed, cut before any text", `{"fallback":[{"provider":"backup","model":"b-1"}]}`,
			[]openaitest.Reply{{Text: "lost", CutAfter: 1}}, true, "from backup", nil, [2]int{3, 1}, "b-1"},
		{"not temporary: no fallback", `{"fallback":[{"provider":"backup","model":"b-1"}]}`,
			[]openaitest.Reply{openaitest.Error(400, "invalid_request_error", "", "bad")}, false, "", nil, [2]int{1, 0}, ""},
		{"no fallback stored", `{}`,
			[]openaitest.Reply{serverError}, false, "", chat.ErrServer, [2]int{3, 0}, ""},
		{"the provider may be left out", `{"provider":"backup","model":"b-0","fallback":[{"model":"b-1"}]}`,
			nil, false, "from backup", nil, [2]int{0, 1}, "b-0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			providers, p, b := twoProviders(tt.primary, []openaitest.Reply{{Text: "from backup"}})
			defer p.Close()
			defer b.Close()
			settings := agent.SettingsFunc(func(context.Context, string, string) (json.RawMessage, error) {
				return json.RawMessage(tt.stored), nil
			})
			h, err := agent.NewHost(&fallbackAgent{}, agent.Config{Providers: providers, Settings: settings, Retry: fastRetry})
			is.NoErr(err)
			ctx := context.Background()
			var res *agent.Result
			if tt.stream {
				var r agent.Result
				for _, err = range h.RunStream(ctx, agent.Text("hi"), agent.SettingsID("t"), agent.ResultInto(&r)) {
					if err != nil {
						break
					}
				}
				res = &r
			} else {
				res, err = h.Run(ctx, agent.Text("hi"), agent.SettingsID("t"))
			}
			switch {
			case tt.errIs != nil:
				is.True(errors.Is(err, tt.errIs))
			case tt.text == "":
				is.True(err != nil)
			default:
				is.NoErr(err)
				is.Equal(res.Text(), tt.text)
			}
			is.Equal(len(p.Requests()), tt.requests[0])
			is.Equal(len(b.Requests()), tt.requests[1])
			if tt.model != "" {
				is.Equal(b.Requests()[0].Decode()["model"], tt.model)
			}
		})
	}
}

// fallbackAgent runs on "primary" and lets tenants choose its models.
type fallbackAgent struct{ agent.Agent }

func (a *fallbackAgent) Declare() {
	a.WithName("fb")
	a.WithModel("primary", "p-1").Configurable()
}

func TestFallbackSettingsErrors(t *testing.T) {
	tests := []struct{ stored, want string }{
		{`{"fallback":[{"provider":"backup"}]}`, "names no model"},
		{`{"fallback":[{"provider":"backup","model":"m","colour":"red"}]}`, "unknown field"},
		{`{"fallback":{"model":"m"}}`, "must be a list"},
		{`{"fallback":[{"provider":"nowhere","model":"m"}]}`, `unknown provider "nowhere"`},
		{`{"fallback":[` + strings.Repeat(`{"model":"m"},`, 8) + `{"model":"m"}]}`, "at most 8"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			providers, p, b := twoProviders(nil, nil)
			defer p.Close()
			defer b.Close()
			settings := agent.SettingsFunc(func(context.Context, string, string) (json.RawMessage, error) {
				return json.RawMessage(tt.stored), nil
			})
			h, err := agent.NewHost(&fallbackAgent{}, agent.Config{Providers: providers, Settings: settings})
			is.NoErr(err)
			_, err = h.Run(context.Background(), agent.Text("hi"), agent.SettingsID("t"))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tt.want))  // the error names what is wrong
			is.Equal(len(p.Requests())+len(b.Requests()), 0) // and nothing was sent
		})
	}
}

// fixedAgent names its model in code, without letting tenants change it.
type fixedAgent struct{ agent.Agent }

func (a *fixedAgent) Declare() {
	a.WithName("fixed")
	a.WithModel("primary", "p-1")
	a.WithFallback(chat.Route{Provider: "backup", Model: "b-code"})
}

func TestFallbackInCode(t *testing.T) {
	is := is.New(t)
	providers, p, b := twoProviders([]openaitest.Reply{openaitest.RateLimited(0)}, []openaitest.Reply{{Text: "from backup"}})
	defer p.Close()
	defer b.Close()
	settings := agent.SettingsFunc(func(context.Context, string, string) (json.RawMessage, error) {
		return json.RawMessage(`{"fallback":[]}`), nil // not configurable: refused
	})
	h, err := agent.NewHost(&fixedAgent{}, agent.Config{Providers: providers, Retry: &chat.RetryPolicy{MaxAttempts: 1}})
	is.NoErr(err)
	res, err := h.Run(context.Background(), agent.Text("hi"))
	is.NoErr(err)
	is.Equal(res.Text(), "from backup")
	is.Equal(len(p.Requests()), 1) // MaxAttempts 1: no retry
	is.Equal(b.Requests()[0].Decode()["model"], "b-code")

	h, err = agent.NewHost(&fixedAgent{}, agent.Config{Providers: providers, Settings: settings})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("hi"), agent.SettingsID("t"))
	var se *agent.SettingsError
	is.True(errors.As(err, &se))
	is.Equal(se.Key, "fallback")
}
