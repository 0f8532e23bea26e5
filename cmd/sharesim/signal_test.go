package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sharesim/sharesim/internal/atomicfile"
	"github.com/sharesim/sharesim/reports"
)

// cli is sharesim started as a subprocess (this test binary, as the corpus runs it).
type cli struct {
	cmd            *exec.Cmd
	mu             sync.Mutex
	stdout, stderr bytes.Buffer
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func startCLI(t *testing.T, dir string, args ...string) *cli {
	t.Helper()
	self := cliBinary(t)
	c := &cli{cmd: exec.Command(self, args...)}
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), asCLI+"=1", "GORACE="+quickRaceExit)
	c.cmd.Stdout = lockedWriter{&c.mu, &c.stdout}
	c.cmd.Stderr = lockedWriter{&c.mu, &c.stderr}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	return c
}

func (c *cli) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stdout.String() + c.stderr.String()
}

// waitFor polls until cond holds; the deadline only keeps a broken command from hanging
// the test, it is not a bound of the command's speed.
func (c *cli) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
		if c.cmd.ProcessState != nil {
			break
		}
	}
	t.Fatalf("never saw %s; output:\n%s", what, c.output())
}

// exit waits for the command and returns its exit code.
func (c *cli) exit(t *testing.T) int {
	t.Helper()
	err := c.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// noTemps fails if dir holds a temporary file of an atomic write.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			t.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
}

// runCLI runs sharesim to its end and returns the exit code and output.
func runCLI(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	c := startCLI(t, dir, args...)
	code := c.exit(t)
	return code, c.output()
}

// SIGINT and SIGTERM during run --out end the run at once with exit code 3 and a result
// folder that says "interrupted": replay re-runs exactly the events it did and finds the
// same trace, report redraws it, and no temporary file is left.
func TestRunInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			c := startCLI(t, dir, "run", "quickstart", "--set", "duration=24h", "--yes", "--out", out, "--progress-every", "20ms")
			c.waitFor(t, "a progress line", func() bool { return strings.Contains(c.output(), "of virtual time (") })
			c.cmd.Process.Signal(sig)
			if code := c.exit(t); code != exitIncomplete {
				t.Fatalf("exit code %d, want %d\n%s", code, exitIncomplete, c.output())
			}
			if !strings.Contains(c.output(), "INTERRUPTED quickstart") {
				t.Errorf("no INTERRUPTED line:\n%s", c.output())
			}
			sum, err := reports.ReadSummary(out)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Verdict != "interrupted" || sum.CutShort == "" || sum.Events == 0 {
				t.Fatalf("summary: verdict %q, cut_short %q, %d events", sum.Verdict, sum.CutShort, sum.Events)
			}
			noTemps(t, out)
			if code, text := runCLI(t, dir, "replay", out); code != 0 || !strings.Contains(text, "SAME trace") {
				t.Errorf("replay of the interrupted folder: exit %d\n%s", code, text)
			}
			if code, text := runCLI(t, dir, "report", out); code != 0 {
				t.Errorf("report of the interrupted folder: exit %d\n%s", code, text)
			}
			page, err := os.ReadFile(filepath.Join(out, "index.html"))
			if err != nil || !bytes.Contains(page, []byte("INTERRUPTED")) {
				t.Errorf("index.html does not show the verdict INTERRUPTED (%v)", err)
			}
			noTemps(t, out)
		})
	}
}

// A signal during a sweep lets the runs in progress stop, writes the finished ones as an
// interrupted sweep (exit 3) that report draws, and --resume completes it.
func TestSweepInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "quickstart", "--seeds", "1..200", "--set", "duration=20s", "--set", "checks=none", "--jobs", "1", "--out", out, "--no-progress"}
	c := startCLI(t, dir, args...)
	rows := filepath.Join(out, "runs.ndjson")
	c.waitFor(t, "two finished runs", func() bool {
		b, _ := os.ReadFile(rows)
		return bytes.Count(b, []byte("\n")) >= 2
	})
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.exit(t); code != exitIncomplete {
		t.Fatalf("exit code %d, want %d\n%s", code, exitIncomplete, c.output())
	}
	tab, err := reports.ReadSweep(out)
	if err != nil {
		t.Fatal(err)
	}
	if !tab.Interrupted || len(tab.Rows) < 2 || len(tab.Rows) >= 200 {
		t.Fatalf("sweep.json: interrupted %v with %d rows", tab.Interrupted, len(tab.Rows))
	}
	noTemps(t, out)
	if code, text := runCLI(t, dir, "report", out); code != 0 {
		t.Errorf("report of the interrupted sweep: exit %d\n%s", code, text)
	}
	// A torn last line (a kill in the middle of a write) is dropped, not appended to.
	f, err := os.OpenFile(rows, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"point":0,"seed":1`)
	f.Close()
	code, text := runCLI(t, dir, append(args[:len(args):len(args)], "--resume")...)
	if code != 0 {
		t.Fatalf("--resume: exit %d\n%s", code, text)
	}
	data, err := os.ReadFile(rows)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 200 {
		t.Errorf("runs.ndjson holds %d lines, want 200", len(lines))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d of runs.ndjson is not JSON: %.80s", i+1, l)
		}
	}
	tab, err = reports.ReadSweep(out)
	if err != nil || tab.Interrupted || len(tab.Rows) != 200 {
		t.Errorf("after --resume: %v, interrupted %v, %d rows", err, tab != nil && tab.Interrupted, len(tab.Rows))
	}
}

// A signal during shrink writes the smallest failing scenario found so far (exit 3), and
// it still fails.
func TestShrinkInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "small.yaml")
	c := startCLI(t, "../..", "shrink", "docs/examples/log-start.yaml", "--set", "kafka.bug=spso-steps-back", "--max-runs", "100000", "--out", out, "--no-progress")
	c.waitFor(t, "a kept reduction", func() bool { return strings.Contains(c.output(), "still fails") })
	c.cmd.Process.Signal(syscall.SIGINT)
	code := c.exit(t)
	if code != exitIncomplete && code != 0 {
		t.Fatalf("exit code %d, want %d (or 0 if it had finished)\n%s", code, exitIncomplete, c.output())
	}
	if code == exitIncomplete && !strings.Contains(c.output(), "shrink interrupted") {
		t.Errorf("no interruption message:\n%s", c.output())
	}
	noTemps(t, dir)
	if code, text := runCLI(t, dir, "run", out, "-q"); code != exitFailed {
		t.Errorf("the reduction so far: exit %d, want %d (it still fails)\n%s", code, exitFailed, text)
	}
}

// A signal while report or merge writes leaves whole files: the old report or the new,
// never a temporary file or half a page.
func TestReportAndMergeUnderSignal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s1, s2 := filepath.Join(dir, "s1"), filepath.Join(dir, "s2")
	for i, s := range []string{s1, s2} {
		if code, text := runCLI(t, dir, "sweep", "quickstart", "--seeds", "1..4", "--set", "duration=5s", "--set", "checks=none", "--shard", []string{"1/2", "2/2"}[i], "--out", s, "--no-progress"); code != 0 {
			t.Fatalf("sweep: exit %d\n%s", code, text)
		}
	}
	for _, args := range [][]string{{"report", s1}, {"merge", s1, s2, "--out", filepath.Join(dir, "all")}} {
		for _, delay := range []time.Duration{0, 30 * time.Millisecond, 150 * time.Millisecond} {
			c := startCLI(t, dir, append(args, "--no-progress")...)
			time.Sleep(delay)
			c.cmd.Process.Signal(syscall.SIGINT)
			err := c.cmd.Wait()
			var ee *exec.ExitError
			switch {
			case err == nil, errors.As(err, &ee) && (ee.ExitCode() == exitIncomplete || ee.ExitCode() == -1):
				// finished, interrupted, or killed by the signal before it caught signals
			default:
				t.Errorf("%v after %s: %v\n%s", args, delay, err, c.output())
			}
			noTemps(t, dir)
			for _, d := range []string{s1, filepath.Join(dir, "all")} {
				if page, err := os.ReadFile(filepath.Join(d, "index.html")); err == nil && !bytes.HasSuffix(bytes.TrimSpace(page), []byte("</html>")) {
					t.Errorf("%s: half a page after a signal", d)
				}
			}
		}
	}
}

// SIGINT during a check that spills to disk stops the search at the next wave: the partial
// result is printed, the verdict is INCOMPLETE (exit 3: nothing was met, the scope was not
// finished) and the spill directory under --temp-dir is removed.
func TestCheckInterruptedRemovesSpill(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	c := startCLI(t, dir, "check", "--scope", "standard", "--fix", "all", "--memory", "8MiB", "--temp-dir", tmp)
	c.waitFor(t, "a spill file under --temp-dir", func() bool {
		found := false
		filepath.WalkDir(tmp, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				found = true
			}
			return nil
		})
		return found
	})
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := c.exit(t); code != exitIncomplete {
		t.Fatalf("exit code %d, want %d; output:\n%s", code, exitIncomplete, c.output())
	}
	out := c.output()
	for _, want := range []string{"interrupted", "INCOMPLETE"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind under --temp-dir: %s", e.Name())
	}
}
