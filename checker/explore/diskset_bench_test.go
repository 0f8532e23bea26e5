package explore

import (
	"fmt"
	"testing"
	"time"
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
