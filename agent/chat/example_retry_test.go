package chat_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
)

// A model that is overloaded twice answers on the third try; one that is always overloaded gives way to the next
// model of the fallback list.
func ExampleRetry() {
	tries := 0
	flaky := chattest.FuncModel(func(ctx context.Context, msgs []chat.Message, opts *chat.Options) (*chat.Response, error) {
		tries++
		if tries < 3 {
			return nil, &chat.ProviderError{Provider: "anthropic", StatusCode: 529, Message: "Overloaded"}
		}
		return chattest.Text("answered by " + opts.Model), nil
	})
	down := chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return nil, &chat.ProviderError{Provider: "openai", StatusCode: 503, Message: "Service Unavailable"}
	})
	retry := chat.Retry(&chat.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond})
	ctx := context.Background()

	resp, err := retry(flaky).Respond(ctx, []chat.Message{chat.UserText("hi")}, &chat.Options{Model: "claude-sonnet-4-5"})
	fmt.Println(resp.Messages[0].Text(), "after", tries, "tries", err)

	tries = 0
	c := chat.Fallback([]chat.Candidate{
		{Route: chat.Route{Provider: "openai", Model: "gpt-4.1"}, Client: retry(down)},
		{Route: chat.Route{Provider: "anthropic", Model: "claude-haiku-4-5"}, Client: retry(flaky)},
	}, nil)
	resp, err = c.Respond(ctx, []chat.Message{chat.UserText("hi")}, &chat.Options{Model: "gpt-4.1"})
	fmt.Println(resp.Messages[0].Text(), err)

	_, err = chat.Fallback([]chat.Candidate{
		{Route: chat.Route{Provider: "openai", Model: "gpt-4.1"}, Client: down},
		{Route: chat.Route{Provider: "openai", Model: "gpt-4.1-mini"}, Client: down},
	}, nil).Respond(ctx, []chat.Message{chat.UserText("hi")}, nil)
	fmt.Println(errors.Is(err, chat.ErrOverloaded))
	fmt.Println(err)
	// Output:
	// answered by claude-sonnet-4-5 after 3 tries <nil>
	// answered by claude-haiku-4-5 <nil>
	// true
	// every model failed: openai/gpt-4.1: openai: status 503: Service Unavailable; openai/gpt-4.1-mini: openai: status 503: Service Unavailable
}
