package explore

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// BenchmarkExplore explores the first b.N states of the default scope (with the symmetry
// reduction) on one goroutine and on one per CPU, and reports the rate, the seen set's bytes
// per state and the bytes per state of everything the search holds (Result.Memory: seen set,
// frontiers, parent pointers, wave buffers); one op is one state.
func BenchmarkExplore(b *testing.B) {
	for _, workers := range []int{1, 0} {
		name := "workers=1"
		if workers == 0 {
			name = "workers=all"
		}
		b.Run(name, func(b *testing.B) {
			sc := DefaultScope()
			sc.Workers = workers
			sc.MaxStates = max(b.N, 1000)
			b.ReportAllocs()
			b.ResetTimer()
			res, err := Explore(sc, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.StatesPerSecond(), "states/s")
			b.ReportMetric(float64(res.Transitions)/float64(res.States), "transitions/state")
			b.ReportMetric(res.SeenBytesPerState(), "seen-bytes/state")
			b.ReportMetric(float64(res.Memory)/float64(res.States), "memory-bytes/state")
		})
	}
}

var _ = model.Kafka42
