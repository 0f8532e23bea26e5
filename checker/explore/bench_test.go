package explore

import (
	"fmt"
	"testing"
	"time"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
)

// BenchmarkExplore explores the first b.N states of the default scope (with the symmetry
// reduction) on one goroutine and on one per CPU, and reports the rate, the seen set's bytes
// per state and the bytes per state of everything the search holds (Result.Memory: seen set,
// frontiers, parent pointers, wave buffers); one op is one state.
func BenchmarkExplore(b *testing.B) {
	for _, workers := range []int{1, 0} {
		name := "workers=1"
		if workers == 0 {
			name = "workers=all"
		}
		b.Run(name, func(b *testing.B) {
			sc := DefaultScope()
			sc.Workers = workers
			sc.MaxStates = max(b.N, 1000)
			b.ReportAllocs()
			b.ResetTimer()
			res, err := Explore(sc, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.StatesPerSecond(), "states/s")
			b.ReportMetric(float64(res.Transitions)/float64(res.States), "transitions/state")
			b.ReportMetric(res.SeenBytesPerState(), "seen-bytes/state")
			b.ReportMetric(float64(res.Memory)/float64(res.States), "memory-bytes/state")
		})
	}
}

var _ = model.Kafka42

// BenchmarkAnchor explores the anchor scope of docs/checking.md completely (the standard
// scope with no failover, no log-start move, one write outstanding and no dead store: 5 619 732
// states, 24 274 170 transitions, the figures an independent SPIN model reaches) on 1 and 2
// workers, and reports states/s and the CPU seconds per state of the process (user + system,
// all goroutines); one op is one whole search.
func BenchmarkAnchor(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			sc := anchorScope()
			sc.Fix, sc.Workers = "all", workers
			var states int
			var el, expanding time.Duration
			cpu0 := testmode.CPUSeconds()
			for i := 0; i < b.N; i++ {
				res, err := Explore(sc, nil)
				if err != nil {
					b.Fatal(err)
				}
				if res.States != 5619732 || res.Transitions != 24274170 {
					b.Fatalf("%d states, %d transitions: not the pinned figures", res.States, res.Transitions)
				}
				states += res.States
				el += res.Elapsed
				expanding += res.expanding
			}
			cpu := testmode.CPUSeconds() - cpu0
			b.ReportMetric(float64(states)/el.Seconds(), "states/s")
			// The share of the wall time outside the waves' parallel expansion: what more
			// workers cannot shorten (Amdahl's serial fraction, as this run measured it).
			b.ReportMetric(1-expanding.Seconds()/el.Seconds(), "serial-share")
			b.ReportMetric(cpu/float64(b.N), "cpu-s/search")
			b.ReportMetric(float64(states)/cpu, "states/cpu-s")
		})
	}
}

// anchorScope is the anchor scope of docs/checking.md: the standard scope with no failover,
// no log-start move, one write outstanding and no dead store.
func anchorScope() Scope {
	sc := DefaultScope()
	sc.Failovers, sc.LogStartMoves, sc.MaxPending, sc.DeadStore = 0, 0, 1, false
	return sc
}

// BenchmarkAnchorStates explores the first b.N states of the anchor scope (faithful core,
// findings on, as `sharesim check` runs it) on 1 and 2 workers: a short, repeatable prefix of
// BenchmarkAnchor's work (the same states in the same order on both), for profiles and
// instruction counts (valgrind --tool=callgrind counts every thread's: equal counts on 1 and
// 2 workers mean the second worker adds no work); one op is one state.
func BenchmarkAnchorStates(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			sc := anchorScope()
			sc.Findings, sc.Workers, sc.MaxStates = true, workers, max(b.N, 1000)
			exploreRates(b, sc)
		})
	}
}

// BenchmarkSeenOnDisk explores the standard scope's first b.N states on one worker with the
// seen set in memory and with its share of the budget cut to 32 MiB (the other stores in
// memory), so that from about 2.5 M states on it is flushed to disk runs again and again: the
// ratio of the two rates is what the disk set costs at this size; one op is one state.
func BenchmarkSeenOnDisk(b *testing.B) {
	for _, seen := range []int64{-1, 32 << 20} {
		name := "memory"
		if seen > 0 {
			name = "disk"
		}
		b.Run(name, func(b *testing.B) {
			sc := DefaultScope()
			sc.Workers, sc.MaxStates, sc.TempDir = 1, max(b.N, 1000), b.TempDir()
			sc.shares = &shares{seen: seen, frontier: -1, parents: -1, total: -1}
			res := exploreRates(b, sc)
			b.ReportMetric(float64(res.DiskBytes)/float64(1<<20), "disk-MiB")
		})
	}
}

// exploreRates explores sc once and reports its states per second of wall time and per
// second of the process's CPU time (every goroutine).
func exploreRates(b *testing.B, sc Scope) *Result {
	b.Helper()
	cpu0 := testmode.CPUSeconds()
	res, err := Explore(sc, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.StatesPerSecond(), "states/s")
	b.ReportMetric(float64(res.States)/(testmode.CPUSeconds()-cpu0), "states/cpu-s")
	return res
}
