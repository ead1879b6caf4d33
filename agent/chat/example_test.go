package chat_test

import (
	"context"
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
)

// A registry maps a provider and a model to a client; the host asks it for the model a run is configured with.
func ExampleProviders() {
	var providers chat.Providers
	providers.Register("test", func(model string) (chat.Client, error) {
		return chattest.NewTestModel(&chattest.TestModelOptions{Model: model, Text: "Hello from " + model + "."}), nil
	})

	c, err := providers.Client(context.Background(), "test", "offline-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, _ := c.Respond(context.Background(), []chat.Message{chat.UserText("hi")}, nil)
	fmt.Println(resp.Messages[0].Text())

	_, err = providers.Client(context.Background(), "anthropic", "claude")
	fmt.Println(err)
	// Output:
	// Hello from offline-1.
	// unknown provider "anthropic": the registered providers are test
}
