package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// Steering a live run, and following its updates with a watcher that resumes after the last update it read, as
// a browser reconnecting with Last-Event-ID would.
func ExampleHost_WatchAfter() {
	store := memory.New() // postgres.New(ctx, pool, nil) across processes
	ctx := context.Background()
	var host *agent.Host
	steered := false
	model := chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		for _, m := range msgs {
			if m.Text() == "Answer in French." {
				return chattest.Text("Bonjour !"), nil
			}
		}
		if !steered {
			steered = true
			// The user sends more while the run makes its last model call: Steer stores it, and as no model
			// call of this run follows, the run keeps it in the conversation when it ends.
			if err := host.Steer(ctx, "tenant-42", "conv-1", chat.UserText("Answer in French.")); err != nil {
				return nil, err
			}
		}
		return chattest.Text("Hello there, how are you?"), nil
	})
	host = host0(model, store)

	for _, err := range host.RunStream(ctx, agent.Text("Hi"), agent.SettingsID("tenant-42"), agent.Conversation("conv-1")) {
		if err != nil {
			panic(err)
		}
	}

	// A watcher resumes after the last event id it read; one that read nothing of this conversation resumes after
	// the id its events start above. It gets the run's updates (the text coalesced: what the model streamed over
	// some tens of milliseconds comes in one update), then the run's end.
	rng, err := store.EventRange(ctx, "tenant-42", "conv-1")
	if err != nil {
		panic(err)
	}
	var text strings.Builder
	for u, err := range host.WatchAfter(ctx, "tenant-42", "conv-1", rng.Base) {
		if err != nil {
			panic(err)
		}
		for _, p := range u.Parts {
			if t, ok := p.(chat.Text); ok {
				text.WriteString(t.Text)
			}
		}
		if u.FinishReason != "" {
			fmt.Printf("%q %s\n", text.String(), u.FinishReason)
		}
		if u.RunEnded {
			fmt.Println("the run ended")
			break
		}
	}

	// No run is live now: Steer refuses and stores nothing.
	err = host.Steer(ctx, "tenant-42", "conv-1", chat.UserText("too late"))
	fmt.Println(errors.Is(err, agent.ErrNotRunning))

	// The input Steer accepted stands in the conversation, and the next run's model reads it.
	entries, _ := store.LoadAll(ctx, "tenant-42", "conv-1")
	for _, e := range entries {
		if e.Type == storage.EntrySteering {
			fmt.Println(e.Type, e.Author)
		}
	}
	res, err := host.Run(ctx, agent.Text("Still there?"), agent.SettingsID("tenant-42"), agent.Conversation("conv-1"))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// "Hello there, how are you?" stop
	// the run ended
	// true
	// steering user
	// Bonjour !
}

func host0(model chat.Client, store storage.Store) *agent.Host {
	h, err := agent.NewHost(&plain{}, agent.Config{Client: model, Store: store})
	if err != nil {
		panic(err)
	}
	return h
}
