package explore

import (
	"fmt"
	"testing"
)

// BenchmarkMerge merges waves of candidates into a seen set of 4 M fingerprints (32 MiB and
// more of tables, so inserts miss the caches as in a large search), one goroutine and two
// inserting; one op is one wave of 32 768 states with 3 candidates each, a third of them
// new. It reports ns per candidate.
func BenchmarkMerge(b *testing.B) {
	const states, per, prefill = waveStates, 3, 4 << 20
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("insert-goroutines=%d", par), func(b *testing.B) {
			x := uint64(par)
			rnd := func() fp {
				x = x*6364136223846793005 + 1442695040888963407
				return fp(x ^ x>>29 | 1)
			}
			set := newFPSet(prefill, false)
			var old []fp
			for i := 0; i < prefill; i++ {
				f := rnd()
				set.add(f, 0)
				if i%64 == 0 {
					old = append(old, f)
				}
			}
			st := &storage{parent: b.TempDir()}
			defer st.close()
			pl := newParentLog(st, -1, true)
			sc := DefaultScope()
			m := &merger{set: set, pl: pl, sc: &sc, par: par}
			outs := make([]chunkOut, states/128)
			enc := make([]byte, 60)
			segs := &segPool{st: st, share: -1}
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				b.StopTimer()
				for ci := range outs {
					o := &outs[ci]
					o.cands, o.arena = o.cands[:0], o.arena[:0]
					for k := 0; k < 128*per; k++ {
						f := rnd()
						if k%3 != 0 {
							f = old[int(uint64(f)>>40)%len(old)]
						}
						from := uint32(len(o.arena))
						o.arena = append(o.arena, enc...)
						o.cands = append(o.cands, cand{fp: f, parent: uint32(k), act: Action(k), from: from, to: uint32(len(o.arena))})
					}
				}
				nf := &frontier{pool: segs}
				b.StartTimer()
				if _, err := m.merge(outs, 5, nf, false); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				nf.close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*states*per), "ns/candidate")
		})
	}
}
