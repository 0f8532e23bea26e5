package explore

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// A packed run answers exactly as the sorted list it was built from, whatever the list's size
// and however its fingerprints fall into buckets: every member is found, by has and by the
// batched lookup (settlePacked), its neighbours and random fingerprints are not, and reading
// the run back gives the list.
func TestPackedRun(t *testing.T) {
	rng := uint64(0x9e3779b97f4a7c15)
	random := func() uint64 {
		rng = rng*6364136223846793005 + 1442695040888963407
		return finish(rng) | 1
	}
	uniform := func(n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = random()
		}
		return out
	}
	cases := []struct {
		name string
		fps  []uint64
	}{
		{"empty", nil},
		{"one", []uint64{0x8000000000000001}},
		{"the extremes", []uint64{1, 3, math.MaxUint64 - 2, math.MaxUint64}},
		{"127", uniform(127)},
		{"128", uniform(128)},
		{"129", uniform(129)},
		{"5000", uniform(5000)},
		{"200 000 (20 000 under -race)", uniform(map[bool]int{false: 200_000, true: 20_000}[raceEnabled])},
		// All in one bucket, consecutive: the walk from the guess crosses the whole bucket.
		{"one bucket, consecutive", func() []uint64 {
			out := make([]uint64, 600)
			for i := range out {
				out[i] = 0x1234_0000_0000_0001 + uint64(2*i)
			}
			return out
		}()},
		// Clustered at both ends of the range and in every other bucket of a small run.
		{"clustered", func() []uint64 {
			var out []uint64
			for i := range 500 {
				out = append(out, uint64(2*i+1), math.MaxUint64-uint64(2*i))
			}
			for j := uint64(0); j < 128; j += 2 {
				out = append(out, j<<57|random()>>7|1)
			}
			return out
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fps := slices.Clone(c.fps)
			slices.Sort(fps)
			fps = slices.Compact(fps)
			w := newPackWriter(int64(len(fps)))
			for _, k := range fps {
				w.put(k)
			}
			p := w.finish()
			defer p.free()
			if p.n != int64(len(fps)) {
				t.Fatalf("holds %d, want %d", p.n, len(fps))
			}
			in := map[uint64]bool{}
			for _, k := range fps {
				in[k] = true
			}
			probe := slices.Clone(fps)
			for _, k := range fps {
				probe = append(probe, k+2, k-2, k^1<<40)
			}
			for range 2000 {
				probe = append(probe, random())
			}
			for _, k := range probe {
				if k&1 == 0 {
					continue // not a fingerprint
				}
				if got := p.has(k); got != in[k] {
					t.Fatalf("has(%#x) = %v, want %v", k, got, in[k])
				}
			}
			ps := make([]pendingFP, 0, len(probe))
			sel := make([]int32, 0, len(probe))
			for _, k := range probe {
				if k&1 == 1 {
					sel = append(sel, int32(len(ps)))
					ps = append(ps, pendingFP{f: k})
				}
			}
			settlePacked(p, ps, sel)
			for _, q := range ps {
				if q.onDisk != in[q.f] || q.packed != in[q.f] {
					t.Fatalf("settlePacked %#x: found %v (packed %v), want %v", q.f, q.onDisk, q.packed, in[q.f])
				}
			}
			back := readBack(t, p)
			if !slices.Equal(back, fps) {
				t.Fatalf("read back %d fingerprints, not the %d put", len(back), len(fps))
			}
		})
	}
}

// Every bucket width a run's size can give answers exactly, at the edges of its first, middle
// and last buckets: a writer sized for 16·2^b fingerprints (b bucket bits) is given a few
// thousand, so that b reaches 23 with little memory.
func TestPackedRunWidths(t *testing.T) {
	rng := uint64(12345)
	random := func() uint64 {
		rng = rng*6364136223846793005 + 1442695040888963407
		return finish(rng) | 1
	}
	for b := uint(packMinBits); b <= 23; b++ {
		size := int64(1) << (b + 4)
		if got, _ := packedShape(size); got != b {
			t.Fatalf("%d fingerprints: %d bucket bits, want %d", size, got, b)
		}
		sh, top := 64-b, uint64(1)<<b-1
		fps := []uint64{1, math.MaxUint64}
		for _, j := range []uint64{0, 1, top / 2, top - 1, top} {
			fps = append(fps, j<<sh|1, j<<sh|3, j<<sh|1<<(sh-1)|1, j<<sh|(1<<sh-3), j<<sh|(1<<sh-1))
		}
		for range min(3000, size-64) {
			fps = append(fps, random())
		}
		slices.Sort(fps)
		fps = slices.Compact(fps)
		w := newPackWriter(size)
		for _, k := range fps {
			w.put(k)
		}
		p := w.finish()
		in := map[uint64]bool{}
		for _, k := range fps {
			in[k] = true
		}
		for _, k := range fps {
			for _, q := range []uint64{k, k + 2, k - 2, k ^ 1<<(sh-1), k ^ 1<<sh} {
				if q&1 == 1 && p.has(q) != in[q] {
					t.Fatalf("%d bucket bits: has(%#x) = %v", b, q, !in[q])
				}
			}
		}
		back := readBack(t, p)
		if !slices.Equal(back, fps) {
			t.Fatalf("%d bucket bits: read back %d fingerprints, not the %d put", b, len(back), len(fps))
		}
		p.free()
	}
}

// The sizes a packed run takes: at most 6 bytes a fingerprint from ten million on and 5.3
// from a hundred million, and the remainder of every fingerprint is read with one load
// (l <= 56).
func TestPackedShape(t *testing.T) {
	for _, n := range []int64{0, 1, 1 << 10, 10_000_000, 170_000_000, 300_000_000, packMax} {
		b, l := packedShape(n)
		if b+l != 63 || l > 56 || b < packMinBits {
			t.Errorf("n %d: %d bucket bits, %d remainder bits", n, b, l)
		}
		if n >= 10_000_000 {
			per := float64(packedBytes(n)-mappedBytes(bloomWords(n))) / float64(n)
			if limit := map[bool]float64{false: 6, true: 5.3}[n >= 100_000_000]; per > limit {
				t.Errorf("n %d: %.2f bytes a fingerprint without the filter, want at most %.1f", n, per, limit)
			}
		}
	}
}

// The seen set answers like a plain set whatever mix of packed runs and files holds it: with
// every run packed (the oldest written out to files past maxPacked) and with a share that
// holds only some, fingerprints added in rounds, with flushes in between, are found exactly
// when they were added, by has and by settle; the packed runs stay within their share and their
// number; the files stay in size tiers. With the smallest share the rounds of 3 000
// fingerprints do not fit it and go straight to files.
func TestSeenSetWithPackedRuns(t *testing.T) {
	const rounds = 14
	for _, c := range []struct {
		name   string
		share  int64
		direct bool // some runs go straight to files
	}{
		{"all packed", -1, false},
		{"some packed", 48 << 10, false},
		{"little packed", 16 << 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			set, disk := newDiskSetForTest(t)
			disk.packShare = c.share
			in := map[uint64]bool{}
			x := uint64(7)
			next := func() uint64 {
				x = x*6364136223846793005 + 1442695040888963407
				return finish(x) | 1
			}
			var all []uint64
			// packedNew holds a fingerprint first added in each round whose run was packed, in
			// order; ever holds every run the set has had, to check that those it let go were
			// released.
			var packedNew []uint64
			ever := map[*run]bool{}
			for round := range rounds {
				var fresh uint64
				for i := 0; i < 3000>>(round%3); i++ {
					f := next()
					if i%3 == 0 && len(all) > 0 {
						f = all[int(f>>33)%len(all)] // one already added
					}
					all = append(all, f)
					if in[f] {
						continue
					}
					var buf pageBuf
					if onDisk, err := disk.has(f, &buf); err != nil || onDisk {
						t.Fatalf("round %d: %x reported seen before it was added (%v)", round, f, err)
					}
					if !set.add(fp(f), 0) {
						t.Fatalf("round %d: %x in memory before it was added", round, f)
					}
					in[f] = true
					fresh = f
				}
				packedBefore := disk.packed
				if err := disk.flush(set); err != nil {
					t.Fatal(err)
				}
				set.reset()
				if disk.packed > packedBefore {
					packedNew = append(packedNew, fresh)
				}
				// The packed runs are the newest packed ones, oldest first: the oldest were
				// written out.
				for i, r := range disk.runs[disk.files():] {
					if f := packedNew[len(packedNew)-(len(disk.runs)-disk.files())+i]; !r.pk.has(f) {
						t.Fatalf("round %d: packed run %d does not hold %#x: not the newest packed runs in order", round, i, f)
					}
				}
				held := map[*run]bool{}
				for _, r := range disk.runs {
					held[r], ever[r] = true, true
				}
				for r := range ever {
					if !held[r] && (r.pk != nil || r.bloom != nil || r.index != nil) {
						t.Fatalf("round %d: a run no longer in the set was not released (packed %v)", round, r.pk != nil)
					}
				}
				files := disk.files()
				var sum, fileFPs int64
				for i, r := range disk.runs {
					sum += r.n
					if (i < files) != (r.pk == nil) {
						t.Fatalf("round %d: run %d of %d is out of place (files first)", round, i, len(disk.runs))
					}
					if i < files {
						fileFPs += r.n
						if i > 0 && disk.runs[i-1].n <= 2*r.n {
							t.Errorf("round %d: file %d holds %d, file %d %d: not merged", round, i-1, disk.runs[i-1].n, i, r.n)
						}
					}
				}
				if sum != disk.n || disk.n != int64(len(in)) || disk.st.disk != fileFPs*8 {
					t.Fatalf("round %d: runs hold %d, the set says %d, %d added; files %d bytes for %d", round, sum, disk.n, len(in), disk.st.disk, fileFPs)
				}
				if n := len(disk.runs) - files; n > maxPacked || c.share >= 0 && disk.packedBytes() > c.share {
					t.Fatalf("round %d: %d packed runs in %d bytes", round, n, disk.packedBytes())
				}
			}
			if disk.packed == 0 || disk.writtenOut == 0 || disk.files() == 0 || disk.files() == len(disk.runs) {
				t.Fatalf("%d runs packed, %d written out; %d files of %d runs: want each kind", disk.packed, disk.writtenOut, disk.files(), len(disk.runs))
			}
			if direct := disk.packed < rounds; direct != c.direct {
				t.Fatalf("%d of %d runs packed", disk.packed, rounds)
			}
			probe := slices.Clone(all)
			for range 2000 {
				probe = append(probe, next())
			}
			for _, f := range probe {
				var buf pageBuf
				got, err := disk.has(f, &buf)
				if err != nil || got != in[f] {
					t.Fatalf("has(%#x) = %v, %v; added %v", f, got, err, in[f])
				}
			}
			checkBatchLookup(t, disk, probe, in)
			checkHoldsAll(t, disk, in)
			t.Logf("%d runs packed, %d written out, %d files and %d packed runs at the end", disk.packed, disk.writtenOut, disk.files(), len(disk.runs)-disk.files())
		})
	}
}

// The result does not depend on where the seen set's runs are kept: each spill case, searched
// with every store spilling and the runs packed in memory (past two packed runs the oldest
// written out to files), on one worker and on two, decides what it decides in memory; on one
// worker the states found in the runs are as many as with every run a file, some of them in
// packed runs. Under -race, the one-worker pair runs for the first case only.
func TestPackedRunsKeepResults(t *testing.T) {
	var packed, writtenOut int
	first := true
	for _, c := range spillCases {
		if raceEnabled && !c.race {
			continue
		}
		base := c.scope()
		base.Workers = 1
		want, err := ExploreShared(base) // the in-memory search, shared by TestSpillKeepsResults and TestPackedRunsKeepResults
		if err != nil {
			t.Fatal(err)
		}
		wantOut := outcomeOf(&base, want)
		runs := []struct {
			workers int
			share   int64
		}{{1, 0}, {1, -1}, {2, -1}}
		if raceEnabled && !first {
			runs = runs[2:]
		}
		first = false
		var hits [2]int64
		for _, r := range runs {
			sc := c.scope()
			sc.Workers, sc.TempDir = r.workers, t.TempDir()
			sc.shares, sc.maxPacked = &shares{packed: r.share}, 2
			got, err := Explore(sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s, %d workers, packed share %d", c.name, r.workers, r.share)
			if out := outcomeOf(&sc, got); out != wantOut {
				t.Errorf("%s: got\n%s\nwant (in memory, 1 worker)\n%s", what, out, wantOut)
			}
			if r.share != 0 && got.packedRuns == 0 || r.share == 0 && (got.packedRuns != 0 || got.PackedHits != 0) {
				t.Errorf("%s: %d runs packed, %d states found in them", what, got.packedRuns, got.PackedHits)
			}
			packed += got.packedRuns
			writtenOut += got.writtenOut
			if r.workers == 1 {
				hits[-r.share] = got.DiskHits + got.PackedHits
				if r.share != 0 && got.PackedHits == 0 {
					t.Errorf("%s: no state found in a packed run", what)
				}
			}
			assertEmpty(t, sc.TempDir)
		}
		if hits[0] != hits[1] {
			t.Errorf("%s, 1 worker: %d states found in the runs as files, %d with packed runs", c.name, hits[0], hits[1])
		}
	}
	if packed == 0 || writtenOut == 0 {
		t.Errorf("%d runs packed, %d written out: want both", packed, writtenOut)
	}
}

// A packed run is sized for the count it is made for: one fingerprint more is an error, not a
// write past its arrays.
func TestPackedRunRefusesMore(t *testing.T) {
	_, disk := newDiskSetForTest(t)
	rw := disk.newPacked(3)
	defer rw.abort()
	for i, k := range []uint64{3, 5, 7} {
		if err := rw.emit(k); err != nil {
			t.Fatalf("fingerprint %d of 3: %v", i+1, err)
		}
	}
	if err := rw.emit(9); err == nil {
		t.Fatal("a fourth fingerprint in a packed run made for 3 was taken")
	}
}

// readBack reads packed run p in order (runReader).
func readBack(t *testing.T, p *packedRun) []uint64 {
	t.Helper()
	rr := newRunReader(&run{pk: p, n: p.n})
	var back []uint64
	for {
		if err := rr.advance(); err != nil {
			t.Fatal(err)
		}
		if !rr.have {
			return back
		}
		back = append(back, rr.next)
	}
}

// A packed run's memory counts where the budget and the heap limit look: diskSet.bytes and
// packedBytes count its arrays and filter as allocated, and offHeap the part mapped outside the
// Go heap (its remainders, 1.2 MB here, are above hugeMin).
func TestPackedRunMemoryCounted(t *testing.T) {
	const n = 200_000
	_, disk := newDiskSetForTest(t)
	disk.packShare = -1
	rw := disk.newPacked(n)
	for i := range uint64(n) {
		if err := rw.emit(i<<44 | 1); err != nil {
			t.Fatal(err)
		}
	}
	r, err := rw.finish()
	if err != nil {
		t.Fatal(err)
	}
	disk.runs = append(disk.runs, r)
	s, w := packedWords(n)
	if got, want := disk.bytes(), packedBytes(n); got != want || got != mappedBytes(s)+mappedBytes(w)+mappedBytes(bloomWords(n)) {
		t.Errorf("bytes %d, packedBytes %d, arrays %d+%d+%d", got, want, mappedBytes(s), mappedBytes(w), mappedBytes(bloomWords(n)))
	}
	if got, want := disk.packedBytes(), disk.bytes(); got != want {
		t.Errorf("packedBytes of the runs %d, bytes %d", got, want)
	}
	if got, want := disk.offHeap(), keysOffHeap(s)+keysOffHeap(w)+keysOffHeap(bloomWords(n)); got != want || keysOffHeap(w) == 0 {
		t.Errorf("offHeap %d, want %d (remainders %d)", got, want, keysOffHeap(w))
	}
}
