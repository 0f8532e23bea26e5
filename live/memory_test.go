package live

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
)

// sample is one probe reading during a live run.
type sample struct {
	atMs     int64
	retained int
	window   int    // offsets the entries may cover (meter.retained)
	heap     uint64 // live heap after a collection, bytes (0: not measured)
	own      uint64 // of it, what sharesim's own code allocated (ownHeap)
}

type probeLog struct {
	mu      sync.Mutex
	heap    bool
	samples []sample
}

func (p *probeLog) probe(atMs int64, retained, window, _ int) {
	s := sample{atMs: atMs, retained: retained, window: window}
	if p.heap {
		s.own = ownHeap()
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

// retainedFlat checks that the per-offset entries a live run held (open offsets, produce
// times, held records) followed the records in flight, not the records produced, over a
// production of prodMs at rate records/s. At every reading the entries stay within three
// per offset of the in-flight window (from the meter's floors to the highest acknowledged
// offset) plus a constant: a meter that kept the entries of folded offsets would hold one
// per record produced, growing past the window as the run goes on. The bound does not
// depend on how fast the machine runs the consumers (a loaded machine lets the window, and
// with it the entries, grow), and the window itself must close by the end: the run's
// checks (liveness) pass only when every record completed.
func retainedFlat(t *testing.T, p *probeLog, prodMs int64, rate float64) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	produced := float64(prodMs) * rate / 1000
	var n, worst int
	var at sample
	for _, s := range p.samples {
		if s.atMs < prodMs/6 {
			continue
		}
		n++
		if over := s.retained - 3*s.window; over > worst || n == 1 {
			worst, at = over, s
		}
	}
	t.Logf("%.0f records produced; %d readings; the most entries beyond three per in-flight offset: %d (%d entries, window %d, at %d ms)", produced, n, worst, at.retained, at.window, at.atMs)
	if n < 6 {
		t.Fatalf("too few readings: %d", n)
	}
	if worst > 1000 {
		t.Errorf("per-offset entries outgrew the in-flight window: %d entries for a window of %d offsets at %d ms, of %.0f records", at.retained, at.window, at.atMs, produced)
	}
}

// ownHeap is the live heap that sharesim's own code allocated (a stack through
// github.com/sharesim/sharesim/ and not through kfake), in bytes, from the heap profile
// after a collection: the embedded kfake cluster shares the process and keeps its log in
// memory (kfake.(*memFile).Write grows with every record, retention or not), so the whole
// heap cannot show whether live mode's memory is flat.
func ownHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+50)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	var own uint64
	for i := range recs {
		ours, theirs := false, false
		frames := runtime.CallersFrames(recs[i].Stack())
		for {
			f, more := frames.Next()
			ours = ours || strings.HasPrefix(f.Function, "github.com/sharesim/sharesim/")
			theirs = theirs || strings.Contains(f.Function, "/pkg/kfake.")
			if !more {
				break
			}
		}
		if ours && !theirs {
			own += uint64(recs[i].InUseBytes())
		}
	}
	return own
}

// The heap sharesim's own code holds stays flat over a long run: quickstart for 45 s at
// 2000 records/s (90 000 records), measured between 15–25 s and 35–45 s. Before the
// history was streamed the run held about 900 bytes per record (65 MB more peak RSS for
// 72 000 more records), so 40 000 more records would be about 36 MB.
func TestLiveHeapFlatOverALongRun(t *testing.T) {
	if !testmode.Long {
		t.Skip("45 s of production: -tags long")
	}
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	runtime.MemProfileRate = 4096
	s := builtin(t, "quickstart", "duration=15m")
	p := &probeLog{heap: true}
	res, err := Run(context.Background(), s, Options{TimeScale: 0.05, probe: p.probe})
	if err != nil {
		t.Fatal(err)
	}
	var b writerBuf
	res.Summary(&b)
	t.Logf("%s", b.String())
	own := func(s sample) float64 { return float64(s.own) }
	total := func(s sample) float64 { return float64(s.heap) }
	early, n1 := p.maxIn(15_000, 25_000, own)
	late, n2 := p.maxIn(35_000, 45_000, own)
	te, _ := p.maxIn(15_000, 25_000, total)
	tl, _ := p.maxIn(35_000, 45_000, total)
	held, _ := p.maxIn(35_000, 45_000, func(s sample) float64 { return float64(s.retained) })
	t.Logf("sharesim's own live heap: at most %.2f MB at 15–25 s (%d readings), %.2f MB at 35–45 s (%d); the whole heap with kfake's log %.1f MB and %.1f MB; %.0f per-offset entries held at 35–45 s",
		early/1e6, n1, late/1e6, n2, te/1e6, tl/1e6, held)
	if n1 < 3 || n2 < 3 {
		t.Fatalf("too few readings: %d and %d", n1, n2)
	}
	if late > early+3e6 {
		t.Errorf("sharesim's own live heap grew by %.2f MB over 20 s (40 000 records)", (late-early)/1e6)
	}
}
