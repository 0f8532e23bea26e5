package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/internal/testmode"
)

// check's exit codes: a complete search without violation is the only 0; a search cut short
// by a bound says how far it got and exits 3, never PASS; bad bounds are usage errors.
func TestCheckExitCodes(t *testing.T) {
	small := []string{"check", "--members", "1", "--batches", "1,1", "--limit", "2", "--cap", "2", "--max-records", "2", "--failovers", "0", "--workers", "1"}
	// tiny has one record (68 states, 7 489 in small): enough for the cases that only need
	// the search to finish (a pass, a spill, an estimate), each a run of its own under -race.
	tiny := []string{"check", "--members", "1", "--batches", "1", "--limit", "2", "--cap", "2", "--max-records", "2", "--failovers", "0", "--workers", "1"}
	cases := []struct {
		name  string
		args  []string
		code  int
		out   string // in stdout
		noOut string // never in stdout
	}{
		{"complete", append(tiny, "--fix", "all"), exitOK, "PASS: no invariant broken", "INCOMPLETE"},
		{"finding", small, exitFailed, "FINDING spso-below-log-start", "PASS"},
		{"json", append(tiny, "--fix", "all", "--json"), exitOK, `"verdict": "pass"`, "PASS"},
		{"json incomplete", append(small, "--json", "--depth", "2"), exitIncomplete, `"verdict": "incomplete"`, "PASS"},
		{"depth bound", append(small, "--depth", "3"), exitIncomplete, "INCOMPLETE: no violation in the first ", "PASS"},
		{"state bound", append(small, "--max-states", "50"), exitIncomplete, "; not complete (states bound reached)", "PASS"},
		{"violation", append(small, "--bug", "leave-decrements-count"), exitFailed, "FAIL: delivery-count-monotonic", "PASS"},
		{"negative workers", append(small, "--workers", "-1"), exitUsage, "", "PASS"},
		{"negative depth", append(small, "--depth", "-1"), exitUsage, "", "PASS"},
		{"negative max states", append(small, "--max-states", "-5"), exitUsage, "", "PASS"},
		{"bad memory", append(small, "--memory", "12x"), exitUsage, "", "PASS"},
		{"spilling", append(tiny, "--fix", "all", "--memory", "1"), exitOK, "spilled to disk at most, ", "INCOMPLETE"},
		{"json disk", append(tiny, "--fix", "all", "--memory", "1", "--json"), exitOK, `"disk_bytes": `, "PASS"},
		{"liveness spilling", append(tiny, "--fix", "all", "--memory", "1", "--liveness"), exitOK, "spilled to disk at most, ", "INCOMPLETE"},
		{"liveness incomplete", append(small, "--fix", "all", "--liveness", "--max-states", "50"), exitIncomplete, "liveness not checked: the search did not finish", "PASS"},
		{"liveness incomplete, findings", append(small, "--liveness", "--depth", "4"), exitFailed, "liveness not checked: the search did not finish", "no other invariant broken"},
		{"liveness complete", append(tiny, "--fix", "all", "--liveness"), exitOK, "liveness: no stuck state", "INCOMPLETE"},
		{"json liveness incomplete", append(small, "--fix", "all", "--liveness", "--max-states", "50", "--json"), exitIncomplete, `"liveness_not_checked": "the search did not finish"`, "PASS"},
		{"time bound", append(tiny, "--fix", "all", "--time", "1ns"), exitIncomplete, "not complete (time budget reached)", "PASS"},
		// --time 10m makes the sample 30 s: the scope (68 states) finishes inside it even
		// under -race on a loaded machine, so the estimate is exact whatever the load.
		{"estimate", append(tiny, "--fix", "all", "--estimate", "--time", "10m"), exitOK, "estimate: exact", "PASS"},
		{"unknown preset", append(small, "--scope", "huge"), exitUsage, "", "PASS"},
		{"ladder with scope flags", append(small, "--scope", "ladder"), exitUsage, "", "PASS"},
		{"bad temp dir", append(small, "--temp-dir", "/nonexistent/sharesim"), exitUsage, "", "states"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string(nil), c.args...)
			args = append(args, "--out", t.TempDir()+"/cex.yaml")
			code := run(args, &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, &stdout, &stderr)
			}
			if c.out != "" && !strings.Contains(stdout.String(), c.out) {
				t.Errorf("stdout lacks %q:\n%s", c.out, &stdout)
			}
			if strings.Contains(stdout.String(), c.noOut) {
				t.Errorf("stdout has %q:\n%s", c.noOut, &stdout)
			}
		})
	}
}

// --memory sizes: binary units by default and with -iB, decimal with -B; auto and 0.
func TestParseMemory(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1", 1}, {"512MiB", 512 << 20}, {"8GiB", 8 << 30}, {"8G", 8 << 30}, {"2gb", 2e9}, {"1.5k", 1536}, {" 3 MB ", 3e6}, {"auto", defaultMemory()},
	} {
		if got, err := parseMemory(c.in); err != nil || got != c.want {
			t.Errorf("parseMemory(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "x", "12x", "-1", "8 GiBs", "1e30G"} {
		if _, err := parseMemory(bad); err == nil {
			t.Errorf("parseMemory(%q): want an error", bad)
		}
	}
	if m := defaultMemory(); m <= 0 || m > 8<<30 {
		t.Errorf("default budget %d: want between 1 byte and 8 GiB", m)
	}
}

// --out names where every counterexample goes: a file takes the violation and each finding
// beside it; a directory takes them by their default names; a place that cannot be written
// is refused before the search.
func TestCheckOut(t *testing.T) {
	small := []string{"check", "--members", "1", "--batches", "1,1", "--limit", "2", "--cap", "2", "--max-records", "2", "--failovers", "0", "--workers", "1"}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(append(small, "--out", dir+"/cex.yaml"), &stdout, &stderr); code != exitFailed {
		t.Fatalf("exit %d\n%s%s", code, &stdout, &stderr)
	}
	if _, err := os.Stat(dir + "/cex-finding-spso-below-log-start.yaml"); err != nil {
		t.Errorf("the finding is not beside --out: %v\n%s", err, &stdout)
	}
	sub := dir + "/sub"
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run(append(small, "--out", sub), &stdout, &stderr); code != exitFailed {
		t.Fatalf("exit %d\n%s", code, &stdout)
	}
	if _, err := os.Stat(sub + "/finding-spso-below-log-start.yaml"); err != nil {
		t.Errorf("the finding is not in the --out directory: %v\n%s", err, &stdout)
	}
	stdout.Reset()
	code := run(append(small, "--out", dir+"/missing/cex.yaml"), &stdout, &stderr)
	if code != exitUsage || strings.Contains(stdout.String(), "states,") {
		t.Errorf("an unwritable --out: exit %d, want %d before the search\n%s", code, exitUsage, &stdout)
	}
}

// The ladder: one line per rung, the largest scope proved, and the verdict. Tiny budgets
// end after the first rungs: the default test run checks the form and the exit codes; with
// -tags long the 60-second default must meet every documented finding (exit 1) and end
// within a generous bound, and with every fix ends with only the two window findings that
// the fixes do not cover (docs/checking.md).
func TestCheckLadder(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	budget, halfBudget := "2s", "1s"
	if raceEnabled {
		budget, halfBudget = "4s", "2s"
	}
	code := run([]string{"check", "--time", budget, "--workers", "1", "--out", dir + "/"}, &stdout, &stderr)
	out := stdout.String()
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (findings)\n%s%s", code, exitFailed, out, &stderr)
	}
	for _, want := range []string{"ladder: 14 scopes", "   1. 1 member, 2 records", "complete, PASS", "largest scope proved: rung ", "FINDING spso-below-log-start", "KAFKA FINDINGS: "} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	stdout.Reset()
	if code := run([]string{"check", "--time", "1ns", "--fix", "all"}, &stdout, &stderr); code != exitIncomplete || !strings.Contains(stdout.String(), "liveness not checked") {
		t.Errorf("no rung finished: exit %d, want %d\n%s", code, exitIncomplete, &stdout)
	}
	stdout.Reset()
	// With every fix no rung meets a finding (rungs 1-6 are proved in checker/explore). Here
	// only the JSON form is checked, for which proving rung 1 (a fraction of a second) is
	// enough: half the budget.
	if code := run([]string{"check", "--time", halfBudget, "--fix", "all", "--json", "--workers", "1"}, &stdout, &stderr); code == exitIncomplete || code == exitUsage ||
		!strings.Contains(stdout.String(), `"mode": "ladder"`) || !strings.Contains(stdout.String(), `"largest_proved"`) {
		t.Errorf("ladder --json with every fix: exit %d\n%s", code, &stdout)
	}
	if !testmode.Long {
		return
	}
	for _, fix := range []string{"", "all"} {
		stdout.Reset()
		start := time.Now()
		args := []string{"check", "--out", dir + "/"}
		if fix != "" {
			args = append(args, "--fix", fix)
		}
		code := run(args, &stdout, &stderr)
		el := time.Since(start)
		out := stdout.String()
		t.Logf("fix %q: exit %d in %s\n%s", fix, code, el, out)
		if el > 3*time.Minute {
			t.Errorf("the 60 s ladder took %s", el)
		}
		if !strings.Contains(out, "largest scope proved: rung ") {
			t.Errorf("fix %q: exit %d, no scope proved", fix, code)
		}
		var want []string
		if fix == "" {
			if code != exitFailed {
				t.Errorf("faithful core: exit %d, want %d", code, exitFailed)
			}
			want = []string{"redelivered-below-log-start", "acquire-below-spso", "stuck-below-log-start", "spso-below-log-start"}
		} else if code == exitFailed || strings.Contains(out, "FINDING ") {
			t.Errorf("with every fix: exit %d, a finding met", code)
		}
		for _, name := range want {
			if !strings.Contains(out, "FINDING "+name) {
				t.Errorf("fix %q: finding %s not met", fix, name)
			}
		}
	}
}

// TestCheckProgressPeriod: check --progress reports every second unless --progress-every is
// given, which then sets the period (it was ignored with --progress before).
func TestCheckProgressPeriod(t *testing.T) {
	wasEvery, wasGiven, wasExplore := progressEvery, progressEveryGiven, explore.ProgressEvery
	defer func() { progressEvery, progressEveryGiven, explore.ProgressEvery = wasEvery, wasGiven, wasExplore }()
	for _, c := range []struct {
		name     string
		progress bool
		given    bool
		want     time.Duration
	}{
		{"--progress alone", true, false, time.Second},
		{"--progress --progress-every 30s", true, true, 30 * time.Second},
		{"--progress-every 30s alone (the CLI filters the lines)", false, true, time.Second},
		{"neither", false, false, time.Second},
	} {
		progressEvery, progressEveryGiven = 30*time.Second, c.given
		explore.ProgressEvery = time.Millisecond
		checkProgress(io.Discard, checkFlags{progress: c.progress})
		if explore.ProgressEvery != c.want {
			t.Errorf("%s: the explorer reports every %v, want %v", c.name, explore.ProgressEvery, c.want)
		}
	}
}

// A progress line names the states and their rate, the transitions, the level and its
// frontier, the memory and (when spilling) the disk, and the time.
func TestCheckProgressLine(t *testing.T) {
	for _, c := range []struct {
		s    explore.Snapshot
		want string
	}{
		{explore.Snapshot{States: 1000, Transitions: 4200, Depth: 3, Frontier: 250, Memory: 3 << 20, Elapsed: 2 * time.Second},
			"  1000 states (500/s), 4200 transitions, depth 3, frontier 250, 3.0 MB, 2s"},
		{explore.Snapshot{States: 5000, Transitions: 21000, Depth: 9, Frontier: 900, Memory: 3 << 30, Disk: 5 << 30, Elapsed: 10 * time.Second},
			"  5000 states (500/s), 21000 transitions, depth 9, frontier 900, 3.0 GB, 5.0 GB on disk, 10s"},
	} {
		if got := progressLine(c.s); got != c.want {
			t.Errorf("progressLine(%+v)\n got %q\nwant %q", c.s, got, c.want)
		}
	}
}
