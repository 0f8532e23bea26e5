package explore

import (
	"encoding/binary"
	"math/bits"
	"runtime/debug"
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

// Searches running at once in one process share the runtime's soft memory limit: each lowers
// it by its own tables outside the heap, and the caller's value comes back when the last ends
// (whatever order they end in).
func TestHeapLimitShared(t *testing.T) {
	const base = 1 << 30
	old := debug.SetMemoryLimit(base)
	defer debug.SetMemoryLimit(old)
	a, b := newHeapLimit(), newHeapLimit()
	a.update(100 << 20)
	b.update(200 << 20)
	if got := debug.SetMemoryLimit(-1); got != base-300<<20 {
		t.Errorf("two searches: limit %d, want %d", got, base-300<<20)
	}
	a.restore()
	if got := debug.SetMemoryLimit(-1); got != base-200<<20 {
		t.Errorf("one left: limit %d, want %d", got, base-200<<20)
	}
	c := newHeapLimit() // starts while b runs: the caller's value is still the base
	c.update(900 << 20)
	if got := debug.SetMemoryLimit(-1); got != base/4 {
		t.Errorf("tables over the limit: %d, want a quarter of it, %d", got, base/4)
	}
	b.restore()
	c.restore()
	if got := debug.SetMemoryLimit(-1); got != base {
		t.Errorf("all ended: limit %d, want the caller's %d", got, base)
	}
}

// A set under a limit does not grow its tables past it: a full table fills on to seven
// eighths and says so (held), and the set still answers exactly; past seven eighths it grows
// anyway.
func TestFPSetHoldsGrowthAtLimit(t *testing.T) {
	s := newFPSet(0, false)
	const limit = 64 << 10
	s.limit(limit)
	f := func(i int) fp { return fingerprint([]byte{byte(i), byte(i >> 8), byte(i >> 16), 9}) }
	n := 0
	for ; !s.held(); n++ {
		s.add(f(n), 0)
	}
	if b := s.bytes(); b > limit {
		t.Errorf("held at %d fingerprints with %d bytes, over the limit %d", n, b, limit)
	}
	for i := range n {
		if !s.has(f(i)) {
			t.Fatalf("fingerprint %d lost", i)
		}
	}
	for i := n; i < 4*n; i++ {
		s.add(f(i), 0)
	}
	for p := range s.parts {
		if tb := &s.parts[p]; 8*tb.n > 7*len(tb.keys) {
			t.Errorf("table %d: %d of %d slots, over seven eighths", p, tb.n, len(tb.keys))
		}
	}
	s.reset()
	if s.held() || s.len() != 0 {
		t.Errorf("after reset: held %v, %d fingerprints", s.held(), s.len())
	}
}

// A table grows by half; when that would pass its limit, to the limit, if that is at least
// an eighth more; otherwise not at all.
func TestFPTableNextSize(t *testing.T) {
	const slots = 1 << 20 // 8 MiB of keys: whole huge pages on Linux
	cases := []struct {
		name     string
		maxBytes int64
		ids      bool
		want     int
	}{
		{"no limit", 0, false, slots * 3 / 2},
		{"room for half again", 12 << 20, false, slots * 3 / 2},
		{"room for a quarter more", 10 << 20, false, slots * 5 / 4},
		{"a quarter more, with ids", 15 << 20, true, slots * 5 / 4},
		{"room for a sixteenth more", 8<<20 + 512<<10, false, 0},
	}
	for _, c := range cases {
		tb := fpTable{keys: make([]uint64, slots), maxBytes: c.maxBytes}
		if c.ids {
			tb.ids = make([]uint32, slots)
		}
		got := tb.nextSize()
		if got != c.want && (c.want == 0 || got < c.want-c.want/256 || got > c.want) {
			t.Errorf("%s: next size %d, want %d", c.name, got, c.want)
		}
		if got > 0 && c.maxBytes > 0 && tb.bytesAt(got) > c.maxBytes {
			t.Errorf("%s: %d slots take %d bytes, over %d", c.name, got, tb.bytesAt(got), c.maxBytes)
		}
	}
}
