package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/sharesim/sharesim/scenarios"
)

func TestZZMem(t *testing.T) {
	dur := os.Getenv("MEMDUR")
	if dur == "" {
		t.Skip()
	}
	sc, err := loadScenario("quickstart", []string{"duration=" + dur, "producers.0.rate=50/s"})
	if err != nil {
		t.Fatal(err)
	}
	if c := os.Getenv("MEMCHECKS"); c != "" {
		if err := sc.Set("checks", c); err != nil {
			t.Fatal(err)
		}
	}
	_ = scenarios.Approx
	o, err := simulate(sc, 1, simOpts{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("events %d produced %d heap %d MB (%.0f B/record) total alloc %d MB", o.res.Events, o.res.Metrics.Produced, ms.HeapAlloc>>20, float64(ms.HeapAlloc)/float64(o.res.Metrics.Produced), ms.TotalAlloc>>20)
	f, _ := os.Create("/tmp/door/heap.prof")
	pprof.WriteHeapProfile(f)
	f.Close()
	runtime.KeepAlive(o)
}
