package reports

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser test opens index.html in a real headless Chromium and checks that the page
// renders with every plot visible and that nothing failed to load. It speaks the DevTools
// protocol over --remote-debugging-pipe (JSON messages separated by NUL bytes on file
// descriptors 3 and 4), so it needs no WebSocket library.
//
// Chromium comes from the distribution's packages (.ci/run installs it: apt-get install
// chromium); SHARESIM_CHROMIUM names another binary. Where none can be found the test is
// skipped. SHARESIM_SCREENSHOTS=DIR keeps a screenshot of each page there.

func findChromium() string {
	if p := os.Getenv("SHARESIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// cdpMessage is a DevTools protocol message: a command, its response or an event.
type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type cdpEvent struct {
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
}

type browser struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	mu     sync.Mutex
	nextID int64
	wait   map[int64]chan cdpMessage
	events chan cdpEvent
	stderr strings.Builder
}

func startBrowser(t *testing.T, path string) *browser {
	t.Helper()
	toBrowser, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, in: inW, wait: map[int64]chan cdpMessage{}, events: make(chan cdpEvent, 4096)}
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "--window-size=1200,900", "about:blank")
	b.cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3: commands in, fd 4: messages out
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Skipf("cannot start %s: %v", path, err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	go b.read(outR)
	t.Cleanup(func() {
		b.call("", "Browser.close", nil)
		done := make(chan struct{})
		go func() { b.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill()
			<-done
		}
	})
	return b
}

func (b *browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.wait {
				close(ch)
				delete(b.wait, id)
			}
			b.mu.Unlock()
			close(b.events)
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.wait[m.ID]
			delete(b.wait, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		var e cdpEvent
		if json.Unmarshal(raw[:len(raw)-1], &e) == nil {
			select {
			case b.events <- e:
			default: // nobody reads events this old
			}
		}
	}
}

// call sends a command (to a page session, or the browser when session is empty) and waits
// for its result.
func (b *browser) call(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.wait[id] = ch
	b.mu.Unlock()
	msg, err := json.Marshal(cdpMessage{ID: id, Method: method, Params: params, SessionID: session})
	if err != nil {
		return nil, err
	}
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the browser closed the connection; stderr:\n%s", method, b.stderr.String())
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 60 s", method)
	}
}

func (b *browser) must(session, method string, params any) json.RawMessage {
	b.t.Helper()
	r, err := b.call(session, method, params)
	if err != nil {
		b.t.Fatal(err)
	}
	return r
}

// pageCheck is what the page reports about itself after loading.
type pageCheck struct {
	Figures []struct {
		ID      string  `json:"id"`
		Width   float64 `json:"w"`
		Height  float64 `json:"h"`
		Visible bool    `json:"visible"`
		Texts   int     `json:"texts"`
		Drawn   int     `json:"drawn"`
	} `json:"figures"`
	Resources  []string `json:"resources"`
	BrokenImgs int      `json:"brokenImages"`
	Verdict    string   `json:"verdict"`
}

const pageCheckJS = `JSON.stringify({
  figures: [...document.querySelectorAll('figure.plot')].map(f => {
    const s = f.querySelector('svg');
    const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    const texts = s ? [...s.querySelectorAll('text')].filter(t => t.getBBox().width > 0).length : 0;
    const drawn = s ? [...s.querySelectorAll('path, polyline, line, rect, circle')].length : 0;
    const visible = !!s && s.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
    return {id: f.id, w: r.width, h: r.height, visible, texts, drawn};
  }),
  resources: performance.getEntriesByType('resource').map(e => e.name),
  brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).length,
  verdict: (document.getElementById('verdict') || {}).textContent || ''
})`

// openPage loads a page and returns what it says about itself, with every failure the browser
// reported while loading it.
func (b *browser) openPage(path string) (pageCheck, []string) {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		b.t.Fatal(err)
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(b.must("", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(b.must("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	s := att.SessionID
	for _, m := range []string{"Page.enable", "Network.enable", "Runtime.enable", "Log.enable"} {
		b.must(s, m, nil)
	}
	b.must(s, "Page.navigate", map[string]any{"url": "file://" + filepath.ToSlash(abs)})
	var problems []string
	deadline := time.After(60 * time.Second)
	for loaded := false; !loaded; {
		select {
		case e, ok := <-b.events:
			if !ok {
				b.t.Fatalf("the browser exited; stderr:\n%s", b.stderr.String())
			}
			if e.SessionID != s {
				continue
			}
			switch e.Method {
			case "Page.loadEventFired":
				loaded = true
			case "Network.loadingFailed":
				problems = append(problems, "load failed: "+string(e.Params))
			case "Network.responseReceived":
				var p struct {
					Response struct {
						URL    string `json:"url"`
						Status int    `json:"status"`
					} `json:"response"`
				}
				json.Unmarshal(e.Params, &p)
				if p.Response.Status >= 400 {
					problems = append(problems, fmt.Sprintf("HTTP %d for %s", p.Response.Status, p.Response.URL))
				}
			case "Runtime.exceptionThrown":
				problems = append(problems, "exception: "+string(e.Params))
			case "Log.entryAdded":
				if strings.Contains(string(e.Params), `"level":"error"`) {
					problems = append(problems, "console: "+string(e.Params))
				}
			}
		case <-deadline:
			b.t.Fatalf("%s did not finish loading in 60 s", path)
		}
	}
	var ev struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	json.Unmarshal(b.must(s, "Runtime.evaluate", map[string]any{"expression": pageCheckJS, "returnByValue": true}), &ev)
	if ev.ExceptionDetails != nil {
		b.t.Fatalf("checking the page failed: %v", ev.ExceptionDetails)
	}
	var pc pageCheck
	if err := json.Unmarshal([]byte(ev.Result.Value), &pc); err != nil {
		b.t.Fatalf("page check %q: %v", ev.Result.Value, err)
	}
	if dir := os.Getenv("SHARESIM_SCREENSHOTS"); dir != "" {
		var shot struct {
			Data string `json:"data"`
		}
		json.Unmarshal(b.must(s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}), &shot)
		png, _ := base64.StdEncoding.DecodeString(shot.Data)
		name := filepath.Base(filepath.Dir(abs)) + ".png"
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err == nil {
			b.t.Logf("screenshot: %s", filepath.Join(dir, name))
		}
	}
	b.must("", "Target.closeTarget", map[string]any{"targetId": target.TargetID})
	return pc, problems
}

func TestPageRendersInBrowser(t *testing.T) {
	path := findChromium()
	if path == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set SHARESIM_CHROMIUM): cannot check index.html in a browser")
	}
	b := startBrowser(t, path)
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			dir := copyFixture(t, fx.name)
			// A violation, so that the page's failure path renders too.
			if !fx.sweep {
				sum, err := ReadSummary(dir)
				if err != nil {
					t.Fatal(err)
				}
				sum.Verdict = "fail"
				sum.Violations = []Violation{{Check: "at-most-one-holder", Message: "offset 7 held by two members <b>", Reproduce: sum.Command}}
				if err := writeJSON(filepath.Join(dir, "summary.json"), sum); err != nil {
					t.Fatal(err)
				}
			}
			files, err := render(dir, true) // the page inlines the SVGs; the PNGs are only linked
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, f := range files {
				if strings.HasSuffix(f, ".svg") {
					want++
				}
			}
			b.t = t
			pc, problems := b.openPage(filepath.Join(dir, "index.html"))
			for _, p := range problems {
				t.Errorf("while loading: %s", p)
			}
			if len(pc.Resources) > 0 {
				t.Errorf("the page loaded resources: %v", pc.Resources)
			}
			if pc.BrokenImgs > 0 {
				t.Errorf("%d images did not load", pc.BrokenImgs)
			}
			if len(pc.Figures) != want {
				t.Errorf("the page shows %d plots, want %d", len(pc.Figures), want)
			}
			for _, f := range pc.Figures {
				if !f.Visible || f.Width < 400 || f.Height < 150 || f.Texts < 5 || f.Drawn < 10 {
					t.Errorf("plot %s is not visibly drawn: %+v", f.ID, f)
				}
			}
			if wantVerdict := map[bool]string{true: "PASS", false: "FAIL"}[fx.sweep]; pc.Verdict != wantVerdict {
				t.Errorf("verdict shown %q, want %q", pc.Verdict, wantVerdict)
			}
		})
	}
	// The check itself: a page with a missing image and a script error must fail it.
	t.Run("catches-failures", func(t *testing.T) {
		dir := t.TempDir()
		page := `<!DOCTYPE html><html><body><figure class="plot" id="fig-x"><img src="missing.png"></figure>` +
			`<script>undefinedFunction()</script></body></html>`
		if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		b.t = t
		pc, problems := b.openPage(filepath.Join(dir, "index.html"))
		if len(problems) < 2 || pc.BrokenImgs != 1 {
			t.Errorf("a missing image and a script error went unnoticed: problems %q, broken images %d", problems, pc.BrokenImgs)
		}
		if len(pc.Figures) != 1 || pc.Figures[0].Visible {
			t.Errorf("a plot without an SVG counted as visible: %+v", pc.Figures)
		}
	})
}
