package explore

import "testing"

// A table of the seen set answers alike whether its array lives on the Go heap or, once
// large, in a mapping of its own (hugepages_linux.go): a table grown well past that size
// holds exactly the fingerprints added, and a second add of each reports it known.
func TestFPSetLargeArrays(t *testing.T) {
	var s fpTable
	s.init(1<<10, false)
	defer func() { freeKeys(s.keys) }()
	n := hugeMin / 8 // the array passes hugeMin while growing
	f := func(i int) fp { return fingerprint([]byte{byte(i), byte(i >> 8), byte(i >> 16), byte(i >> 24)}) }
	for i := range n {
		if !s.add(f(i), 0) {
			t.Fatalf("fingerprint %d taken as known", i)
		}
	}
	if len(s.keys)*8 < hugeMin {
		t.Fatalf("array of %d bytes, want at least %d", len(s.keys)*8, hugeMin)
	}
	for i := range n {
		if s.add(f(i), 0) || !s.has(f(i)) {
			t.Fatalf("fingerprint %d lost", i)
		}
	}
	if s.n != n {
		t.Errorf("%d fingerprints, want %d", s.n, n)
	}
	big := allocKeys(hugeMin / 8)
	for i, k := range big {
		if k != 0 {
			t.Fatalf("slot %d not zero", i)
		}
	}
	big[len(big)-1] = 1
	freeKeys(big)
}
