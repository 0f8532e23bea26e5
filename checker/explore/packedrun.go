package explore

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// packedRun is a sorted run of fingerprints kept in memory, compressed without loss. It sits
// between the hash tables and the files on disk (diskSet): a run of 10^7-10^9 fingerprints
// takes 4.9-5.9 bytes each (plus its Bloom filter's 1.25), against 8 in a run's file and 10-12
// in the hash tables, and a lookup reads memory on huge pages instead of a page of a mapped
// file, which on a virtual machine costs 3-4× more (docs/checking.md, round 8).
//
// Layout. The fingerprints are split into 2^b buckets by their top b bits, with
// b = max(packMinBits, bits.Len64(n)-5), so that a bucket holds 16-32 of them on average
// (they are uniform hashes). Each is stored as its remainder: the l = 63-b bits between its
// bucket bits and bit 0, which every fingerprint has set (fp). The remainders lie back to back
// in a little-endian bit stream, in ascending order; starts[j] is the position of bucket j's
// first fingerprint (2^b of them: the last bucket ends at n). A fingerprint is its bucket, its
// remainder and bit 0, so the run answers exactly what the file would.
//
// A lookup reads starts[j] and starts[j+1] (one cache line), guesses the position from the
// remainder's place between 0 and 2^l (the remainders in a bucket are uniform too) and walks
// from there: usually one more cache line.
type packedRun struct {
	b, l   uint     // bucket bits and remainder bits: b+l = 63, l <= 56
	n      int64    // fingerprints in the run (< 2^32: starts are 32-bit)
	starts []uint32 // 2^b positions, over startMem
	bits   []byte   // the remainders, over words; at least 8 bytes past the last one's first
	// startMem and words are the arrays behind starts and bits (allocKeys: huge pages).
	startMem, words []uint64
}

// packMinBits is the fewest bucket bits: with l at most 56, a remainder at any bit offset lies
// within the 8 bytes from its first byte, so it is read with one load.
const packMinBits = 7

// packMax is the most fingerprints a packed run holds (starts are 32-bit).
const packMax = 1<<32 - 1

// packedShape returns the bucket and remainder bits of a packed run of n fingerprints.
func packedShape(n int64) (b, l uint) {
	b = uint(max(packMinBits, bits.Len64(uint64(n))-5))
	return b, 63 - b
}

// packedWords returns the sizes (in 8-byte words) of a packed run's two arrays: starts, and
// the remainders with one spare word.
func packedWords(n int64) (startWords, remWords int) {
	b, l := packedShape(n)
	return int((1<<b + 1) / 2), int((n*int64(l)+63)/64 + 1)
}

// packedBytes is the memory a packed run of n fingerprints takes with its Bloom filter.
func packedBytes(n int64) int64 {
	s, w := packedWords(n)
	return mappedBytes(s) + mappedBytes(w) + mappedBytes(bloomWords(n))
}

// packWriter builds a packed run from fingerprints given in ascending order.
type packWriter struct {
	p      *packedRun // p.n counts the fingerprints written
	size   int64      // the most it holds
	next   uint64     // the first bucket whose start is not yet set
	acc    uint64     // remainder bits not yet stored, from bit 0
	nacc   uint       // how many
	word   int        // the next word of words to store
	remMsk uint64
}

func newPackWriter(size int64) *packWriter {
	b, l := packedShape(size)
	s, w := packedWords(size)
	p := &packedRun{b: b, l: l, startMem: allocKeys(s), words: allocKeys(w)}
	p.starts = unsafe.Slice((*uint32)(unsafe.Pointer(&p.startMem[0])), 1<<b)
	p.bits = unsafe.Slice((*byte)(unsafe.Pointer(&p.words[0])), 8*len(p.words))
	return &packWriter{p: p, size: size, remMsk: 1<<l - 1}
}

// full reports whether the run holds as many fingerprints as it was made for (its arrays are
// sized for them: one more would not fit).
func (w *packWriter) full() bool { return w.p.n == w.size }

// put appends fingerprint k, which is above every one before it; the run must not be full.
func (w *packWriter) put(k uint64) {
	p := w.p
	for j := k >> (64 - p.b); w.next <= j; w.next++ {
		p.starts[w.next] = uint32(p.n)
	}
	r := k >> 1 & w.remMsk
	w.acc |= r << w.nacc
	if w.nacc+p.l >= 64 {
		p.words[w.word] = w.acc
		w.word++
		w.acc = r >> (64 - w.nacc) // the bits that did not fit (none when nacc+l is 64)
		w.nacc = w.nacc + p.l - 64
	} else {
		w.nacc += p.l
	}
	p.n++
}

// finish sets the remaining starts and stores the last bits.
func (w *packWriter) finish() *packedRun {
	p := w.p
	for ; w.next < 1<<p.b; w.next++ {
		p.starts[w.next] = uint32(p.n)
	}
	if w.nacc > 0 {
		p.words[w.word] = w.acc
	}
	return p
}

// rem returns the remainder at position i.
func (p *packedRun) rem(i int64) uint64 {
	at := uint64(i) * uint64(p.l)
	return binary.LittleEndian.Uint64(p.bits[at>>3:]) >> (at & 7) & (1<<p.l - 1)
}

// key returns the fingerprint at position i of bucket j.
func (p *packedRun) key(j uint64, i int64) uint64 {
	return j<<(64-p.b) | p.rem(i)<<1 | 1
}

// bucket returns k's bucket and the positions [lo, hi) of that bucket's fingerprints.
func (p *packedRun) bucket(k uint64) (j uint64, lo, hi int64) {
	j = k >> (64 - p.b)
	return j, int64(p.starts[j]), p.end(j)
}

// end is the position past bucket j's last fingerprint.
func (p *packedRun) end(j uint64) int64 {
	if j+1 < uint64(len(p.starts)) {
		return int64(p.starts[j+1])
	}
	return p.n
}

// guess returns the position in [lo, hi) where k's search starts: k's remainder's place in
// the bucket's range of remainders, scaled to the bucket's count.
func (p *packedRun) guess(k uint64, lo, hi int64) int64 {
	r := k >> 1 & (1<<p.l - 1)
	h, l := bits.Mul64(r, uint64(hi-lo))
	return lo + int64(h<<(64-p.l)|l>>p.l)
}

// search reports whether bucket [lo, hi) holds k, walking from position i (in [lo, hi)).
func (p *packedRun) search(k uint64, lo, hi, i int64) bool {
	r := k >> 1 & (1<<p.l - 1)
	v := p.rem(i)
	for v > r && i > lo {
		i--
		v = p.rem(i)
	}
	for v < r && i+1 < hi {
		i++
		v = p.rem(i)
	}
	return v == r
}

// has reports whether the run holds k.
func (p *packedRun) has(k uint64) bool {
	_, lo, hi := p.bucket(k)
	if lo == hi {
		return false
	}
	return p.search(k, lo, hi, p.guess(k, lo, hi))
}

// remLine is the address of the word holding the first bits of the remainder at position i
// (for prefetch).
func (p *packedRun) remLine(i int64) *uint64 {
	return &p.words[uint64(i)*uint64(p.l)>>6]
}

// bytes is the memory the run's arrays take (without its Bloom filter).
func (p *packedRun) bytes() int64 {
	return mappedBytes(len(p.startMem)) + mappedBytes(len(p.words))
}

// offHeap is the part of bytes mapped outside the Go heap.
func (p *packedRun) offHeap() int64 {
	return keysOffHeap(len(p.startMem)) + keysOffHeap(len(p.words))
}

func (p *packedRun) free() {
	freeKeys(p.startMem)
	freeKeys(p.words)
	*p = packedRun{}
}
