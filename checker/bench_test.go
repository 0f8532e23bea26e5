package checker_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// runDefault runs cfg as `sharesim run` does: with every default check (the history
// streamed to the checker) when checks is true, with none otherwise.
func runDefault(tb testing.TB, cfg sim.Config, checks bool) []checker.Violation {
	tb.Helper()
	if checks {
		_, _, vs := runChecks(tb, cfg, 1, nil, sim.Options{})
		return vs
	}
	if _, err := sim.Run(cfg, 1, sim.Options{}); err != nil {
		tb.Fatal(err)
	}
	return nil
}

// BenchmarkChecksCost runs built-in scenarios at seed 1 without checks and with every
// default check, alternately in each iteration, and reports the time of each and their
// ratio (checks-ratio, and checks-cpu-ratio the same in CPU time, steadier on a shared
// machine; the goal is at most 1.5). slow-processing-vs-lock is the world of
// issue 18 (5.3 M events, 2 400 consumers on 12 partitions); run it with -benchtime 1x or
// 3x.
func BenchmarkChecksCost(b *testing.B) {
	for _, name := range []string{"quickstart", "slow-processing-vs-lock"} {
		b.Run(name, func(b *testing.B) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			cfg, err := sc.SimConfig()
			if err != nil {
				b.Fatal(err)
			}
			var without, with time.Duration
			var cpuWithout, cpuWith float64
			for i := 0; i < b.N; i++ {
				runtime.GC() // the previous run's garbage is neither run's cost
				t0, c0 := time.Now(), testmode.CPUSeconds()
				runDefault(b, cfg, false)
				d0, e0 := time.Since(t0), testmode.CPUSeconds()-c0
				runtime.GC()
				t1, c1 := time.Now(), testmode.CPUSeconds()
				for _, v := range runDefault(b, cfg, true) {
					b.Fatalf("violation: %s", v)
				}
				without += d0
				with += time.Since(t1)
				cpuWithout += e0
				cpuWith += testmode.CPUSeconds() - c1
			}
			b.ReportMetric(without.Seconds()/float64(b.N), "s-without")
			b.ReportMetric(with.Seconds()/float64(b.N), "s-with")
			b.ReportMetric(with.Seconds()/without.Seconds(), "checks-ratio")
			if cpuWithout > 0 {
				b.ReportMetric(cpuWith/cpuWithout, "checks-cpu-ratio")
			}
		})
	}
}
