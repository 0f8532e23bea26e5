package sim_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim"
)

// busyConfig is testworlds.Busy with a close and a kill of the classic group besides.
func busyConfig() sim.Config {
	cfg := testworlds.Busy()
	cfg.Faults = append(cfg.Faults,
		sim.Fault{Kind: sim.FaultClose, Target: "cls", AtMs: 45_000, RestartAfterMs: 1_000},
		sim.Fault{Kind: sim.FaultKill, Target: "cls", AtMs: 65_000, RestartAfterMs: 10_000})
	return cfg
}

func runHash(t *testing.T, cfg sim.Config, seed uint64) *sim.Result {
	t.Helper()
	res, err := sim.Run(cfg, seed, sim.Options{})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return res
}

// One seed gives the same trace, byte for byte; different seeds give different traces.
func TestDeterminismSameSeedSameTrace(t *testing.T) {
	seeds := 12
	if testing.Short() || (testmode.Race && !testmode.Long) {
		seeds = 4 // -race finds nothing in a one-goroutine run; the long run keeps 12
	}
	cfg := busyConfig()
	seen := map[string]uint64{}
	for s := uint64(1); s <= uint64(seeds); s++ {
		a, b := runHash(t, cfg, s), runHash(t, cfg, s)
		if a.TraceSHA256 != b.TraceSHA256 || a.Events != b.Events {
			t.Fatalf("seed %d: two runs differ: %s/%d vs %s/%d", s, a.TraceSHA256, a.Events, b.TraceSHA256, b.Events)
		}
		if prev, dup := seen[a.TraceSHA256]; dup {
			t.Errorf("seeds %d and %d gave the same trace", prev, s)
		}
		seen[a.TraceSHA256] = s
		if a.Events < 10_000 {
			t.Errorf("seed %d: only %d events; the busy world should be busy", s, a.Events)
		}
	}
}

// The trace does not depend on GOMAXPROCS, nor on other worlds running at the same time.
func TestDeterminismIndependentOfScheduling(t *testing.T) {
	cfg := busyConfig()
	want := runHash(t, cfg, 7).TraceSHA256
	prev := runtime.GOMAXPROCS(1)
	one := runHash(t, cfg, 7).TraceSHA256
	runtime.GOMAXPROCS(prev)
	if one != want {
		t.Errorf("GOMAXPROCS=1 changed the trace")
	}
	var wg sync.WaitGroup
	got := make([]string, 4)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := sim.Run(cfg, 7, sim.Options{})
			if err == nil {
				got[i] = res.TraceSHA256
			}
		}(i)
	}
	wg.Wait()
	for i, h := range got {
		if h != want {
			t.Errorf("concurrent run %d: trace %s, want %s", i, h, want)
		}
	}
}

// The kept trace hashes to the reported SHA-256 and covers the interesting events.
func TestBusyWorldCoverage(t *testing.T) {
	res, err := sim.Run(busyConfig(), 3, sim.Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	marks := map[string]int64{}
	for _, m := range res.Marks {
		marks[m.Name] = m.Count
	}
	for _, want := range []string{"redelivery", "lock-expired", "failover-reload", "release-on-leave", "write-failed",
		"consumer-crash", "fault-kill", "fault-leader-failover", "txn-aborted", "compacted", "duplicate-processing"} {
		if marks[want] == 0 {
			t.Errorf("mark %q never set; marks: %v", want, res.Marks)
		}
	}
	if len(res.Trace) == 0 || int64(len(res.Trace)) != res.Events && len(res.Trace) < 1000 {
		t.Errorf("trace has %d lines for %d events", len(res.Trace), res.Events)
	}
}
