//go:build !linux

package explore

// hugeMin is where hugepages_linux.go maps arrays of their own; here only a size for tests.
const hugeMin = 256 << 10

// mappedBytes is the memory an array of n slots takes.
func mappedBytes(n int) int64 { return int64(n) * 8 }

// keysOffHeap is the memory allocKeys(n) maps outside the Go heap: none here.
func keysOffHeap(n int) int64 { return 0 }

// allocKeys returns a zeroed fingerprint array of n slots (on Linux a large one is put on
// huge pages, hugepages_linux.go).
func allocKeys(n int) []uint64 { return make([]uint64, n) }

func freeKeys(keys []uint64) {}

// mapBytes returns n zeroed bytes (on Linux a large array is mapped on huge pages).
func mapBytes(n int) []byte { return make([]byte, n) }

func unmapBytes(b []byte) {}

func releaseWith(s *fpSet) {}
