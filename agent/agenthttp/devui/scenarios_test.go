package devui_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/matryer/is"

	"github.com/typeshift-go/typeshift/storage"
)

// conversationID returns the id of the conversation the tab shows.
func conversationID(p *page) string {
	p.t.Helper()
	return eval[string](p, `(/^#c=([^&]+)/.exec(location.hash)||[,""])[1]`)
}

// A streamed run: the text shows while the model is still writing it, then whole, with the run's usage and its
// timeline; the agent's tools are listed with their marks.
func TestStreamedRun(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))

		p.waitText(`#tools li[data-tool="close_ticket"]`, "needs approval")
		p.waitText(`#tools li[data-tool="search_tickets"]`, "read-only")
		p.waitText(`#tools li[data-tool="close_ticket"]`, "Closes a ticket for good.")
		is.True(!strings.Contains(p.text(`#tools li[data-tool="close_ticket"]`), "read-only"))

		before := p.runs()
		p.send("slow")
		<-e.model.waiting
		p.waitText(`#transcript`, "Streaming slowly")
		is.Equal(p.text(`#run-state`), "running") // the run is still going: the text came as it was written
		is.True(!strings.Contains(p.text(`#transcript`), "and done."))
		e.model.free()
		p.waitJS("the run to end", fmt.Sprintf(`Number(document.body.dataset.runs||0) > %d`, before))
		p.waitText(`#transcript .item.assistant`, "Streaming slowly and done.")
		p.waitText(`#transcript .item.user`, "slow")
		is.Equal(p.text(`#usage tbody tr.usage-row td:nth-child(2)`), "21")
		is.Equal(p.text(`#usage tbody tr.usage-row td:nth-child(3)`), "4")
		is.Equal(p.text(`#usage tbody tr.usage-row td:nth-child(5)`), "0.000029 USD") // 21 × $1 + 4 × $2 per million
		is.Equal(p.text(`#usage tfoot tr.usage-total td:nth-child(5)`), "0.000029 USD")
		p.waitText(`#timeline`, "0.000029 USD")
		p.waitText(`#timeline`, "run start")
		p.waitText(`#timeline`, "run end")
		id := conversationID(p)
		p.waitText(`#conversation-list`, id[:8])

		// Deleting it: gone from the list and from the API.
		p.click(`#delete-conversation`)
		p.waitText(`#banner`, "Deleted conversation "+id[:8])
		p.waitText(`#conversation-list`, "No conversations yet.")
		status, _, _ := e.call("tenant-a", "GET", "/conversations/"+id, "", nil)
		is.Equal(status, 404)
	})
}

// Tool text is shown as text: a tool result holding markup makes no element and runs nothing.
func TestToolTextIsText(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memoryStore())
	p := newPage(t, "a", nil)
	p.open(e.ui("tenant-a", ""))
	p.sendAndWait("search img")
	p.waitText(`#transcript .item.tool[data-tool="search_tickets"] .result`, `"title": "<img src=x onerror=`)
	p.waitText(`#transcript .item.assistant`, "onerror=")
	is.Equal(p.count(`#transcript img`), 0)                            // no element was made of the markup
	is.Equal(eval[string](p, `document.body.dataset.pwned || ""`), "") // and no script ran

	// A long result is folded behind its size; a failed call shows its error.
	p.sendAndWait("search e")
	p.waitText(`#transcript .item.tool[data-tool="search_tickets"] .result details.collapsed summary`, "Result (")
	is.True(!eval[bool](p, `document.querySelector('#transcript details.collapsed').open`))
	p.sendAndWait("please read 9999")
	p.waitText(`#transcript .item.tool.failed .error`, "Error: no ticket 9999 exists")

	// The policy refuses inline script even where a page would make some.
	eval[bool](p, `(() => { const s = document.createElement('script'); s.textContent = 'document.body.dataset.inline = "ran"'; document.body.append(s); return true; })()`)
	is.Equal(eval[string](p, `document.body.dataset.inline || ""`), "")
	p.waitJS("the policy's report in the console", "true")
	is.True(strings.Contains(p.consoleText(), "Content Security Policy"))
}

// Approving and denying pending calls: the cards, the results after the next run, a standing approval.
func TestApprovals(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))

		p.sendAndWait("close 4711")
		p.waitText(`#approvals .approval`, "close_ticket")
		p.waitText(`#approvals .approval pre`, `"number": 4711`)
		p.waitText(`#transcript .item.tool[data-tool="close_ticket"]`, "waiting for approval")
		p.do(func() { p.click(`#approvals .approval button.approve`) })
		p.waitText(`#transcript .item.tool[data-tool="close_ticket"] .result`, "Result")
		p.waitText(`#transcript`, "Done: ")
		is.Equal(p.count(`#approvals .approval`), 0)

		p.sendAndWait("close 4712")
		p.waitText(`#approvals .approval pre`, `"number": 4712`)
		p.run(typeInto(`#approvals .approval input[name="reason"]`, "Not before Monday"))
		p.do(func() { p.click(`#approvals .approval button.deny`) })
		p.waitText(`#transcript .item.tool.failed`, "Not before Monday")
		p.waitText(`#transcript .item.assistant`, "The call failed")
		is.Equal(p.count(`#approvals .approval`), 0)

		p.sendAndWait("close 4714")
		p.do(func() { p.click(`#approvals .approval button.always`) })
		p.sendAndWait("close 4800")
		is.Equal(p.count(`#approvals .approval`), 0) // approved standing: the call ran at once
		p.waitText(`#transcript .item.tool[data-call-id="call-close-4800"] .result`, "Result")
	})
}

// Plan mode: entered from the composer, the plan shown for approval, left when it is approved.
func TestPlanMode(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))
		p.run(setValue(`#run-mode`, "plan"))
		p.sendAndWait("please close 4711")
		p.waitText(`#mode`, "mode: plan")
		p.waitText(`#approvals .approval.plan .plan-text`, "1. Close ticket 4711 (Printer prints blank pages).")
		p.waitText(`#transcript .item.tool[data-tool="get_ticket"] .result`, "Printer prints blank pages")
		p.do(func() { p.click(`#approvals .approval.plan button.approve`) })
		p.waitText(`#mode`, "mode: default")
		is.Equal(p.count(`#approvals .approval.plan`), 0)
		p.waitText(`#transcript .item.tool[data-tool="exit_plan_mode"] .result`, "Result")
	})
}

// Steering a run while it goes: the model's next call takes the text in. A tab that follows the conversation
// shows the steering when the run takes it in, from the run's steering event; the tab that sent it shows it once.
func TestSteering(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))
		p.sendAndWait("hello")
		q := newPage(t, "b", p)
		q.open(e.ui("tenant-a", conversationID(p)))
		q.waitText(`#watch-state`, "following")
		p.do(func() {
			p.send("wait")
			<-e.model.waiting
			p.waitText(`#run-state`, "running")
			p.run(typeInto(`#message`, "steer: only the open ones"), clickOn(`#steer`))
			p.waitText(`#transcript .item.steering`, "steer: only the open ones")
			e.model.free()
			q.waitText(`#transcript .item.steering`, "steer: only the open ones") // live: the follower does not reload
			q.waitText(`#timeline .live`, "steering taken in")
		})
		p.waitText(`#transcript .item.assistant`, "Taking in the steering: only the open ones")
		p.waitText(`#transcript .item.steering`, "steer: only the open ones") // as stored
		is.Equal(q.count(`#transcript .item.steering`), 1)
	})
}

// A second tab follows the run of the first through the watch stream, while it streams.
func TestSecondTabFollows(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))
		p.sendAndWait("hello")
		id := conversationID(p)

		q := newPage(t, "b", p)
		q.open(e.ui("tenant-a", id))
		q.waitText(`#transcript`, "You said: hello")
		q.waitText(`#watch-state`, "following")

		p.send("slow")
		<-e.model.waiting
		q.waitText(`#transcript`, "Streaming slowly")
		q.waitText(`#timeline .live`, "text")
		e.model.free()
		q.waitText(`#transcript`, "Streaming slowly and done.")
		p.waitText(`#transcript`, "Streaming slowly and done.")
	})
}

// A run started on another instance (another handler and store, on the same Postgres) streams into the tab that
// follows the conversation on this one.
func TestRunOnAnotherInstance(t *testing.T) {
	is := is.New(t)
	store, another := openPostgresPair(t)
	e := newEnv(t, store)
	other := e.instance(another())
	p := newPage(t, "a", nil)
	p.open(e.ui("tenant-a", ""))
	p.sendAndWait("hello")
	id := conversationID(p)
	p.waitText(`#watch-state`, "following")

	done := make(chan int, 1)
	go func() {
		r, _ := http.NewRequest("POST", other+"/api/conversations/"+id+"/runs", strings.NewReader(`{"text":"slow"}`))
		r.Header.Set(tenantHeader, "tenant-a")
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream") // a client that streams: a JSON answer would not stream the model
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			done <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-e.model.waiting
	p.waitText(`#transcript`, "Streaming slowly")
	e.model.free()
	p.waitText(`#transcript`, "Streaming slowly and done.")
	is.Equal(<-done, 200)
	p.click(`#reload-conversation`)
	p.waitText(`#transcript .item.user`, "slow") // the other client's input, from the store
	is.Equal(p.count(`#usage tr.usage-row`), 2)
}

// A watch stream cut by the server in the middle of an update: the tab reconnects with Last-Event-ID and shows
// every event once.
func TestWatchResumes(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))
		p.sendAndWait("hello")
		id := conversationID(p)

		q := newPage(t, "b", p)
		// The next watch stream ends after its first tool call: the first of the two calls of one update, which
		// carries no id (the update's last event does).
		e.cut.armCut("tool_call")
		q.open(e.ui("tenant-a", id))
		q.waitText(`#watch-state`, "following")

		p.sendAndWait("twice")
		q.waitText(`#watch-state`, "resumed after event")
		q.waitText(`#transcript .item.tool[data-call-id="call-b"] .result`, "Invoice shows the wrong address")
		q.waitText(`#transcript .item.tool[data-call-id="call-a"] .result`, "Printer prints blank pages")
		is.Equal(q.count(`#transcript .item.tool[data-call-id="call-a"]`), 1)
		is.Equal(q.count(`#transcript .item.tool[data-call-id="call-b"]`), 1)
		is.Equal(strings.Count(q.text(`#transcript`), "Reading two tickets at once."), 1)
		// The run's timeline, as the tab received it: each event once.
		is.Equal(q.count(`#timeline .live li[data-type="tool_call"]`), 2)
		is.Equal(q.count(`#timeline .live li[data-type="tool_result"]`), 2)
		is.Equal(q.count(`#timeline .live li[data-type="usage"]`), 2)
		resumes, cuts := e.cut.state()
		is.Equal(cuts, 1)
		// The tab resumed after the last event it had whole, and said so. Other watch requests (the first tab's,
		// after its run) may come in any order, so the tab's resume is looked for among all of them.
		state := q.text(`#watch-state`)
		at := strings.LastIndex(state, "resumed after event ")
		is.True(at >= 0)
		resumedAfter := strings.TrimRight(state[at+len("resumed after event "):], ") ")
		is.True(resumedAfter != "")
		is.True(slices.Contains(resumes, resumedAfter))
		is.Equal(eval[string](q, `document.body.dataset.watchReconnects`), "1")
	})
}

// Settings: a form from the schema, an edit saved, a validation error at its field, a conflicting edit.
func TestSettings(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		p.open(e.ui("tenant-a", ""))
		field := func(pointer string) string { return fmt.Sprintf(`#settings [data-pointer=%q]`, pointer) }
		p.waitText(`#settings-status`, "no settings yet")
		p.waitText(field("/max_iterations"), "integer")
		p.waitText(field("/max_iterations"), "A whole number from 1")
		p.waitText(field("/tools/search_tickets/limit"), "The most tickets one search returns.")
		p.waitText(field("/tools/search_tickets/limit"), "from 1 up to 100")
		is.Equal(p.count(field("/concurrent_tools")+` select option`), 3)

		p.run(typeInto(field("/max_iterations")+` input`, "5"), clickOn(`#save-settings`))
		p.waitText(`#settings-status`, "Saved: revision 1")

		p.run(setValue(field("/max_iterations")+` input`, "0"), clickOn(`#save-settings`))
		p.waitText(field("/max_iterations")+` .field-error`, "minimum")
		is.Equal(eval[string](p, `document.querySelector('[data-pointer="/max_iterations"] input').getAttribute('aria-invalid')`), "true")
		is.Equal(eval[string](p, `document.activeElement.dataset.pointer`), "/max_iterations")

		// Another client changes the settings meanwhile.
		status, etag, body := e.call("tenant-a", "PUT", "/agents/Desk/settings", `{"max_iterations":9}`, map[string]string{"If-Match": `"1"`})
		is.Equal(status, 200)
		is.Equal(etag, `"2"`)
		_ = body
		p.run(setValue(field("/max_iterations")+` input`, "7"), clickOn(`#save-settings`))
		p.waitText(`#settings-status`, "Conflict")
		is.Equal(p.count(`#settings .field-error:not([hidden])`), 0)
		p.click(`#reload-settings`)
		p.waitText(`#settings-status`, "Revision 2")
		is.Equal(eval[string](p, `document.querySelector('[data-pointer="/max_iterations"] input').value`), "9")
	})
}

// The UI of one tenant never shows another tenant's conversations.
func TestTenantsApart(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		a := newPage(t, "a", nil)
		a.open(e.ui("tenant-a", ""))
		a.sendAndWait("secret of tenant a")
		idA := conversationID(a)

		b := newPage(t, "b", nil)
		b.open(e.ui("tenant-b", ""))
		b.waitText(`#conversation-list`, "No conversations yet.")
		b.sendAndWait("hello from b")
		idB := conversationID(b)
		b.click(`#refresh-conversations`)
		b.waitText(`#conversation-list`, idB[:8])
		is.True(!strings.Contains(b.text(`#conversation-list`), idA[:8]))

		b.open(e.ui("tenant-b", idA))
		b.waitText(`#transcript`, "No such conversation in this tenant.")
		is.True(!strings.Contains(b.text(`body`), "secret of tenant a"))

		a.click(`#refresh-conversations`)
		time.Sleep(100 * time.Millisecond)
		a.waitText(`#conversation-list`, idA[:8])
		is.True(!strings.Contains(a.text(`#conversation-list`), idB[:8]))
	})
}

// tabTo presses Tab until the focused element matches the JavaScript predicate (on el, the focused element), and
// returns the ids of the elements focused on the way.
func tabTo(p *page, predicate string, most int) []string {
	p.t.Helper()
	var path []string
	for range most {
		p.run(chromedp.KeyEvent(kb.Tab))
		id := eval[string](p, `document.activeElement.id || document.activeElement.className || document.activeElement.tagName`)
		path = append(path, id)
		if eval[bool](p, `((el) => `+predicate+`)(document.activeElement)`) {
			return path
		}
	}
	p.t.Fatalf("%s tab: after %d presses of Tab, nothing matched %s; focused: %v", p.name, most, predicate, path)
	return nil
}

// At a phone's width, keyboard only: the page fits the screen, Tab reaches the controls in order, and a message
// and an approval go out with keys alone.
func TestKeyboardAndPhone(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memoryStore())
	p := newPage(t, "phone", nil)
	p.run(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	p.open(e.ui("tenant-a", ""))
	is.True(eval[bool](p, `document.documentElement.scrollWidth <= window.innerWidth`)) // no sideways scrolling

	path := tabTo(p, `el.id === "message"`, 20)
	is.Equal(path[:4], []string{"tenant", "agent", "new-conversation", "refresh-conversations"})
	p.run(chromedp.KeyEvent("close 4711"))
	tabTo(p, `el.id === "send"`, 3)
	p.do(func() { p.run(chromedp.KeyEvent(kb.Enter)) })
	p.waitText(`#approvals .approval`, "close_ticket")
	is.True(eval[bool](p, `document.documentElement.scrollWidth <= window.innerWidth`))

	is.True(eval[bool](p, `document.activeElement.classList.contains("approval")`)) // the focus went to the card
	tabTo(p, `el.classList.contains("approve")`, 3)
	p.do(func() { p.run(chromedp.KeyEvent(" ")) })
	p.waitText(`#transcript .item.tool[data-tool="close_ticket"] .result`, "Result")
}

var update = flag.Bool("update", false, "write docs/dev-ui.png from the browser")

// The screenshot of the docs, taken from the page in a state that shows most of it: a streamed answer, tool calls
// with results, a call waiting for approval, the settings form. With -update it is written to docs/dev-ui.png.
func TestScreenshot(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memoryStore())
	p := newPage(t, "screenshot", nil)
	p.run(chromedp.EmulateViewport(1440, 1000))
	p.open(e.ui("demo", ""))
	p.sendAndWait("search printer")
	p.sendAndWait("close 4711")
	p.waitText(`#approvals .approval`, "close_ticket")
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	is.NoErr(err)
	is.True(len(png) > 10000)
	if *update {
		is.NoErr(os.WriteFile(filepath.Join("..", "..", "..", "docs", "dev-ui.png"), png, 0o644))
	}
}

// What the API refuses, the page refuses too, and says why: a run on a conversation another run holds.
func TestRefusedRun(t *testing.T) {
	e := newEnv(t, memoryStore())
	p := newPage(t, "a", nil)
	p.open(e.ui("tenant-a", ""))
	p.sendAndWait("hello")
	id := conversationID(p)
	q := newPage(t, "b", p)
	q.open(e.ui("tenant-a", id))
	q.waitText(`#watch-state`, "following")

	p.send("wait")
	<-e.model.waiting
	q.sendAndWait("hello again")
	q.waitText(`#banner`, "409")
	q.waitText(`#banner`, "conversation-busy")
	e.model.free()
	p.waitText(`#transcript .item.tool[data-call-id="call-wait"] .result`, "Result")
}

// A stored conversation with files and reasoning: the transcript shows each file's name, type and size (never
// its bytes) and the model's reasoning folded, without its signature.
func TestFilesAndReasoning(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, memoryStore())
	status, _, body := e.call("tenant-a", "POST", "/conversations", `{"text":"think about this","files":[`+
		`{"media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUg==","name":"<b>shot</b>.png"},`+
		`{"media_type":"application/pdf","url":"https://example.com/manual.pdf","name":"manual.pdf"}]}`, nil)
	is.Equal(status, 201)
	var res struct {
		ID string `json:"conversation_id"`
	}
	is.NoErr(json.Unmarshal([]byte(body), &res))

	p := newPage(t, "a", nil)
	p.open(e.ui("tenant-a", res.ID))
	p.waitText(`#transcript .item.assistant`, "It is a printer.")
	p.waitText(`#transcript .item.file`, "<b>shot</b>.png (image/png, 16 bytes)")
	p.waitText(`#transcript .item.file`, "manual.pdf (application/pdf, https://example.com/manual.pdf)")
	is.Equal(p.count(`#transcript .item.file b`), 0) // a name is text, not markup
	p.waitText(`#transcript .item.reasoning details`, "The picture shows a printer.")
	is.True(!eval[bool](p, `document.querySelector('#transcript .item.reasoning details').open`))
	is.True(!strings.Contains(p.text(`#transcript`), "sig-devui"))
	is.True(!strings.Contains(p.text(`#transcript`), "iVBORw0KGgo"))
}
