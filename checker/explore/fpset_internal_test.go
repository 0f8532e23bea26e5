package explore

import (
	"encoding/binary"
	"math/bits"
	"testing"
)

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

// fingerprintBytewise is the fingerprint as first written (the tail gathered byte by byte):
// fingerprints are written to swarm coverage files and must not change.
func fingerprintBytewise(b []byte) fp {
	h := uint64(len(b))*fpK0 ^ fpK1
	for len(b) >= 8 {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(b), fpK2)
		h = hi ^ lo ^ fpK0
		b = b[8:]
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	hi, lo := bits.Mul64(h^w^fpK1, fpK2)
	h = hi ^ lo
	h ^= h >> 30
	h *= fpK1
	h ^= h >> 27
	h *= fpK2
	h ^= h >> 31
	return fp(h | 1)
}

func TestFingerprintUnchanged(t *testing.T) {
	b := make([]byte, 80)
	for i := range b {
		b[i] = byte(i*37 + 11)
	}
	for n := 0; n <= len(b); n++ {
		for from := 0; from < 3 && from <= n; from++ {
			if got, want := fingerprint(b[from:n]), fingerprintBytewise(b[from:n]); got != want {
				t.Errorf("bytes %d-%d: %#x, want %#x", from, n, got, want)
			}
		}
	}
	if got := fingerprint([]byte("sharesim")); got != 0xf3d772b34736d6c9 {
		t.Errorf("fingerprint(\"sharesim\") = %#x: the hash changed", got)
	}
}
