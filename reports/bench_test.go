package reports

import (
	"testing"

	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim"
)

// hourRun is the world of the simulator's performance goal (testworlds.Hour) for one hour,
// with a kill, a leader failover and a minute of healing, so that every plot has something
// to draw.
func hourRun() sim.Config {
	cfg := testworlds.Hour(3_600_000)
	cfg.HealMs = 60_000
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, Target: "worker-3", AtMs: 900_000, RestartAfterMs: 10_000},
		{Kind: sim.FaultLeaderFailover, Target: "orders/1", AtMs: 2_400_000},
	}
	return cfg
}

// BenchmarkReportHourRun measures drawing the report of a one-hour run (goal: under 2 s):
// "render" is `sharesim report DIR` (read the folder, draw every plot as SVG and PNG, write
// index.html); "write+render" adds writing the result folder's data files as `run --out`
// does (the event trace aside).
func BenchmarkReportHourRun(b *testing.B) {
	res, err := sim.Run(hourRun(), 1, sim.Options{SampleRecords: SampleRecords})
	if err != nil {
		b.Fatal(err)
	}
	sum := &Summary{Scenario: "hour", Seed: 1, Sharesim: "bench", Verdict: "pass", Violations: []Violation{}, Headline: NewHeadline(res),
		Metrics: res.Metrics, Marks: MarksMap(res), Final: res.Final, TraceSHA256: res.TraceSHA256, Events: res.Events, EndMs: res.EndMs}
	b.Run("render", func(b *testing.B) {
		dir := b.TempDir()
		if err := WriteRun(dir, sum, res, nil); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := Render(dir); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
	})
	b.Run("write+render", func(b *testing.B) {
		dir := b.TempDir()
		for i := 0; i < b.N; i++ {
			if err := WriteRun(dir, sum, res, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := Render(dir); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
	})
}
