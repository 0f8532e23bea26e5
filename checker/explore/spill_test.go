package explore

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharesim/sharesim/model"
)

// outcomeOf is everything a search decides, without what it measured (time, memory, disk).
func outcomeOf(sc *Scope, r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d transitions %d depth %d complete %v bounded %q\n", r.States, r.Transitions, r.Depth, r.Complete, r.Bounded)
	found := func(what string, f *Found) {
		if f == nil {
			return
		}
		fmt.Fprintf(&b, "%s %s %q %q:", what, f.Invariant, f.Finding, f.Message)
		for _, a := range f.Path {
			fmt.Fprintf(&b, " %s;", a.Describe(sc))
		}
		b.WriteByte('\n')
	}
	found("violation", r.Violation)
	for _, f := range r.LevelViolations {
		found("level violation", f)
	}
	for _, f := range r.Findings {
		found("finding", f)
	}
	if l := r.Liveness; l != nil {
		fmt.Fprintf(&b, "liveness settled %d stuck %d edges %d\n", l.Settled, l.Stuck, l.Edges)
		found("stuck", l.First)
	}
	fmt.Fprintf(&b, "fingerprints %d %x\n", len(r.Fingerprints), fingerprintsHash(r.Fingerprints))
	return b.String()
}

// orderedOutcome is outcomeOf with the levels and, for a scope with hashOrder, the parent log
// in brief (Result.orderHash): it also tells apart two searches that found the same states in
// another order.
func orderedOutcome(sc *Scope, r *Result) string {
	return fmt.Sprintf("%slevels %v, parent log %x\n", outcomeOf(sc, r), r.Levels, r.orderHash)
}

func fingerprintsHash(fps []uint64) uint64 {
	h := uint64(0)
	for _, f := range fps {
		h = h*0x100000001b3 ^ f
	}
	return h
}

// spillCases are searches of every kind: complete, cut short by the state bound in the middle
// of a wave, a violation, findings, a swarm shard with its fingerprints, and liveness. Several
// have levels of more than one wave (32 768 states).
var spillCases = []struct {
	name  string
	scope func() Scope
	race  bool // small enough for -race
}{
	{"complete", func() Scope {
		sc := DefaultScope()
		sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = []int{2}, 2, 2, []int{2}
		return sc
	}, false},
	{"max-states mid-wave", func() Scope {
		sc := DefaultScope()
		sc.MaxStates = 123_457
		return sc
	}, false},
	{"violation", func() Scope {
		sc := DefaultScope()
		sc.Bug, sc.MaxDepth = model.BugStoreNoFencing, 4
		return sc
	}, true},
	{"violation whose path renames members", func() Scope {
		sc := DefaultScope()
		sc.Bug, sc.MaxDepth = model.BugReleaseStopsAtForeign, 5
		return sc
	}, true},
	{"findings, depth 5", func() Scope {
		sc := DefaultScope()
		sc.Members, sc.Findings, sc.MaxDepth = 1, true, 5
		return sc
	}, true},
	{"swarm shard with fingerprints", func() Scope {
		sc := DefaultScope()
		sc.Shard, sc.Shards, sc.Split, sc.Seed, sc.MaxDepth, sc.KeepFingerprints, sc.StepOrderSeed = 1, 3, 2, 7, 5, true, 9
		return sc
	}, true},
	// Not under -race: the same search, in memory and spilled on two workers with a one-byte
	// budget, is TestLivenessSpillKeepsResults's first case.
	{"liveness", func() Scope {
		sc := DefaultScope()
		sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{1, 1}, 2, 2, []int{2}
		sc.Liveness, sc.Findings = true, true
		return sc
	}, false},
}

// The result does not depend on the memory budget or the number of workers: each case is
// searched with everything in memory on one worker, and with a budget of one byte (every kind
// of store spills: the seen set is flushed to disk after every wave, every frontier segment
// and every parent record goes to a file) on two and three workers (two under -race), and all
// decide the same: states, transitions, depth, verdict, every path, the fingerprints, and with
// liveness the settled and stuck states, the edges and every stuck path and its message (the
// liveness graph spills after the first wave, livespill.go). The spill files are gone
// afterwards.
func TestSpillKeepsResults(t *testing.T) {
	for _, c := range spillCases {
		t.Run(c.name, func(t *testing.T) {
			if raceEnabled && !c.race {
				t.Skip("too slow under -race; runs without it")
			}
			t.Parallel()
			base := c.scope()
			base.Workers = 1
			want, err := ExploreShared(base) // the in-memory search, shared by TestSpillKeepsResults and TestPackedRunsKeepResults
			if err != nil {
				t.Fatal(err)
			}
			if want.DiskBytes != 0 {
				t.Errorf("no budget, yet %d bytes spilled", want.DiskBytes)
			}
			wantOut := outcomeOf(&base, want)
			workerCounts := []int{2, 3}
			if raceEnabled {
				workerCounts = workerCounts[:1]
			}
			for _, workers := range workerCounts {
				sc := c.scope()
				sc.Workers, sc.TempDir = workers, t.TempDir()
				sc.Memory = 1
				kinds := []string{"seen", "frontier", "parents"}
				if sc.Liveness {
					kinds = append(kinds, "live-edges", "live-ids", "live-open")
				}
				got, err := Explore(sc, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range kinds {
					if got.spillFiles[k] == 0 {
						t.Errorf("%d workers: the %s store did not spill (%v)", workers, k, got.spillFiles)
					}
				}
				if got.DiskBytes == 0 {
					t.Errorf("%d workers: nothing spilled", workers)
				}
				if out := outcomeOf(&sc, got); out != wantOut {
					t.Errorf("%d workers, spilling: got\n%s\nwant (in memory, 1 worker)\n%s", workers, out, wantOut)
				}
				assertEmpty(t, sc.TempDir)
			}
			t.Logf("%s", strings.SplitN(wantOut, "\n", 2)[0])
		})
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("spill files left in %s: %v", dir, ents)
	}
}

// The fingerprint set answers like a plain set whatever is on disk: fingerprints added in
// rounds, with flushes in between, are found exactly when they were added.
func TestSeenSetWithDisk(t *testing.T) {
	set, disk := newDiskSetForTest(t)
	st := disk.st
	in := map[uint64]bool{}
	x := uint64(1)
	next := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x | 1
	}
	var all []uint64
	for round := 0; round < 9; round++ {
		for i := 0; i < 3000>>(round%3); i++ {
			f := next()
			if i%3 == 0 && len(all) > 0 {
				f = all[int(f>>33)%len(all)] // one already added
			}
			all = append(all, f)
			if !in[f] {
				var buf pageBuf
				onDisk, err := disk.has(f, &buf)
				if err != nil {
					t.Fatal(err)
				}
				if onDisk || !set.add(fp(f), 0) {
					t.Fatalf("round %d: %x reported seen before it was added", round, f)
				}
				in[f] = true
			}
		}
		if err := disk.flush(set); err != nil {
			t.Fatal(err)
		}
		set.reset()
		if disk.n != int64(len(in)) {
			t.Fatalf("round %d: %d fingerprints on disk, want %d", round, disk.n, len(in))
		}
		// Size tiers: each run more than twice the next, so at most log2 of the flushes.
		for i := 1; i < len(disk.runs); i++ {
			if disk.runs[i-1].n <= 2*disk.runs[i].n {
				t.Errorf("round %d: run %d holds %d, run %d %d: not merged", round, i-1, disk.runs[i-1].n, i, disk.runs[i].n)
			}
		}
		var sum int64
		for _, r := range disk.runs {
			sum += r.n
		}
		if sum != disk.n || st.disk != disk.n*8 {
			t.Errorf("round %d: runs hold %d, %d bytes in files, want %d fingerprints", round, sum, st.disk, disk.n)
		}
	}
	probe := append([]uint64{}, all...)
	for i := 0; i < 2000; i++ {
		probe = append(probe, next()) // almost surely never added
	}
	checkBatchLookup(t, disk, probe, in)
	checkHoldsAll(t, disk, in)
}

// checkHoldsAll fails unless the runs of disk hold exactly the fingerprints of in
// (diskSet.appendAll, sorted).
func checkHoldsAll(t *testing.T, disk *diskSet, in map[uint64]bool) {
	t.Helper()
	got, err := disk.appendAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint64, 0, len(in))
	for f := range in {
		want = append(want, f)
	}
	sortU64(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the runs hold %d fingerprints, want the %d added, sorted", len(got), len(want))
	}
}

func sortU64(s []uint64) { slices.Sort(s) }

// newDiskSetForTest returns an empty in-memory set and an empty disk set in a temporary
// directory, closed when the test ends.
func newDiskSetForTest(t *testing.T) (*fpSet, *diskSet) {
	t.Helper()
	st := &storage{parent: t.TempDir()}
	disk := &diskSet{st: st}
	t.Cleanup(func() {
		disk.close()
		st.close()
	})
	return newFPSet(0, false), disk
}

// checkBatchLookup looks probe up in disk as the workers do a chunk's candidates that a run's
// filter lets pass (diskSet.settle), and fails at the first fingerprint whose answer is not
// in[f]. A fingerprint no filter lets pass is not on disk.
func checkBatchLookup(t *testing.T, disk *diskSet, probe []uint64, in map[uint64]bool) {
	t.Helper()
	var ps []pendingFP
	for _, f := range probe {
		if m := disk.filters(f); m != 0 {
			ps = append(ps, pendingFP{f: f, runs: m})
		} else if in[f] {
			t.Fatalf("%#x: added, yet no run's filter lets it pass", f)
		}
	}
	var buf pageBuf
	if _, err := disk.settle(ps, nil, &buf); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.onDisk != in[p.f] {
			t.Fatalf("settle %#x: on disk %v, added %v", p.f, p.onDisk, in[p.f])
		}
	}
}

// DiskBytes counts what the files hold: with only the parent pointers spilling, and all of
// them (a share of 0), the file holds 9 bytes per state with symmetry (parent id, action,
// renaming) and 8 without.
func TestDiskBytesOfParentPointers(t *testing.T) {
	for _, symmetry := range []bool{true, false} {
		sc := DefaultScope()
		sc.Bug, sc.MaxDepth, sc.Workers, sc.Symmetry, sc.TempDir = model.BugStoreNoFencing, 4, 2, symmetry, t.TempDir()
		sc.shares = &shares{seen: -1, frontier: -1, parents: 0, total: -1}
		res, err := Explore(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		per := int64(8)
		if symmetry {
			per = 9
		}
		if res.DiskBytes != int64(res.States)*per {
			t.Errorf("symmetry %v: %d bytes on disk for %d states, want %d per state", symmetry, res.DiskBytes, res.States, per)
		}
		assertEmpty(t, sc.TempDir)
	}
}

// A budget is divided ½ seen set, ⅛ frontiers, 1/16 parent pointers; no budget bounds nothing.
func TestBudgetShares(t *testing.T) {
	if got, want := budgetShares(16<<30), (shares{seen: 8 << 30, frontier: 2 << 30, parents: 1 << 30, total: 12 << 30, packed: 4 << 30}); got != want {
		t.Errorf("16 GiB: %+v, want %+v", got, want)
	}
	if got := budgetShares(0); over(1<<62, got.seen) || over(1<<62, got.frontier) || over(1<<62, got.parents) {
		t.Errorf("no budget: %+v bounds something", got)
	}
	if !over(1, budgetShares(1).parents) {
		t.Error("a one-byte budget keeps a parent record in memory")
	}
}

// A search stopped from outside (Scope.Stop, what the check command closes on Ctrl-C) ends
// at the next wave as "interrupted", not complete, with what it found so far, and leaves no
// spill file behind; a deadline in the past ends it as "time".
func TestStopRemovesSpillFiles(t *testing.T) {
	for _, how := range []string{"interrupted", "time"} {
		sc := DefaultScope()
		sc.Workers, sc.Memory, sc.TempDir = 1, 1, t.TempDir()
		stop := make(chan struct{})
		waves := 0
		if how == "interrupted" {
			sc.Stop = stop
		} else {
			sc.Deadline = time.Now()
			sc.deadlineFrom = 4
		}
		res, err := Explore(sc, func(s Snapshot) {
			if waves++; waves == 3 { // after the third level (or report within one)
				close(stop)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete || res.Bounded != how || res.States == 0 || res.DiskBytes == 0 {
			t.Errorf("%s: complete %v, bounded %q, %d states, %d bytes spilled", how, res.Complete, res.Bounded, res.States, res.DiskBytes)
		}
		if how == "time" && res.Depth < 4 {
			t.Errorf("time: stopped at depth %d before the levels it must finish (4)", res.Depth)
		}
		assertEmpty(t, sc.TempDir)
	}
}

// diskSet.has guesses a fingerprint's page and slot by interpolation and walks from there: it
// must answer as the whole set does for uniform fingerprints, for ones bunched in a few narrow
// ranges (where the guesses are far off and it bisects), for the first and last fingerprints
// of pages, below and above everything, in runs of one page or less, and when pages are read
// with ReadAt instead of from the mapping.
func TestDiskSetHasAgreesWithTheSet(t *testing.T) {
	x := uint64(7)
	next := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x
	}
	cases := []struct {
		name string
		n    int
		draw func() uint64
	}{
		{"uniform", 6000, func() uint64 { return next() | 1 }},
		{"one page", 100, func() uint64 { return next() | 1 }},
		{"one fingerprint", 1, func() uint64 { return next() | 1 }},
		{"bunched", 6000, func() uint64 {
			v := next()
			return (v>>62)<<60 | (v&0xffff)<<4 | 1 // four narrow ranges
		}},
	}
	for _, tc := range cases {
		for _, mapped := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/mapped=%v", tc.name, mapped), func(t *testing.T) {
				set, disk := newDiskSetForTest(t)
				in := map[uint64]bool{}
				for len(in) < tc.n {
					f := tc.draw()
					if !in[f] {
						set.add(fp(f), 0)
						in[f] = true
					}
				}
				if err := disk.flush(set); err != nil {
					t.Fatal(err)
				}
				r := disk.runs[0]
				if !mapped {
					unmapRun(r.data)
					r.data = nil
				}
				probe := []uint64{1, math.MaxUint64, r.index[0] - 1, r.index[0] + 1}
				for _, e := range r.index {
					probe = append(probe, e, e-1, e+1) // page boundaries
				}
				for f := range in {
					probe = append(probe, f, f+2)
				}
				for range 2000 {
					probe = append(probe, tc.draw())
				}
				var buf pageBuf
				for _, f := range probe {
					got, err := disk.has(f, &buf)
					if err != nil {
						t.Fatal(err)
					}
					if got != in[f] {
						t.Fatalf("%#x: on disk %v, added %v", f, got, in[f])
					}
				}
				checkBatchLookup(t, disk, probe, in)
			})
		}
	}
}

// Once a segment has filled with states larger than segArena allows for, new segments get
// room for such states from the start: only the first segment grows (is copied) as it fills.
func TestFrontierSegmentsSizedByTheStates(t *testing.T) {
	st := &storage{parent: t.TempDir()}
	defer st.close()
	pool := &segPool{st: st, share: -1}
	fr := &frontier{pool: pool}
	enc := make([]byte, 100) // 100 bytes a state: 3.2 MB a segment, over segArena's 2 MiB
	for i := range 3 * waveStates {
		if err := fr.add(enc, uint32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(fr.segs) != 3 {
		t.Fatalf("%d segments, want 3", len(fr.segs))
	}
	full := 100 * waveStates
	if c := cap(fr.segs[0].lv.arena); c < full {
		t.Fatalf("the first segment's arena holds %d bytes, want at least %d", c, full)
	}
	for k, s := range fr.segs[1:] {
		if c, want := cap(s.lv.arena), full+full/8; c != want {
			t.Errorf("segment %d's arena: capacity %d, want %d (made at that size, not grown)", k+1, c, want)
		}
	}
}

// rotate writes the old generation to disk (when there is one) and makes the young one old,
// or writes all of the set to disk; afterwards the young generation is empty, and every
// fingerprint added is in exactly one place: the set (as old) or the disk. A set that aged
// keeps answering for its old fingerprints, and the young ones added after them age in turn.
func TestRotateGenerations(t *testing.T) {
	for _, c := range []struct {
		name       string
		oldN, youn int
		keep       bool
		wantDisk   int // fingerprints on disk afterwards
		wantOld    int // in the old generation afterwards
	}{
		{"first rotation: nothing on disk", 0, 500, true, 0, 500},
		{"old generation to disk, young kept", 300, 500, true, 300, 500},
		{"no old generation, young flushed", 0, 500, false, 500, 0},
		{"both flushed", 300, 500, false, 800, 0},
		{"empty young kept", 300, 0, true, 300, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			set, disk := newDiskSetForTest(t)
			x := uint64(7)
			next := func() uint64 {
				x = x*6364136223846793005 + 1442695040888963407
				return x | 1
			}
			var oldFPs, youngFPs []uint64
			for i := 0; i < c.oldN; i++ {
				f := next()
				set.add(fp(f), 0)
				oldFPs = append(oldFPs, f)
			}
			if c.oldN > 0 {
				set.age() // what was added so far is the old generation
			}
			for i := 0; i < c.youn; i++ {
				f := next()
				set.add(fp(f), 0)
				youngFPs = append(youngFPs, f)
			}
			if set.old != c.oldN || set.young() != c.youn {
				t.Fatalf("before: %d old, %d young; want %d and %d", set.old, set.young(), c.oldN, c.youn)
			}
			if err := rotate(disk, set, c.keep); err != nil {
				t.Fatal(err)
			}
			if set.young() != 0 {
				t.Errorf("the young generation holds %d after rotating", set.young())
			}
			if disk.n != int64(c.wantDisk) || set.old != c.wantOld || set.len() != c.wantOld {
				t.Errorf("%d on disk, %d old of %d in memory; want %d and %d", disk.n, set.old, set.len(), c.wantDisk, c.wantOld)
			}
			var buf pageBuf
			for i, f := range append(oldFPs, youngFPs...) {
				onDisk, err := disk.has(f, &buf)
				if err != nil {
					t.Fatal(err)
				}
				inMem := set.has(fp(f))
				wantOnDisk := i < c.oldN || !c.keep
				if onDisk != wantOnDisk || inMem == wantOnDisk {
					t.Fatalf("%x (added %s): on disk %v, in memory %v", f,
						map[bool]string{true: "first", false: "second"}[i < c.oldN], onDisk, inMem)
				}
			}
			// The generation kept ages in turn: new fingerprints, then another rotation.
			if !c.keep {
				return
			}
			var third []uint64
			for i := 0; i < 200; i++ {
				f := next()
				if !set.add(fp(f), 0) {
					t.Fatalf("%x reported present", f)
				}
				third = append(third, f)
			}
			if err := rotate(disk, set, true); err != nil {
				t.Fatal(err)
			}
			if disk.n != int64(c.wantDisk+c.wantOld) || set.len() != 200 || set.old != 200 {
				t.Errorf("second rotation: %d on disk, %d in memory (%d old); want %d, 200, 200", disk.n, set.len(), set.old, c.wantDisk+c.wantOld)
			}
			for _, f := range append(append(oldFPs, youngFPs...), third...) {
				onDisk, err := disk.has(f, &buf)
				if err != nil {
					t.Fatal(err)
				}
				if onDisk == set.has(fp(f)) {
					t.Fatalf("%x: on disk %v, in memory %v after the second rotation", f, onDisk, !onDisk)
				}
			}
			got, err := disk.appendAll(set.sorted())
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			want := append(append(append([]uint64{}, oldFPs...), youngFPs...), third...)
			slices.Sort(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("memory and disk hold %d fingerprints, want the %d added", len(got), len(want))
			}
		})
	}
}

// The old generation keeps the states of the last rotation in memory, so fewer successors are
// read from disk than when the whole set is written at once (Scope.oneGeneration), for the
// same result: a 25 000-state scope whose seen set (about 300 KiB) passes its share of
// 192 KiB, on one worker, so that the counts are the same on every run (2 588 states found on
// disk against 7 124; with two workers they vary with the chunks' order in each worker's
// recent cache).
func TestGenerationsSpareDiskReads(t *testing.T) {
	c := spillCases[0]
	var got [2]*Result
	for i, one := range []bool{false, true} {
		sc := c.scope()
		sc.Workers, sc.TempDir, sc.oneGeneration = 1, t.TempDir(), one
		sc.shares = &shares{seen: 192 << 10, frontier: -1, parents: -1, total: -1}
		res, err := Explore(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = res
	}
	two, one := got[0], got[1]
	if two.States != one.States || two.Transitions != one.Transitions {
		t.Fatalf("two generations: %d states, %d transitions; one: %d, %d", two.States, two.Transitions, one.States, one.Transitions)
	}
	if one.DiskHits == 0 || two.DiskHits*2 > one.DiskHits {
		t.Errorf("states found on disk: %d with two generations, %d with one; want fewer than half", two.DiskHits, one.DiskHits)
	}
	t.Logf("%s: %d transitions, states found on disk: %d with two generations, %d with one", c.name, two.Transitions, two.DiskHits, one.DiskHits)
}
