package devui_test

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	tseval "github.com/typeshift-go/typeshift/agent/eval"
	"github.com/typeshift-go/typeshift/storage"
)

// downloads lets the tab download into dir, and returns a function that waits for the tab's next completed
// download, saved in dir under its GUID, and returns its path.
func (p *page) downloads(dir string) func() string {
	p.t.Helper()
	ctx, cancel := context.WithCancel(p.ctx)
	p.t.Cleanup(cancel)
	progress := chromedp.Events(ctx, cdpbrowser.DownloadProgress)
	on := true
	_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior:         cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName,
		BrowserContextID: chromedp.FromContext(p.ctx).BrowserContextID,
		DownloadPath:     dir,
		EventsEnabled:    &on,
	})
	if err != nil {
		p.t.Fatalf("%s tab: allowing downloads: %v", p.name, err)
	}
	next, stop := iter.Pull2(progress)
	p.t.Cleanup(stop)
	return func() string {
		p.t.Helper()
		deadline := time.AfterFunc(waitTimeout, cancel)
		defer deadline.Stop()
		for {
			ev, err, ok := next()
			if !ok || err != nil {
				p.t.Fatalf("%s tab: waiting for a download: %v", p.name, err)
			}
			if ev.State == cdpbrowser.DownloadProgressStateCompleted {
				return filepath.Join(dir, ev.GUID)
			}
		}
	}
}

// Saving a conversation as an eval case downloads the file the API names, and it is a case eval.Load reads:
// the conversation's last question, its calls and its answer. A conversation whose question the model has not
// answered yet is no case, and the page says why.
func TestSaveAsEvalCase(t *testing.T) {
	stores(t, func(t *testing.T, s storage.Store) {
		is := is.New(t)
		e := newEnv(t, s)
		p := newPage(t, "a", nil)
		dir := t.TempDir()
		next := p.downloads(dir)
		p.open(e.ui("tenant-a", ""))

		p.sendAndWait("hello")
		p.sendAndWait("please read 4711")
		p.waitText(`#transcript .item.tool[data-tool="get_ticket"] .result`, "Result")
		id := conversationID(p)
		p.click(`#save-eval-case`)
		file := next()
		p.waitText(`#banner`, "Saved the last turn as eval case "+id+".json")
		is.Equal(eval[string](p, `document.body.dataset.savedCase`), id+".json")

		// The download is a case file: kept under the name the API gave it, eval.Load reads it.
		cases := filepath.Join(t.TempDir(), "evals")
		is.NoErr(os.MkdirAll(cases, 0o755))
		data, err := os.ReadFile(file)
		is.NoErr(err)
		is.NoErr(os.WriteFile(filepath.Join(cases, id+".json"), data, 0o600))
		loaded, err := tseval.Load(os.DirFS(filepath.Dir(cases)), "evals")
		is.NoErr(err)
		is.Equal(len(loaded), 1)
		c := loaded[0]
		is.Equal(c.Name, id)
		is.Equal(c.SettingsID, "tenant-a")
		is.Equal(c.Text, "please read 4711")
		is.Equal(len(c.History), 2) // "hello" and its answer
		is.Equal(c.Expect.Trajectory.Calls[0].String(), "get_ticket(number=4711)")
		is.True(c.Expect.Answer != nil && c.Expect.Answer.Reference != "")

		// A question still unanswered: nothing is downloaded, and the banner gives the API's reason.
		p.run(chromedp.SendKeys(chromedp.CSS(`#message`), "wait"), chromedp.Click(chromedp.CSS(`#send`)))
		<-e.model.waiting
		p.click(`#save-eval-case`)
		p.waitText(`#banner`, "Not saved as an eval case: 409")
		p.waitText(`#banner`, "(no-turn)")
		e.model.free()
		p.idle()
		entries, err := os.ReadDir(dir)
		is.NoErr(err)
		is.Equal(len(entries), 1) // the one download
	})
}
