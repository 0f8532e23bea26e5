package live

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
)

// sample is one probe reading during a live run.
type sample struct {
	atMs     int64
	retained int
	heap     uint64 // live heap after a collection, bytes (0: not measured)
}

type probeLog struct {
	mu      sync.Mutex
	heap    bool
	samples []sample
}

func (p *probeLog) probe(atMs int64, retained int) {
	s := sample{atMs: atMs, retained: retained}
	if p.heap {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s.heap = ms.HeapAlloc
	}
	p.mu.Lock()
	p.samples = append(p.samples, s)
	p.mu.Unlock()
}

// maxIn is the largest sample in [fromMs, toMs) by get.
func (p *probeLog) maxIn(fromMs, toMs int64, get func(sample) float64) (float64, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	best, n := 0.0, 0
	for _, s := range p.samples {
		if s.atMs >= fromMs && s.atMs < toMs {
			best = max(best, get(s))
			n++
		}
	}
	return best, n
}

// The per-offset entries a live run holds (open offsets, produce times, held records)
// follow the records in flight, not the records produced: over quickstart's production
// at 2000 records/s they stay below a few seconds' worth, and the second half of the run
// holds no more than the first (slow records hold their partition for 2 s, so the level
// moves, but does not climb).
func TestLiveMemoryFollowsInFlightRecords(t *testing.T) {
	dur := "3m" // 9 s of production at 0.05
	if testmode.Long {
		dur = "15m" // 45 s
	}
	s := builtin(t, "quickstart", "duration="+dur, "heal=1m")

	p := &probeLog{}
	res, err := Run(context.Background(), s, Options{TimeScale: 0.05, probe: p.probe})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode() != 0 {
		var b writerBuf
		res.Summary(&b)
		t.Fatalf("exit %d:\n%s", res.ExitCode(), b.String())
	}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	prodMs := int64(float64(cfg.DurationMs) * 0.05)
	get := func(s sample) float64 { return float64(s.retained) }
	first, n1 := p.maxIn(prodMs/6, prodMs/2, get)
	second, n2 := p.maxIn(prodMs/2, prodMs, get)
	produced := float64(prodMs) * 2 // 2000 records/s
	t.Logf("%.0f records produced; per-offset entries held: at most %.0f in the first half (%d readings), %.0f in the second (%d)", produced, first, n1, second, n2)
	if n1 < 3 || n2 < 3 {
		t.Fatalf("too few readings: %d and %d", n1, n2)
	}
	if second > 2*first+3000 || (testmode.Long && second > produced/10) {
		t.Errorf("per-offset entries grew with the run: %.0f in the first half, %.0f in the second, of %.0f records", first, second, produced)
	}
}
