package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/toolset"
)

// configurable is an agent whose model and temperature tenants may set; its top_p is fixed.
type configurable struct{ agent.Agent }

func (a *configurable) Declare() {
	a.WithName("conf")
	a.WithModel("test", "m1").Configurable()
	a.WithTemperature(0.5).Configurable()
	a.WithTopP(0.9)
	a.WithMaxIterations(7)
}

// limited is a tool with one configurable setting, "limit", as generated code makes it: Configure returns a copy
// whose Invoke reports the limit in force.
func limited(name string, limit int) *toolset.Tool {
	t := tool(name, func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(fmt.Sprint(limit)), nil
	})
	t.Configure = func(o json.RawMessage) (*toolset.Tool, error) {
		var s struct {
			Limit *int `json:"limit"`
		}
		if err := json.Unmarshal(o, &s); err != nil {
			return nil, err
		}
		if s.Limit == nil {
			return nil, errors.New(`only "limit" may be set`)
		}
		c := limited(name, *s.Limit)
		c.ID, c.State = t.ID, t.State
		return c, nil
	}
	return t
}

func TestSettingsLayers(t *testing.T) {
	stored := map[string]string{
		"tenant-a": `{"model":"m-stored","temperature":0.1,"max_iterations":5,"tools":{"search":{"limit":5}}}`,
		"tenant-b": `{"top_p":0.2}`,
		"tenant-c": `{"tools":{"nope":{"limit":1}}}`,
		"tenant-d": `{"colour":"red"}`,
	}
	var kinds []string
	src := agent.SettingsFunc(func(_ context.Context, id, kind string) (json.RawMessage, error) {
		kinds = append(kinds, kind)
		if d, ok := stored[id]; ok {
			return json.RawMessage(d), nil
		}
		return nil, nil
	})
	tests := []struct {
		name     string
		tenant   string
		run      string
		model    string
		temp     float64
		limit    string // what the search tool reports
		wantErr  string
		maxCalls int
	}{
		{"code defaults", "", "", "m1", 0.5, "20", "", 7},
		{"stored", "tenant-a", "", "m-stored", 0.1, "5", "", 5},
		{"run over stored", "tenant-a", `{"temperature":0.9,"tools":{"test.search":{"limit":9}}}`, "m-stored", 0.9, "9", "", 5},
		{"tenant without settings", "tenant-z", "", "m1", 0.5, "20", "", 7},
		{"fixed option refused", "tenant-b", "", "", 0, "", `stored settings: "top_p": the agent does not let settings change this option`, 0},
		{"unknown tool key", "tenant-c", "", "", 0, "", `"nope": no offered tool has this name or ID`, 0},
		{"unknown setting", "tenant-d", "", "", 0, "", `"colour": unknown setting`, 0},
		{"bad run document", "", `[1]`, "", 0, "", "run settings: not a JSON object", 0},
		{"bad override", "", `{"tools":{"search":{"other":1}}}`, "", 0, "", `only "limit" may be set`, 0},
		{"iterations must be positive", "", `{"max_iterations":0}`, "", 0, "", "must be at least 1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m := script(call(tc("1", "search", `{}`)), say("done"))
			h, err := agent.NewHost(&configurable{}, agent.Config{Client: m, Settings: src,
				Tools: []toolset.Source{toolset.List{limited("search", 20)}}})
			is.NoErr(err)
			opts := []agent.RunOption{agent.Text("x"), agent.SettingsID(tt.tenant)}
			if tt.run != "" {
				opts = append(opts, settings(tt.run))
			}
			_, err = h.Run(context.Background(), opts...)
			if tt.wantErr != "" {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), tt.wantErr)) // error names the layer and key
				var se *agent.SettingsError
				is.True(errors.As(err, &se))
				return
			}
			is.NoErr(err)
			is.Equal(m.Requests()[0].Options.Model, tt.model)
			is.Equal(*m.Requests()[0].Options.Temperature, tt.temp)
			is.Equal(*m.Requests()[0].Options.TopP, 0.9)
			is.Equal(string(lastResults(m)["1"].Result), tt.limit)
		})
	}
	is.New(t).Equal(kinds[0], "conf") // the kind is the agent's name without a declaration
}

func TestSettingsBudget(t *testing.T) {
	is := is.New(t)
	steps := make([]step, 10)
	for i := range steps {
		steps[i] = call(tc(fmt.Sprint(i), "search", `{}`))
	}
	m := script(steps...)
	h, err := agent.NewHost(&configurable{}, agent.Config{Client: m, Tools: []toolset.Source{toolset.List{limited("search", 1)}}})
	is.NoErr(err)
	_, err = h.Run(context.Background(), agent.Text("x"), settings(`{"max_iterations":4}`))
	is.NoErr(err)
	is.Equal(len(m.Requests()), 4)
}

func TestStoredSettings(t *testing.T) {
	is := is.New(t)
	store := memory.New()
	ctx := context.Background()
	_, err := store.PutSettings(ctx, storage.Document{SettingsID: "t1", Kind: "conf", Data: json.RawMessage(`{"model":"m-stored"}`)}, 0)
	is.NoErr(err)
	m := script(say("a"), say("b"))
	h, err := agent.NewHost(&configurable{}, agent.Config{Client: m, Settings: agent.StoredSettings(store)})
	is.NoErr(err)
	_, err = h.Run(ctx, agent.Text("x"), agent.SettingsID("t1"))
	is.NoErr(err)
	_, err = h.Run(ctx, agent.Text("x"), agent.SettingsID("t2")) // none stored: the code's defaults
	is.NoErr(err)
	is.Equal(m.Requests()[0].Options.Model, "m-stored")
	is.Equal(m.Requests()[1].Options.Model, "m1")
}
