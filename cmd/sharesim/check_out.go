package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/sharesim/sharesim/checker/explore"
	"golang.org/x/term"
)

// checkProgress returns the progress reporter for check: on a terminal one status line
// redrawn every second (states, states/s, depth, frontier, memory, elapsed); otherwise a
// line every --progress-every (10 s by default), as every long command prints, and with
// --progress a line every second (every --progress-every when that is given) and after
// each level. Nothing with --no-progress, or with
// --json unless --progress.
func checkProgress(stderr io.Writer, f checkFlags) explore.Progress {
	tty := false
	if file, ok := stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		tty = true
	}
	explore.ProgressEvery = time.Second
	if f.progress && progressEveryGiven {
		explore.ProgressEvery = progressEvery
	}
	if progressOff && !f.progress || f.json && !f.progress {
		return nil
	}
	var last time.Time
	return func(s explore.Snapshot) {
		line := progressLine(s)
		switch {
		case tty && !f.progress:
			if s.Done {
				fmt.Fprintf(stderr, "\r\033[K")
				return
			}
			fmt.Fprintf(stderr, "\r\033[K%s", line)
		case f.progress:
			if !s.Done {
				fmt.Fprintln(stderr, line)
			}
		case !s.Done && time.Since(last) >= progressEvery:
			if last.IsZero() && s.Elapsed < progressEvery {
				return // the first line after one period, as for the other commands
			}
			last = time.Now()
			fmt.Fprintln(stderr, line)
		}
	}
}

// progressLine renders a snapshot: states, rate, transitions (states grow more successors as
// a search goes deeper, so the pace per transition is the steadier figure), depth, frontier,
// memory, disk (when spilling), elapsed.
func progressLine(s explore.Snapshot) string {
	disk := ""
	if s.Disk > 0 {
		disk = ", " + formatBytes(s.Disk) + " on disk"
	}
	return fmt.Sprintf("  %d states (%.0f/s), %d transitions, depth %d, frontier %d, %s%s, %s", s.States, s.StatesPerSecond(), s.Transitions, s.Depth, s.Frontier,
		formatBytes(s.Memory), disk, s.Elapsed.Round(100*time.Millisecond))
}

// diskNote says how much the search spilled ("" when nothing) and how many states the seen
// set found on disk (each a page read: lookups its generations in memory did not answer) and
// in its runs packed in memory.
func diskNote(res *explore.Result) string {
	note := ""
	if res.DiskBytes > 0 {
		note = fmt.Sprintf(", %s spilled to disk at most, %d states found on disk", formatBytes(res.DiskBytes), res.DiskHits)
	}
	if res.PackedHits > 0 {
		note += fmt.Sprintf(", %d states found in packed runs", res.PackedHits)
	}
	return note
}

// formatBytes renders a byte count in MB or GB.
func formatBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// checkJSON is check's --json output.
type checkJSON struct {
	Scope       string    `json:"scope"`
	Verdict     string    `json:"verdict"`
	ExitCode    int       `json:"exit_code"`
	States      int       `json:"states"`
	Transitions int64     `json:"transitions"`
	Depth       int       `json:"depth"`
	Complete    bool      `json:"complete"`
	Bounded     string    `json:"bounded,omitempty"`
	ElapsedSec  float64   `json:"elapsed_s"`
	StatesPerS  float64   `json:"states_per_s"`
	MemoryBytes int64     `json:"memory_bytes"`
	BudgetBytes int64     `json:"memory_budget_bytes"`
	DiskBytes   int64     `json:"disk_bytes"`
	DiskHits    int64     `json:"disk_hits"`
	PackedHits  int64     `json:"packed_hits"`
	SeenBPS     float64   `json:"seen_set_bytes_per_state"`
	Workers     int       `json:"workers"`
	Violation   *jFound   `json:"violation,omitempty"`
	Findings    []*jFound `json:"findings,omitempty"`
	Liveness    *jLive    `json:"liveness,omitempty"`
	// LivenessNotChecked says why liveness, asked for, was not decided.
	LivenessNotChecked string `json:"liveness_not_checked,omitempty"`
}

type jFound struct {
	Invariant string   `json:"invariant"`
	Finding   string   `json:"finding,omitempty"`
	Message   string   `json:"message"`
	Depth     int      `json:"depth"`
	Steps     []string `json:"steps"`
}

type jLive struct {
	Settled int   `json:"settled"`
	Stuck   int   `json:"stuck"`
	Edges   int64 `json:"edges"`
}

func toJFound(sc *explore.Scope, f *explore.Found) *jFound {
	if f == nil {
		return nil
	}
	j := &jFound{Invariant: f.Invariant, Finding: f.Finding, Message: f.Message, Depth: len(f.Path), Steps: []string{}}
	for _, a := range f.Path {
		j.Steps = append(j.Steps, a.Describe(sc))
	}
	return j
}

// verdictExit is the exit code of each verdict.
func verdictExit(v string) int {
	switch v {
	case verdictPass:
		return exitOK
	case verdictIncomplete:
		return exitIncomplete
	}
	return exitFailed
}

func writeCheckJSON(stdout io.Writer, sc explore.Scope, f checkFlags, res *explore.Result, verdict string) error {
	workers := sc.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	j := checkJSON{Scope: sc.String(), Verdict: verdict, ExitCode: verdictExit(verdict), States: res.States, Transitions: res.Transitions,
		Depth: res.Depth, Complete: res.Complete, Bounded: res.Bounded, ElapsedSec: res.Elapsed.Seconds(), StatesPerS: res.StatesPerSecond(),
		MemoryBytes: res.Memory, BudgetBytes: sc.Memory, DiskBytes: res.DiskBytes, DiskHits: res.DiskHits, PackedHits: res.PackedHits, SeenBPS: res.SeenBytesPerState(), Workers: workers, Violation: toJFound(&sc, res.Violation)}
	if l := res.Liveness; l != nil {
		j.Liveness = &jLive{Settled: l.Settled, Stuck: l.Stuck, Edges: l.Edges}
		if j.Violation == nil && l.First != nil {
			j.Violation = toJFound(&sc, l.First)
		}
	}
	if sc.Liveness && res.Liveness == nil {
		j.LivenessNotChecked = strings.TrimPrefix(livenessLine(sc, res), "liveness not checked: ")
	}
	for _, fd := range res.Findings {
		j.Findings = append(j.Findings, toJFound(&sc, fd))
	}
	return writeJSONVerdict(stdout, j, j.ExitCode)
}

// writeJSONVerdict prints v as indented JSON and returns the error that carries code
// (nil for exitOK); a failed write is exitFailed.
func writeJSONVerdict(stdout io.Writer, v any, code int) error {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}
