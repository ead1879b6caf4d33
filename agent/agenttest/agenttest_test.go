package agenttest_test

import (
	"os"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/agenttest"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
	"github.com/typeshift-go/typeshift/storage/postgres"
	"github.com/typeshift-go/typeshift/storage/postgres/pgtest"
)

type desk struct{ agent.Agent }

func (d *desk) Declare() { d.WithInstructions("You answer questions about orders.") }

// TestEachStore runs a conversation of two runs on each store: the second run reads what the first stored, and
// each store is new to its subtest.
func TestEachStore(t *testing.T) {
	var mu sync.Mutex
	var kinds []string
	agenttest.EachStore(t, func(t *testing.T, store storage.Store) {
		is := is.New(t)
		mu.Lock()
		switch store.(type) {
		case *memory.Store:
			kinds = append(kinds, "memory")
		case *postgres.Store:
			kinds = append(kinds, "postgres")
		}
		mu.Unlock()
		model := chattest.NewScript(chattest.Text("It ships tomorrow."), chattest.Text("Yes, by post."))
		host, err := agent.NewHost(&desk{}, agent.Config{Store: store, Client: model})
		is.NoErr(err)
		_, err = host.Run(t.Context(), agent.Text("When does 4711 ship?"), agent.SettingsID("tenant-1"), agent.Conversation("c-1"))
		is.NoErr(err)
		res, err := host.Run(t.Context(), agent.Text("By post?"), agent.SettingsID("tenant-1"), agent.Conversation("c-1"))
		is.NoErr(err)
		is.Equal(res.Text(), "Yes, by post.")
		second := model.Requests()[1].Messages
		is.Equal(len(second), 3) // the first run's question and answer, stored, then the new question
		is.Equal(second[1].Text(), "It ships tomorrow.")
		is.Equal(second[2].Role, chat.RoleUser)

		st, err := store.Load(t.Context(), "tenant-2", "c-1")
		is.True(err != nil || len(st) == 0) // another tenant sees nothing of it
	})
	want := []string{"memory"}
	if os.Getenv(pgtest.EnvURL) != "" {
		want = append(want, "postgres")
	}
	is.New(t).Equal(kinds, want) // each store, memory first
}
