package devui_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser every test of the package shares: one Chromium process, a browser context (its own cookies and
// storage) per page group.
var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
	allocCancel   context.CancelFunc
	userDataDir   string
)

// chromiumPath returns the Chromium binary: $TYPESHIFT_CHROMIUM, or chromium (or chromium-browser) on the PATH.
func chromiumPath() (string, error) {
	if p := os.Getenv("TYPESHIFT_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("TYPESHIFT_CHROMIUM: %w", err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium found")
}

// browser returns the shared browser, or ends the test: a skip without Chromium, a failure when CI=true.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := chromiumPath()
	if err != nil {
		how := err.Error() + ": the browser tests need Chromium: apt-get install -y chromium (or set TYPESHIFT_CHROMIUM to its binary), then go test ./agent/agenthttp/devui"
		if os.Getenv("CI") == "true" {
			t.Fatal(how)
		}
		t.Skip(how)
	}
	browserOnce.Do(func() {
		userDataDir, browserErr = os.MkdirTemp("", "typeshift-chromium-")
		if browserErr != nil {
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path),
			chromedp.UserDataDir(userDataDir),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-extensions", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.WindowSize(1280, 900),
		}
		var alloc context.Context
		alloc, allocCancel = chromedp.NewExecAllocator(context.Background(), opts...)
		browserCtx, browserCancel = chromedp.NewContext(alloc)
		browserErr = chromedp.Do(browserCtx) // starts the browser
	})
	if browserErr != nil {
		t.Fatalf("starting Chromium: %v", browserErr)
	}
	return browserCtx
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if browserCancel != nil {
		browserCancel()
		allocCancel()
	}
	if userDataDir != "" {
		os.RemoveAll(userDataDir)
	}
	os.Exit(code)
}

// failureDir is where a failing browser test leaves its screenshot and console log: $TEST_OUTPUT when set,
// otherwise testdata/failures (ignored by git).
func failureDir(t *testing.T) string {
	base := os.Getenv("TEST_OUTPUT")
	if base == "" {
		base = filepath.Join("testdata", "failures")
	}
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
	return filepath.Join(base, name)
}

// A page is one tab of the dev UI.
type page struct {
	t       *testing.T
	ctx     context.Context
	name    string
	mu      sync.Mutex
	console []string
}

// newPage opens a tab in a new browser context (storage of its own), or, with parent, a tab beside parent's, in
// its browser context.
func newPage(t *testing.T, name string, parent *page) *page {
	t.Helper()
	var ctx context.Context
	var cancel context.CancelFunc
	if parent == nil {
		ctx, cancel = chromedp.NewContext(browser(t), chromedp.WithNewBrowserContext())
	} else {
		ctx, cancel = chromedp.NewContext(parent.ctx)
	}
	p := &page{t: t, ctx: ctx, name: name}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			line := m.String()
			if m.URL != "" {
				line += fmt.Sprintf(" (%s:%d)", m.URL, m.Line+1)
			}
			p.mu.Lock()
			p.console = append(p.console, m.Time.Format("15:04:05.000")+" "+line)
			p.mu.Unlock()
		}
	}()
	// Cleanups run last first: the artifacts are saved before the tab closes.
	t.Cleanup(cancel)
	t.Cleanup(p.saveOnFailure)
	return p
}

// saveOnFailure writes the tab's screenshot and console log when the test failed.
func (p *page) saveOnFailure() {
	if !p.t.Failed() {
		return
	}
	dir := failureDir(p.t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Logf("saving the failure's artifacts: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90)); err == nil {
		_ = os.WriteFile(filepath.Join(dir, p.name+".png"), png, 0o644)
	}
	if html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html"))); err == nil {
		_ = os.WriteFile(filepath.Join(dir, p.name+".html"), []byte(html), 0o644)
	}
	p.mu.Lock()
	console := strings.Join(p.console, "\n") + "\n"
	p.mu.Unlock()
	_ = os.WriteFile(filepath.Join(dir, p.name+".console.log"), []byte(console), 0o644)
	abs, _ := filepath.Abs(dir)
	p.t.Logf("the %s tab's screenshot and console log are in %s", p.name, abs)
}

// consoleText returns what the tab logged so far.
func (p *page) consoleText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.console, "\n")
}

const waitTimeout = 15 * time.Second

// run runs actions in the tab, failing the test on an error.
func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s tab: %v", p.name, err)
	}
}

// open loads the UI at url and waits until it has read the API.
func (p *page) open(url string) {
	p.t.Helper()
	p.run(chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(`body[data-ready="true"]`)))
}

// eval evaluates a JavaScript expression.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("%s tab: evaluating %s: %v", p.name, js, err)
	}
	return v
}

// allText is a JavaScript expression: the text of every element sel matches, one after the other.
func allText(sel string) string {
	return fmt.Sprintf(`Array.from(document.querySelectorAll(%q), (n) => n.textContent).join("\n")`, sel)
}

// text returns the text of the elements sel matches ("" for none).
func (p *page) text(sel string) string {
	p.t.Helper()
	return eval[string](p, allText(sel))
}

// waitText waits until the text of the element sel matches contains want.
func (p *page) waitText(sel, want string) {
	p.t.Helper()
	js := fmt.Sprintf(`%s.includes(%q)`, allText(sel), want)
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, pollAction(js)); err != nil {
		p.t.Fatalf("%s tab: waiting for %q in %s, which shows %q: %v", p.name, want, sel, p.text(sel), err)
	}
}

// waitJS waits until a JavaScript expression is true.
func (p *page) waitJS(what, js string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, pollAction(js)); err != nil {
		p.t.Fatalf("%s tab: waiting for %s: %v", p.name, what, err)
	}
}

// send types text into the message box and sends it with the Send button.
func (p *page) send(text string) {
	p.t.Helper()
	p.run(chromedp.WaitEnabled(chromedp.CSS(`#send`)), chromedp.SendKeys(chromedp.CSS(`#message`), text), chromedp.Click(chromedp.CSS(`#send`)))
}

// count returns how many elements sel matches.
func (p *page) count(sel string) int {
	p.t.Helper()
	return eval[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// idle waits until the tab's run has ended.
func (p *page) idle() {
	p.t.Helper()
	p.waitJS("the run to end", `document.querySelector('#run-state').dataset.state !== 'running' && document.querySelector('#send').disabled === false`)
}

// runs returns how many runs the tab has finished.
func (p *page) runs() int {
	p.t.Helper()
	return eval[int](p, `Number(document.body.dataset.runs || 0)`)
}

// do runs act (which starts a run) and waits until the run has ended and the tab has reloaded the conversation.
func (p *page) do(act func()) {
	p.t.Helper()
	before := p.runs()
	act()
	p.waitJS("the run to end", fmt.Sprintf(`Number(document.body.dataset.runs || 0) > %d`, before))
}

// sendAndWait sends text and waits for the run's end.
func (p *page) sendAndWait(text string) {
	p.t.Helper()
	p.do(func() { p.send(text) })
}

// click clicks the element sel matches.
func (p *page) click(sel string) {
	p.t.Helper()
	p.run(chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
}

// pollAction waits until the expression is true.
func pollAction(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))(ctx, t)
		return chromedp.Void{}, err
	}
}

func typeInto(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), text)
}

func clickOn(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel))
}

// chromedpSetValue sets the value of an input or select, as a user's edit does, with its input and change events.
func setValue(sel, value string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		js := fmt.Sprintf(`(() => { const n = document.querySelector(%q); n.value = %q; n.dispatchEvent(new Event('input', {bubbles: true})); n.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, sel, value)
		_, err := chromedp.Evaluate[bool](js)(ctx, t)
		return chromedp.Void{}, err
	}
}
