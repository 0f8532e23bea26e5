//go:build !linux

package explore

// hugeMin is where hugepages_linux.go maps arrays of their own; here only a size for tests.
const hugeMin = 8 << 20

// allocKeys returns a zeroed fingerprint array of n slots (on Linux a large one is put on
// huge pages, hugepages_linux.go).
func allocKeys(n int) []uint64 { return make([]uint64, n) }

func freeKeys(keys []uint64) {}

func releaseWith(s *fpSet) {}
