package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/agent/chattest"
	"github.com/typeshift-go/typeshift/storage"
	"github.com/typeshift-go/typeshift/storage/memory"
)

// steeredModel calls the wait tool until the steering input is in the messages, then answers; it records where
// the input was.
type steeredModel struct {
	mu   sync.Mutex
	seen []chat.Message // the messages of the call that saw the input
}

func (s *steeredModel) client() chat.Client {
	n := 0
	return chattest.FuncModel(func(_ context.Context, msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
		for _, m := range msgs {
			if m.Role == chat.RoleUser && m.Text() == "also check B" {
				s.mu.Lock()
				s.seen = msgs
				s.mu.Unlock()
				return chattest.Text("steered to B"), nil
			}
		}
		n++
		if n > 30 {
			return chattest.Text("never steered"), nil
		}
		return chattest.Calls(chat.ToolCall{ID: "w" + strings.Repeat("x", n), Name: "wait", Arguments: json.RawMessage(`{}`)}), nil
	})
}

// steerAndWatch runs a streaming run on runner and, while it waits in its first tool call, steers it and watches
// it through other: the same host, or another host on another store instance.
func steerAndWatch(t *testing.T, runner, other *agent.Host, model *steeredModel, inTool chan struct{}, toolGo chan struct{}) {
	is := is.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Steering a conversation without a live run fails.
	err := other.Steer(ctx, tenant, "live", chat.UserText("nobody listens"))
	is.True(errors.Is(err, agent.ErrNotRunning))

	watched := make(chan string)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go func() {
		var text strings.Builder
		for u, err := range other.Watch(wctx, tenant, "live") {
			if err != nil {
				break
			}
			for _, p := range u.Parts {
				if tx, ok := p.(chat.Text); ok {
					text.WriteString(tx.Text)
				}
			}
			if strings.Contains(text.String(), "steered to B") {
				break
			}
		}
		watched <- text.String()
	}()
	time.Sleep(100 * time.Millisecond) // let the watcher subscribe: events before it are not seen

	var res agent.Result
	done := make(chan error)
	go func() {
		var runErr error
		for _, err := range runner.RunStream(ctx, agent.Text("check A"), agent.SettingsID(tenant), agent.Conversation("live"), agent.ResultInto(&res)) {
			if err != nil {
				runErr = err
			}
		}
		done <- runErr
	}()
	<-inTool
	is.NoErr(other.Steer(ctx, tenant, "live", chat.UserText("also check B")))
	// The watcher needs only the run's last answer, which comes after toolGo; more time here lets a watcher that
	// subscribed late on a loaded machine (LISTEN on another connection) still see it.
	time.Sleep(200 * time.Millisecond)
	close(toolGo)
	is.NoErr(<-done)
	is.Equal(res.Text(), "steered to B")
	is.True(strings.Contains(<-watched, "steered to B"))

	// The input came after the tool result of the step in which it arrived, and was stored there.
	model.mu.Lock()
	seen := model.seen
	model.mu.Unlock()
	checkHistory(t, seen)
	at := -1
	for i, m := range seen {
		if m.Text() == "also check B" {
			at = i
		}
	}
	is.True(at > 0)
	is.Equal(seen[at-1].Role, chat.RoleTool)
}

func steerStoredAfterResults(t *testing.T, s storage.Store) {
	is := is.New(t)
	all, err := s.LoadAll(context.Background(), tenant, "live")
	is.NoErr(err)
	got := types(all)
	is.True(strings.Contains(got, "tool_results,steering,response"))
}

// waitTool blocks its first call until toolGo is closed, after telling inTool.
func waitTool(inTool, toolGo chan struct{}) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	var once sync.Once
	return func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(inTool)
			select {
			case <-toolGo:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		time.Sleep(20 * time.Millisecond) // later calls give steering from another process time to arrive
		return json.RawMessage(`{"waited":true}`), nil
	}
}

func TestSteerAndWatchInProcess(t *testing.T) {
	s := memory.New()
	model := &steeredModel{}
	inTool, toolGo := make(chan struct{}), make(chan struct{})
	h := host(model.client(), agent.Config{Store: s}, tool("wait", waitTool(inTool, toolGo)))
	steerAndWatch(t, h, h, model, inTool, toolGo)
	steerStoredAfterResults(t, s)
}

func TestSteerAndWatchAcrossStores(t *testing.T) {
	a, open := pgStore(t)
	b := open()
	model := &steeredModel{}
	inTool, toolGo := make(chan struct{}), make(chan struct{})
	runner := host(model.client(), agent.Config{Store: a}, tool("wait", waitTool(inTool, toolGo)))
	other := host(chattest.FuncModel(func(context.Context, []chat.Message, *chat.Options) (*chat.Response, error) {
		return nil, errors.New("the other host never runs")
	}), agent.Config{Store: b})
	steerAndWatch(t, runner, other, model, inTool, toolGo)
	steerStoredAfterResults(t, a)
}

// TestSteerAfterLastCall: input that arrives once the run has made its last model call is stored at its end, and
// the next run reads it.
func TestSteerAfterLastCall(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	var h *agent.Host
	m := script(
		func(msgs []chat.Message, _ *chat.Options) (*chat.Response, error) {
			if err := h.Steer(ctx, tenant, "late", chat.UserText("one more thing")); err != nil {
				return nil, err
			}
			return say("first answer")(msgs, nil)
		},
		say("second answer"),
	)
	h = host(m, agent.Config{Store: s})
	_, err := h.Run(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation("late"))
	is.NoErr(err)
	_, err = h.Run(ctx, agent.Text("and?"), agent.SettingsID(tenant), agent.Conversation("late"))
	is.NoErr(err)
	seen := m.Requests()[1].Messages
	is.Equal(len(seen), 4) // hi, first answer, the steering input, and?
	is.Equal(seen[2].Text(), "one more thing")
}

// TestStreamStoppedEarly: a caller that stops reading a streaming run still leaves the conversation ended and
// free, and the end records why.
func TestStreamStoppedEarly(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := memory.New()
	h := host(script(say("a long answer in several words")), agent.Config{Store: s})
	for _, err := range h.RunStream(ctx, agent.Text("hi"), agent.SettingsID(tenant), agent.Conversation("stop")) {
		is.NoErr(err)
		break
	}
	all, err := s.LoadAll(ctx, tenant, "stop")
	is.NoErr(err)
	last := all[len(all)-1]
	is.Equal(last.Type, storage.EntryRunEnd)
	is.True(strings.Contains(string(last.Data), "stopped reading"))
	_, err = host(script(say("next")), agent.Config{Store: s}).Run(ctx, agent.Text("again"), agent.SettingsID(tenant), agent.Conversation("stop"))
	is.NoErr(err)
}
