package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/sim"
)

// The printed group block words the cases that used to mislead (issue 19): a share group
// from which nothing left the in-flight window says so (not "as nothing"), a window that
// starts well before the first delivery says the rates include that start, and a kept-up
// group that completed more than arrived names the backlog it drained.
func TestPrintedGroupWording(t *testing.T) {
	base := func() sim.GroupMetrics {
		return sim.GroupMetrics{Name: "g", Type: "share", Window: sim.Window{StartMs: 0, EndMs: 100_000},
			Accounting: sim.Accounting{Finished: map[string]int64{}}, KeepUp: sim.KeepUp{KeptUp: true}, FirstDeliveryMs: 100}
	}
	print := func(g sim.GroupMetrics) string {
		var b bytes.Buffer
		printGroup(&b, &g)
		return b.String()
	}
	g := base()
	if out := print(g); !strings.Contains(out, "no offset left the in-flight window") || strings.Contains(out, "as nothing") || strings.Contains(out, "no warm-up") {
		t.Errorf("nothing finished, first delivery at 0.1%% of the window:\n%s", out)
	}
	g = base()
	g.FirstDeliveryMs = 4_000
	if out := print(g); !strings.Contains(out, "(no warm-up: the first record reached a consumer at 4s, 4.0% into the window, so the rates read about that much below the steady state)") {
		t.Errorf("first delivery at 4 s of 100 s:\n%s", out)
	}
	g.Window.WarmupMs, g.Window.StartMs = 4_000, 4_000
	if out := print(g); strings.Contains(out, "no warm-up") {
		t.Errorf("with a warm-up the note is not printed:\n%s", out)
	}
	if out := print(base()); strings.Contains(out, "redelivered over the run") {
		t.Errorf("nothing redelivered, yet causes printed:\n%s", out)
	}
	g = base()
	g.RedeliveriesByCause = sim.RedeliveryCauses{LockExpiry: 60, Crash: 10}
	if out := print(g); !strings.Contains(out, "deliveries per record; redelivered over the run after lock expiry 60, crash 10\n") {
		t.Errorf("redeliveries by cause (a crash's released poll must show):\n%s", out)
	}
	g = base()
	g.Rates = sim.Rates{ArrivalPerSec: 100, CompletedPerSec: 101.8}
	g.KeepUp.BacklogStart = 180
	if out := print(g); !strings.Contains(out, "101.8/s completed (ACCEPT written), the backlog of 180 at the window's start included") {
		t.Errorf("completed above the arrivals:\n%s", out)
	}
}

// A title describes the scenario as written; with --set overrides the run says what it
// changed (a title "against the default 30 s lock" on a 60 s run misled).
func TestTitleNamesOverrides(t *testing.T) {
	if got := reports.TitleWithOverrides("Slow processing against the default 30 s lock", nil); got != "Slow processing against the default 30 s lock" {
		t.Errorf("without overrides: %q", got)
	}
	got := reports.TitleWithOverrides("Slow processing against the default 30 s lock", []string{"kafka.share.record.lock.duration.ms=60s"})
	if want := "Slow processing against the default 30 s lock — as written; this run changed kafka.share.record.lock.duration.ms=60s"; got != want {
		t.Errorf("with an override: %q, want %q", got, want)
	}
}

// A scripted built-in run with --set says what it changed, as a workload run does: a script
// written for Kafka 4.1 run on 4.4 fails its expectations, and the title line says why.
func TestScriptedTitleNamesOverrides(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "leave-decrements-count-41", "--set", "kafka.version=4.4"}, &out, &errb)
	want := "\n  In Kafka 4.1 a session release lowers the delivery count and never archives — as written; this run changed kafka.version=4.4\n"
	if code != exitFailed || !strings.HasPrefix(out.String(), "FAIL leave-decrements-count-41") || !strings.Contains(out.String(), want) {
		t.Errorf("exit %d, output:\n%s\nwant exit %d and the title with the override", code, out.String(), exitFailed)
	}
	out.Reset()
	if code := run([]string{"run", "leave-decrements-count-41"}, &out, &errb); code != exitOK || strings.Contains(out.String(), "as written") {
		t.Errorf("without --set: exit %d, output:\n%s", code, out.String())
	}
}
