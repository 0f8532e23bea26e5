package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress settings, from the root command's persistent flags.
var (
	// progressOff disables progress output (--no-progress).
	progressOff bool
	// progressEvery is the period of the progress line when stderr is not a terminal
	// (--progress-every).
	progressEvery = defaultProgressEvery
	// progressEveryGiven says whether --progress-every was on the command line.
	progressEveryGiven bool
)

// defaultProgressEvery is --progress-every's default (the README states it).
const defaultProgressEvery = 10 * time.Second

// progress reports how far a long command is, on stderr: a bar redrawn every second on a
// terminal, else one line every progressEvery. The remaining time is elapsed × (total −
// done) / done, measured from the start of the command (not from the first completed unit).
// Safe for concurrent use.
type progress struct {
	mu     sync.Mutex
	out    io.Writer
	label  string
	total  float64
	done   float64
	what   func(done, total float64) string // "12/40 runs", "45% of virtual time"
	start  time.Time
	bar    *progressbar.ProgressBar
	stop   chan struct{}
	wg     sync.WaitGroup
	closed bool
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress starts reporting; nil (a valid, silent *progress) when progress is off or
// stderr is nil.
func newProgress(stderr io.Writer, label string, total float64, what func(done, total float64) string) *progress {
	if progressOff || stderr == nil || total <= 0 {
		return nil
	}
	p := &progress{out: stderr, label: label, total: total, what: what, start: time.Now(), stop: make(chan struct{})}
	period := progressEvery
	if isTerminal(stderr) {
		const steps = 1000
		p.bar = progressbar.NewOptions(steps, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription(label),
			progressbar.OptionSetPredictTime(false), progressbar.OptionSetElapsedTime(false), progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30), progressbar.OptionThrottle(0))
		_ = p.bar.RenderBlank()
		period = time.Second
	}
	p.wg.Add(1)
	go p.loop(period)
	return p
}

func (p *progress) loop(period time.Duration) {
	defer p.wg.Done()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.show()
			p.mu.Unlock()
		}
	}
}

// status is "12/40 runs, 1m20s elapsed, about 3m left".
func (p *progress) status() string {
	el := time.Since(p.start)
	s := fmt.Sprintf("%s, %s elapsed", p.what(p.done, p.total), roundWall(el))
	if p.done > 0 && p.done < p.total {
		left := time.Duration(float64(el) * (p.total - p.done) / p.done)
		s += fmt.Sprintf(", about %s left", roundWall(left))
	}
	return s
}

// roundWall rounds a wall-clock duration for display: tenths of seconds under a minute.
func roundWall(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func (p *progress) show() {
	if p.closed {
		return
	}
	if p.bar != nil {
		p.bar.Describe(p.label + " " + p.status())
		_ = p.bar.Set(int(1000 * p.done / p.total))
		return
	}
	fmt.Fprintf(p.out, "%s: %s\n", p.label, p.status())
}

// set records how much is done.
func (p *progress) set(done float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = min(done, p.total)
	p.mu.Unlock()
}

// add adds to what is done.
func (p *progress) add(n float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = min(p.done+n, p.total)
	p.mu.Unlock()
}

// finish stops reporting and clears the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func countOf(unit string) func(done, total float64) string {
	return func(done, total float64) string { return fmt.Sprintf("%d/%d %s", int64(done), int64(total), unit) }
}

func virtualTimeOf(done, total float64) string {
	return fmt.Sprintf("%.0f%% of virtual time (%s of %s)", 100*done/total, fmtDuration(int64(done)), fmtDuration(int64(total)))
}
