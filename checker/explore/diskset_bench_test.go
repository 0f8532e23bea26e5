package explore

import (
	"fmt"
	"testing"
	"time"
	"unsafe"
)

// BenchmarkDiskSetGrowth measures what the disk seen set costs as it grows: rounds of
// 1 M new fingerprints are added to the in-memory set and flushed, and after each a wave of
// 131 072 candidates (a tenth already on disk, the rest new, as a wave's candidates that the
// memory tables did not know) is looked up one by one, as the workers do (diskSet.has). It reports the milliseconds of the
// flush and of the lookup at 8, 16, 32 and 64 M fingerprints on disk (the mean of the four
// rounds ending there): a flush that rewrote what is on disk grows with it, one that writes
// only the new fingerprints does not.
func BenchmarkDiskSetGrowth(b *testing.B) {
	const perRound, wave, rounds = 1 << 20, 1 << 17, 64
	for range b.N {
		st := &storage{parent: b.TempDir()}
		set := newFPSet(0, false)
		disk := &diskSet{st: st}
		x := uint64(7)
		next := func() uint64 {
			x = x*6364136223846793005 + 1442695040888963407
			return x ^ x>>29 | 1
		}
		var flushT, lookT [rounds + 1]time.Duration
		var onDisk []uint64
		cands := make([]uint64, wave)
		seen := make([]bool, wave)
		for r := 1; r <= rounds; r++ {
			for range perRound {
				f := next()
				set.add(fp(f), 0)
				if (f>>1)%64 == 0 {
					onDisk = append(onDisk, f)
				}
			}
			t0 := time.Now()
			if err := disk.flush(set); err != nil {
				b.Fatal(err)
			}
			flushT[r] = time.Since(t0)
			set.reset()
			for i := range cands {
				if i%10 == 0 {
					cands[i] = onDisk[int(next()>>1)%len(onDisk)]
				} else {
					cands[i] = next()
				}
			}
			t0 = time.Now()
			var buf pageBuf
			for i, k := range cands {
				ok, err := disk.has(k, &buf)
				if err != nil {
					b.Fatal(err)
				}
				seen[i] = ok
			}
			lookT[r] = time.Since(t0)
			for i := range cands {
				if seen[i] != (i%10 == 0) {
					b.Fatalf("candidate %d: on disk %v, want %v", i, seen[i], i%10 == 0)
				}
			}
		}
		for _, at := range []int{8, 16, 32, 64} {
			var f, l time.Duration
			for r := at - 3; r <= at; r++ {
				f += flushT[r]
				l += lookT[r]
			}
			b.ReportMetric(float64(f.Milliseconds())/4, fmt.Sprintf("flush-ms@%dM", at))
			b.ReportMetric(float64(l.Milliseconds())/4, fmt.Sprintf("lookup-ms@%dM", at))
		}
		disk.close()
		st.close()
	}
}

// BenchmarkDiskSetHas looks fingerprints up one by one (diskSet.has, as the workers do) in
// one run of 32 M fingerprints (256 MiB on disk, its index 2 MiB and filter 40 MiB: far
// larger than the caches); one op is one lookup. "on disk" looks up fingerprints the run
// holds, each costing a read of its page; "new" ones it does not, which the filter turns away
// but for a few percent. The last variants look the held ones up in the same run copied to
// memory on huge pages, and packed (packedRun).
func BenchmarkDiskSetHas(b *testing.B) {
	const n = 1 << 25
	st := &storage{parent: b.TempDir()}
	defer st.close()
	set := newFPSet(0, false)
	disk := &diskSet{st: st}
	defer disk.close()
	x := uint64(11)
	next := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x ^ x>>29 | 1
	}
	held := make([]uint64, 0, 1<<20)
	for range n {
		f := next()
		set.add(fp(f), 0)
		if len(held) < cap(held) && f>>40&7 == 0 {
			held = append(held, f)
		}
	}
	if err := disk.flush(set); err != nil {
		b.Fatal(err)
	}
	set.reset()
	for _, tc := range []struct {
		name string
		key  func(i int) uint64
		want bool
	}{
		{"on disk", func(i int) uint64 { return held[uint64(i)*0x9e3779b97f4a7c15>>44%uint64(len(held))] }, true},
		{"new", func(int) uint64 { return next() &^ 1 }, false},
	} {
		b.Run(tc.name, oneByOne(disk, tc.key, tc.want))
		b.Run(tc.name+", settled", settled(disk, tc.key, tc.want))
	}
	heldKey := func(i int) uint64 { return held[uint64(i)*0x9e3779b97f4a7c15>>44%uint64(len(held))] }
	r := disk.runs[0]
	file := r.data
	r.data = nil // pages read with ReadAt
	b.Run("on disk, read(2)", oneByOne(disk, heldKey, true))
	// The same lookups with the run's file copied into anonymous memory on huge pages: what
	// the file's mapping of 4 KiB pages costs.
	heap := allocKeys(int(r.n))
	defer freeKeys(heap)
	r.data = unsafe.Slice((*byte)(unsafe.Pointer(&heap[0])), r.n*8)
	copy(r.data, file)
	defer func() { r.data = file }()
	b.Run("on disk, run in memory", oneByOne(disk, heldKey, true))
	b.Run("on disk, run in memory, settled", settled(disk, heldKey, true))
	// The same fingerprints as a packed run (packedRun, 5.5 bytes each): what the seen set
	// keeps in memory while the packed runs fit their share.
	rw := disk.newPacked(r.n)
	rr := newRunReader(r)
	for {
		if err := rr.advance(); err != nil {
			b.Fatal(err)
		}
		if !rr.have {
			break
		}
		if err := rw.emit(rr.next); err != nil {
			b.Fatal(err)
		}
	}
	pr, err := rw.finish()
	if err != nil {
		b.Fatal(err)
	}
	defer pr.free()
	disk.runs[0] = pr
	defer func() { disk.runs[0] = r }()
	b.Run("packed", oneByOne(disk, heldKey, true))
	b.Run("packed, settled", settled(disk, heldKey, true))
}

// oneByOne looks key(i) up in disk one at a time (diskSet.has); want: every key is on disk.
func oneByOne(disk *diskSet, key func(int) uint64, want bool) func(*testing.B) {
	return func(b *testing.B) {
		var buf pageBuf
		for i := range b.N {
			ok, err := disk.has(key(i), &buf)
			if err != nil {
				b.Fatal(err)
			}
			if !ok && want {
				b.Fatalf("a held fingerprint not found")
			}
		}
	}
}

// settled looks key(i) up in disk as the workers do: those a filter lets pass, settleBatch
// at a time (diskSet.settle); want: every key is on disk.
func settled(disk *diskSet, key func(int) uint64, want bool) func(*testing.B) {
	return func(b *testing.B) {
		var buf pageBuf
		ps := make([]pendingFP, 0, settleBatch)
		var sel []int32
		for i := 0; i < b.N; {
			ps = ps[:0]
			for ; i < b.N && len(ps) < settleBatch; i++ {
				if f := key(i); disk.filters(f) != 0 {
					ps = append(ps, pendingFP{f: f, runs: 1})
				}
			}
			var err error
			if sel, err = disk.settle(ps, sel, &buf); err != nil {
				b.Fatal(err)
			}
			for _, p := range ps {
				if !p.onDisk && want {
					b.Fatalf("a held fingerprint not found")
				}
			}
		}
	}
}

// settleBatch is the batch size of BenchmarkDiskSetHas's settled lookups: about what a
// worker's chunk has on the standard scope once most of it is on disk.
const settleBatch = 2048
