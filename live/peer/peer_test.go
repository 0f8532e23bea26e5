package peer

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
)

// workers is how many clusters run sequences in parallel; each runs rapid's default 100
// sequences (-rapid.checks), so the default run compares 400 sequences.
func workers() int {
	if testmode.Long {
		return 24
	}
	return 4
}

// tally counts what the differential test saw, over all workers.
type tally struct {
	mu        sync.Mutex
	sequences int
	agreed    int               // sequences compared to the end with no disagreement
	steps     int               // steps compared
	stopped   map[string]int    // sequences stopped at a tolerated deviation, by ID
	tolerated map[string]int    // tolerated disagreements (steps), by ID
	examples  map[string]string // the shortest sequence showing each ID
}

func (t *tally) add(res seqResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sequences++
	t.steps += res.steps
	if len(res.tolerated) == 0 && res.stoppedBy == "" {
		t.agreed++
	}
	if res.stoppedBy != "" {
		t.stopped[res.stoppedBy]++
	}
	for id, n := range res.tolerated {
		t.tolerated[id] += n
		if ex, ok := t.examples[id]; !ok || len(res.examples[id]) < len(ex) {
			t.examples[id] = res.examples[id]
		}
	}
}

// failure is the last sequence that ended in an unexplained disagreement (rapid's shrunk
// example is the last one it runs).
type failure struct {
	setup Setup
	steps []Step
}

type seqResult struct {
	steps     int
	stoppedBy string
	tolerated map[string]int
	examples  map[string]string
}

// genStep draws the next step. The generator follows the run: acknowledgements often aim
// at what the member last acquired, so that they are not all refused.
type gen struct {
	hwm       int64
	single    bool // only one-record batches this sequence
	waits     int
	lastFetch map[string][]Range
}

var members = []string{"m1", "m2"}

func (g *gen) step(t *rapid.T, i int) Step {
	kinds := []StepKind{Produce, Produce, Produce, Fetch, Fetch, Fetch, Fetch, Ack, Ack, Ack, Ack, Wait, Leave}
	k := rapid.SampledFrom(kinds).Draw(t, fmt.Sprintf("kind%d", i))
	if k == Wait && g.waits >= 3 {
		k = Fetch
	}
	switch k {
	case Produce:
		n := 1
		if !g.single {
			n = rapid.IntRange(1, 5).Draw(t, fmt.Sprintf("records%d", i))
		}
		g.hwm += int64(n)
		return Step{Kind: Produce, Records: n}
	case Fetch:
		mode := model.BatchOptimized
		if rapid.Bool().Draw(t, fmt.Sprintf("recordLimit%d", i)) {
			mode = model.RecordLimit
		}
		return Step{Kind: Fetch, Member: rapid.SampledFrom(members).Draw(t, fmt.Sprintf("member%d", i)),
			MaxRecords: rapid.IntRange(1, 6).Draw(t, fmt.Sprintf("max%d", i)), Mode: mode}
	case Ack:
		m := rapid.SampledFrom(members).Draw(t, fmt.Sprintf("member%d", i))
		return Step{Kind: Ack, Member: m, Ranges: g.ranges(t, i, m)}
	case Wait:
		g.waits++
		return Step{Kind: Wait}
	}
	return Step{Kind: Leave, Member: rapid.SampledFrom(members).Draw(t, fmt.Sprintf("member%d", i)),
		ViaAcknowledge: rapid.Bool().Draw(t, fmt.Sprintf("viaAcknowledge%d", i))}
}

func (g *gen) ranges(t *rapid.T, i int, m string) []model.AckRange {
	n := rapid.IntRange(1, 2).Draw(t, fmt.Sprintf("nranges%d", i))
	var out []model.AckRange
	var prevLast int64 = -1
	held := g.lastFetch[m]
	for j := 0; j < n; j++ {
		label := fmt.Sprintf("%d.%d", i, j)
		var first, last int64
		if len(held) > 0 && rapid.Bool().Draw(t, "aim"+label) {
			r := rapid.SampledFrom(held).Draw(t, "held"+label)
			first = rapid.Int64Range(r.First, r.Last).Draw(t, "first"+label)
			last = rapid.Int64Range(first, r.Last+1).Draw(t, "last"+label)
		} else {
			lo := max(prevLast, 0)
			first = rapid.Int64Range(lo, max(lo, g.hwm+1)).Draw(t, "first"+label)
			last = first + rapid.Int64Range(0, 3).Draw(t, "len"+label)
		}
		if j > 0 && first < prevLast && rapid.IntRange(0, 7).Draw(t, "overlap"+label) != 0 {
			// Mostly touching rather than overlapping: an overlap of more than one offset is
			// refused alike by both (INVALID_REQUEST).
			first = prevLast
			last = max(last, first)
		}
		types := []model.AckType{rapid.SampledFrom(allTypes).Draw(t, "type"+label)}
		if first < last && rapid.Bool().Draw(t, "perOffset"+label) {
			types = types[:0]
			for o := first; o <= last; o++ {
				types = append(types, rapid.SampledFrom(allTypes).Draw(t, fmt.Sprintf("type%s@%d", label, o)))
			}
		}
		out = append(out, model.AckRange{First: first, Last: last, Types: types})
		prevLast = last
	}
	return out
}

var allTypes = []model.AckType{model.AckGap, model.AckAccept, model.AckRelease, model.AckReject, model.AckRenew}

// probe is appended to every sequence: after all locks fire, a new member fetches everything
// it can, which shows every offset that is AVAILABLE (and its delivery count) on each side.
var probe = []Step{{Kind: Wait}, {Kind: Fetch, Member: "probe", MaxRecords: 500, Mode: model.RecordLimit}}

// probeMax is the probe's max records: everything (500), or under a small cap what Kafka's
// budget allows, min(500, cap − in-flight), so that the probe does not stop at the
// cap-budget deviation whenever the window holds released records.
func probeMax(p *Pair) int {
	if free := int64(p.Setup.PartitionMaxRecordLocks) - p.Model.Core().InFlightCount(); free >= 1 && free < 500 {
		return int(free)
	}
	return 500
}

// runSequence draws and runs one sequence; an unexplained disagreement fails t with the
// sequence so far as a reproduction (rapid then shrinks it).
func runSequence(t *rapid.T, b *Broker, lastFailure *failure) seqResult {
	setup := Setup{DeliveryCountLimit: rapid.SampledFrom([]int{2, 3, 5}).Draw(t, "limit")}
	if rapid.Bool().Draw(t, "smallCap") {
		setup.PartitionMaxRecordLocks = rapid.IntRange(4, 11).Draw(t, "cap")
	} else {
		setup.PartitionMaxRecordLocks = 2000
	}
	g := &gen{single: rapid.Bool().Draw(t, "singleRecordBatches"), lastFetch: map[string][]Range{}}
	n := rapid.IntRange(8, 21).Draw(t, "steps")
	p, err := NewPair(b, setup)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	res := seqResult{tolerated: map[string]int{}, examples: map[string]string{}}
	var done []Step
	for i := 0; i < n+len(probe); i++ {
		var s Step
		if i < n {
			s = g.step(t, i)
		} else {
			s = probe[i-n]
			if s.Kind == Fetch {
				s.MaxRecords = probeMax(p)
			}
		}
		done = append(done, s)
		r, err := p.Do(s)
		if err != nil {
			t.Fatalf("driver error at step %d: %v\n%s", i+1, err, FormatSequence(setup, done))
		}
		res.steps++
		if s.Kind == Fetch {
			g.lastFetch[s.Member] = r.Broker.Acquired
		}
		if s.Kind == Leave {
			delete(g.lastFetch, s.Member)
		}
		if len(r.Diffs) == 0 {
			continue
		}
		if r.Unexplained {
			var ds []string
			for _, d := range r.Diffs {
				ds = append(ds, d.String())
			}
			*lastFailure = failure{setup: setup, steps: done}
			t.Fatalf("kfake and the model disagree at step %d, outside the deviation filter: %s\n%s",
				i+1, strings.Join(ds, "; "), FormatSequence(setup, done))
		}
		res.tolerated[r.Deviation]++
		if _, ok := res.examples[r.Deviation]; !ok {
			res.examples[r.Deviation] = FormatSequence(setup, done) + fmt.Sprintf("     at step %d: %s\n", i+1, r.Describe(s))
		}
		if !r.GoOn {
			res.stoppedBy = r.Deviation
			break
		}
	}
	return res
}

// TestDifferentialKfake runs random sequences on kfake over the protocol and on the model
// (Kafka 4.2) and fails on any disagreement the deviation filter does not explain.
func TestDifferentialKfake(t *testing.T) {
	tl := &tally{stopped: map[string]int{}, tolerated: map[string]int{}, examples: map[string]string{}}
	start := time.Now()
	t.Run("workers", func(t *testing.T) {
		// Four workers at a time, each subtest on a goroutine of its own rather than
		// t.Parallel, which go test's -parallel (GOMAXPROCS) would hold to two at a time: a
		// worker mostly waits on its cluster (under -race four of them, two at a time, took
		// 14 s of wall time for 7 CPU-s).
		var wg sync.WaitGroup
		defer wg.Wait()
		slots := make(chan struct{}, 4)
		for w := 0; w < workers(); w++ {
			wg.Add(1)
			slots <- struct{}{}
			go func() {
				defer func() { <-slots; wg.Done() }()
				t.Run(fmt.Sprint(w), func(t *testing.T) { differentialWorker(t, tl) })
			}()
		}
	})
	el := time.Since(start)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	stopped := 0
	for _, n := range tl.stopped {
		stopped += n
	}
	t.Logf("%d sequences (%d steps) in %.1f s: %.1f sequences/s; %d compared to the end (%d of them without any disagreement), %d stopped at a tolerated deviation",
		tl.sequences, tl.steps, el.Seconds(), float64(tl.sequences)/el.Seconds(), tl.sequences-stopped, tl.agreed, stopped)
	ids := make([]string, 0, len(tl.tolerated))
	for id := range tl.tolerated {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Logf("tolerated %-36s %4d steps, %4d sequences stopped there", id, tl.tolerated[id], tl.stopped[id])
	}
	if testing.Verbose() {
		for _, id := range ids {
			t.Logf("shortest sequence showing %s:\n%s", id, tl.examples[id])
		}
	}
	if !t.Failed() && tl.sequences < 200 {
		t.Errorf("only %d sequences ran; the default run must compare at least 200", tl.sequences)
	}
}

// differentialWorker is one worker of TestDifferentialKfake: a cluster of its own and
// rapid's sequences against it, counted in tl.
func differentialWorker(t *testing.T, tl *tally) {
	c, err := NewCluster()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b, err := NewBroker(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var last failure
	defer func() {
		if last.steps == nil {
			return
		}
		min, replay, err := Minimize(b, last.setup, last.steps)
		if err != nil {
			t.Logf("minimizing the failure: %v", err)
			return
		}
		t.Logf("minimal sequence (%d steps), kfake/model per step:\nbroker configs: %s\n%s", len(min), last.setup, replay)
	}()
	rapid.Check(t, func(rt *rapid.T) { tl.add(runSequence(rt, b, &last)) })
}
