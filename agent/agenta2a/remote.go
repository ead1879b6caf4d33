package agenta2a

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"

	"github.com/typeshift-go/typeshift/agent"
	"github.com/typeshift-go/typeshift/agent/chat"
	"github.com/typeshift-go/typeshift/toolset"
)

// RemoteOptions configure a [Remote]. The zero value is ready to use.
type RemoteOptions struct {
	// HTTPClient sends the requests; nil means http.DefaultTransport. Its Timeout, if any, bounds each request,
	// streams included: prefer Timeout and IdleTimeout.
	HTTPClient *http.Client
	// Authorize, when set, is called on every outgoing request (the card's too, and each retry) before it is
	// sent: it sets the credentials the remote agent's card asks for, such as an Authorization header.
	Authorize func(*http.Request) error

	// Name is the tool's name; empty means "ask_" and the card's name in snake case.
	Name string
	// Description tells the calling model what the remote agent is for; empty means the card's description and
	// skills.
	Description string
	// ReadOnly marks the tool read-only, so that plan mode offers it: only when the remote agent changes nothing.
	ReadOnly bool

	// Timeout bounds one call of the tool, the remote task's turn from the message to its answer; zero means
	// 10 minutes. The call's context (the run's, and Config.ToolTimeout) bounds it too.
	Timeout time.Duration
	// IdleTimeout bounds the silence of a stream between two events; zero means 2 minutes.
	IdleTimeout time.Duration
	// Poll is how often the state of a task of an agent that does not stream is read; zero means 1 s.
	Poll time.Duration
	// Retries is how many times a request that failed before the remote could act on it (the connection was
	// refused; HTTP 429, 502, 503, 504) is sent again; zero means 2, negative none.
	Retries int
	// MaxResponseBytes bounds an answer of the remote agent and each event of its streams; zero means 4 MiB.
	MaxResponseBytes int64

	// Key binds the remote's input-required requests surfaced in a conversation to it (HMAC-SHA256); nil means a
	// random key of the process. Give every instance the same key when a conversation's runs go from one
	// instance to another.
	Key []byte
	// OnUsage, when set, hears of the usage and cost a remote agent reported for a call, read from the
	// metadata of its task, status and artifacts ("usage": {"inputTokens", "outputTokens", "totalTokens"},
	// "cost": {"amount", "currency"}). They are added to the local run's usage and cost ([agent.ReportUsage])
	// whether it is set or not.
	OnUsage func(ctx context.Context, call *toolset.Call, usage chat.Usage, cost agent.Cost)
}

// Defaults of RemoteOptions.
const (
	DefaultRemoteTimeout     = 10 * time.Minute
	DefaultRemoteIdleTimeout = 2 * time.Minute
	DefaultRemotePoll        = time.Second
	DefaultRemoteRetries     = 2
	DefaultRemoteMaxBytes    = 4 << 20
)

// cardTimeout bounds the card's fetch.
const cardTimeout = 30 * time.Second

// Remote is another agent, served over A2A, offered to local agents as a tool: the calling model passes a
// message, and the tool sends it to the remote agent as a new task, follows the task (streamed when the card
// says the agent streams) and returns its answer. The remote's input-required turns are surfaced as approval
// requests of the local conversation. Make one with [Dial], offer [Remote.Tools] to a host, and register the
// host with [Remote.Register].
type Remote struct {
	card    a2a.AgentCard
	client  *a2aclient.Client
	opts    RemoteOptions
	name    string
	desc    string
	toolID  string
	answer  string // the answer tool's name
	key     []byte
	http    *http.Client
	mu      sync.Mutex
	hosts   map[string]*agent.Host
	pending sync.WaitGroup // surfacings under way
}

// CardError reports a card that could not be fetched or used.
type CardError struct {
	// URL is where the card was fetched from.
	URL string
	// Err says why it cannot be used.
	Err error
}

func (e *CardError) Error() string {
	return "agenta2a: the agent card at " + e.URL + ": " + e.Err.Error()
}
func (e *CardError) Unwrap() error { return e.Err }

// Dial fetches the card of the remote agent at cardURL (the card's own URL, or the URL its card is served
// under, to which CardPath is added), checks it, and returns the agent as a Remote. opts may be nil.
func Dial(ctx context.Context, cardURL string, opts *RemoteOptions) (*Remote, error) {
	r := &Remote{hosts: map[string]*agent.Host{}}
	if opts != nil {
		r.opts = *opts
	}
	o := &r.opts
	if o.Timeout <= 0 {
		o.Timeout = DefaultRemoteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultRemoteIdleTimeout
	}
	if o.Poll <= 0 {
		o.Poll = DefaultRemotePoll
	}
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRemoteRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultRemoteMaxBytes
	}
	r.key = o.Key
	if len(r.key) == 0 {
		r.key = make([]byte, 32)
		_, _ = rand.Read(r.key)
	}
	base := http.DefaultTransport
	hc := http.Client{}
	if o.HTTPClient != nil {
		hc = *o.HTTPClient
		if hc.Transport != nil {
			base = hc.Transport
		}
	}
	hc.Transport = &remoteTransport{base: base, authorize: o.Authorize, retries: o.Retries, maxBytes: o.MaxResponseBytes,
		idle: o.IdleTimeout, backoff: 100 * time.Millisecond}
	r.http = &hc

	u, err := url.Parse(cardURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &CardError{URL: cardURL, Err: errors.New("not an http or https URL")}
	}
	if !strings.HasSuffix(u.Path, ".json") {
		u = u.JoinPath(CardPath)
	}
	cardURL = u.String()
	card, err := r.fetchCard(ctx, cardURL)
	if err != nil {
		return nil, &CardError{URL: cardURL, Err: err}
	}
	if err := checkCard(card); err != nil {
		return nil, &CardError{URL: cardURL, Err: err}
	}
	if card.PreferredTransport == "" {
		card.PreferredTransport = a2a.TransportProtocolJSONRPC // the protocol's default
	}
	r.card = *card
	r.client, err = a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(r.http),
		a2aclient.WithConfig(a2aclient.Config{Polling: !card.Capabilities.Streaming, PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}}))
	if err != nil {
		return nil, &CardError{URL: cardURL, Err: err}
	}

	r.name = o.Name
	if r.name == "" {
		r.name = "ask_" + strings.ReplaceAll(toolset.SnakeCase(card.Name), "-", "_")
	}
	if !toolset.ValidName(r.name) {
		return nil, fmt.Errorf("agenta2a: %q is not a valid tool name: set RemoteOptions.Name", r.name)
	}
	r.answer = "answer_" + strings.TrimPrefix(r.name, "ask_")
	if !toolset.ValidName(r.answer) {
		r.answer = "answer_remote_agent"
	}
	r.toolID = RemoteToolID + card.Name
	r.desc = o.Description
	if r.desc == "" {
		r.desc = describe(card)
	}
	return r, nil
}

// RemoteToolID and RemoteAnswerToolID begin the identities of a Remote's tools, followed by the card's name, for
// approval rules and settings.
const (
	RemoteToolID       = "typeshift.a2a.remote."
	RemoteAnswerToolID = "typeshift.a2a.answer."
)

// fetchCard reads the card, bounded in size and time.
func (r *Remote) fetchCard(ctx context.Context, cardURL string) (*a2a.AgentCard, error) {
	ctx, cancel := context.WithTimeout(ctx, cardTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, r.opts.MaxResponseBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > r.opts.MaxResponseBytes {
		return nil, fmt.Errorf("%w: the card is over %d bytes", ErrRemoteProtocol, r.opts.MaxResponseBytes)
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(data, &card); err != nil {
		return nil, fmt.Errorf("not an agent card: %w", err)
	}
	return &card, nil
}

// checkCard refuses a card this client cannot call.
func checkCard(c *a2a.AgentCard) error {
	switch {
	case strings.TrimSpace(c.Name) == "":
		return errors.New("it has no name")
	case c.ProtocolVersion != "" && !strings.HasPrefix(c.ProtocolVersion, "0."):
		return fmt.Errorf("it speaks A2A %s; this client speaks %s", c.ProtocolVersion, ProtocolVersion)
	}
	found := false
	for _, i := range append([]a2a.AgentInterface{{Transport: c.PreferredTransport, URL: c.URL}}, c.AdditionalInterfaces...) {
		if i.Transport != a2a.TransportProtocolJSONRPC && i.Transport != "" {
			continue
		}
		u, err := url.Parse(i.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("its JSON-RPC URL %q is not an absolute http or https URL", i.URL)
		}
		found = true
		break
	}
	if !found {
		return errors.New("it offers no JSON-RPC endpoint, the only transport this client speaks")
	}
	return nil
}

// describe tells the calling model what the remote agent is for, from its card.
func describe(c *a2a.AgentCard) string {
	var b strings.Builder
	b.WriteString("Sends a message to the remote agent " + c.Name + " and returns its answer.")
	if d := strings.TrimSpace(c.Description); d != "" {
		b.WriteString(" " + d)
	}
	if len(c.Skills) > 0 {
		b.WriteString(" Its skills:")
		for i, s := range c.Skills {
			if b.Len() > 900 {
				fmt.Fprintf(&b, " and %d more", len(c.Skills)-i)
				break
			}
			if i > 0 {
				b.WriteString(";")
			}
			b.WriteString(" " + s.Name)
			if s.Description != "" && s.Description != s.Name {
				b.WriteString(" (" + s.Description + ")")
			}
		}
		b.WriteString(".")
	}
	b.WriteString(" It does not see this conversation: say everything it needs in the message.")
	return b.String()
}

// Card returns the remote agent's card, as fetched.
func (r *Remote) Card() a2a.AgentCard { return r.card }

// Register tells r the hosts whose runs call it, by agent name: a remote input-required turn in a run of one of
// them is surfaced as an approval request of its conversation, which needs the host.
func (r *Remote) Register(hosts ...*agent.Host) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range hosts {
		if h != nil {
			r.hosts[h.Name()] = h
		}
	}
}

func (r *Remote) host(name string) *agent.Host {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hosts[name]
}

var remoteSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"message":{"type":"string","description":"The message for the agent, complete enough to be acted on without this conversation."}` +
	`},"required":["message"],"additionalProperties":false}`)

// Tools returns the tools that offer the remote agent: the tool that sends it a message (ask_<agent>), and the
// tool whose calls stand for the remote's input-required requests in the local conversation (answer_<agent>),
// which needs approval and which only the Remote calls. Offer both, such as Config.Tools:
// []toolset.Source{remote.Tools()}.
func (r *Remote) Tools() toolset.List {
	ask := &toolset.Tool{
		Name:        r.name,
		Description: r.desc,
		Schema:      remoteSchema,
		ReadOnly:    r.opts.ReadOnly,
		ID:          r.toolID,
		Invoke:      r.invoke,
		State:       &toolset.State{},
	}
	answer := &toolset.Tool{
		Name: r.answer,
		Description: "Stands for a question of the remote agent " + r.card.Name + " that the user approves or rejects. " +
			"Never call it yourself: its calls come from the agent's input-required turns.",
		Schema:           answerSchema,
		RequiresApproval: true,
		ReadOnly:         r.opts.ReadOnly,
		ID:               RemoteAnswerToolID + r.card.Name,
		Invoke:           r.invokeAnswer,
		State:            &toolset.State{},
	}
	agent.OnRejected(answer, r.rejected)
	return toolset.List{ask, answer}
}

// invoke sends the model's message to the remote agent as a new task and returns its answer.
func (r *Remote) invoke(ctx context.Context, call *toolset.Call) (json.RawMessage, error) {
	var in struct {
		Message string `json:"message"`
	}
	dec := json.NewDecoder(strings.NewReader(string(call.Args())))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("the arguments cannot be used: %w", err)
	}
	if strings.TrimSpace(in.Message) == "" {
		return nil, errors.New(`"message" is empty: say what the agent should do`)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	out, err := r.exchange(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: in.Message}))
	return r.conclude(ctx, call, out, err)
}
