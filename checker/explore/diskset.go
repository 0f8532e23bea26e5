package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sort"
	"unsafe"
)

// diskSet is the part of the seen set flushed to disk, kept as an LSM tree keeps its levels:
// sorted runs, each a file of fingerprints in ascending order (8 bytes each, little-endian),
// newest last. In memory each run has the first fingerprint of every page of pageFPs (8 bytes
// per 128 states) and a Bloom filter (bloomBits bits per fingerprint, 1.25 bytes) that
// answers "certainly not in this run" for all but a few percent of the fingerprints it does not
// hold.
//
// A flush writes the in-memory tables, partition by partition (in fingerprint order, as their
// top bits pick them), as a new run: it costs what the new fingerprints take, not what is
// already on disk. Then, while the run before the newest is at most twice its size, the two
// are merged into one (size tiers, as a binary counter carries): every fingerprint is
// rewritten about log2(total/flush) times over the whole search and there are at most as many
// runs. A worker looks up together the candidates of its chunk that some run's filter lets
// pass (settle), run by run, fetching each lookup's index entry and page line ahead so that
// their memory misses overlap.
type diskSet struct {
	st   *storage
	runs []*run
	n    int64 // fingerprints on disk, in all runs (they are disjoint)
}

// run is one sorted file of the disk set.
type run struct {
	f     *os.File
	data  []byte   // the file mapped (mapRun), or nil: then pages are read with ReadAt
	n     int64    // fingerprints in the file
	index []uint64 // index[i] is the first fingerprint of page i (allocKeys: huge pages)
	bloom []uint64 // Bloom filter: bloomHashes bits per fingerprint in len(bloom)*64 bits (allocKeys)
}

// pageFPs is the number of fingerprints in a page of a run's file (1 KiB).
const pageFPs = 128

// bloomBits is the size of a run's Bloom filter in bits per fingerprint and bloomHashes the
// bits set per fingerprint. The filter is blocked: all of a fingerprint's bits lie in one
// 64-bit word, so a query costs one memory access; with these sizes a few percent of the
// fingerprints not in the run pass it.
const (
	bloomBits   = 10
	bloomHashes = 7
)

func (d *diskSet) bytes() int64 {
	var b int64
	for _, r := range d.runs {
		b += mappedBytes(cap(r.index)) + mappedBytes(len(r.bloom))
	}
	return b
}

// offHeap is the part of bytes mapped outside the Go heap (allocKeys on Linux).
func (d *diskSet) offHeap() int64 {
	var b int64
	for _, r := range d.runs {
		b += keysOffHeap(cap(r.index)) + keysOffHeap(len(r.bloom))
	}
	return b
}

// empty reports whether nothing is on disk.
func (d *diskSet) empty() bool { return len(d.runs) == 0 }

// bloomWord returns the word of a filter of n words that holds fingerprint k's bits, and
// those bits: the word from k's high bits, the bits from 6-bit pieces of its low bits (the
// fingerprint is already a uniform hash).
func bloomWord(k uint64, n int) (int, uint64) {
	var mask uint64
	for i := 0; i < bloomHashes; i++ {
		mask |= 1 << ((k >> (6 * i)) & 63)
	}
	return bloomIndex(k, n), mask
}

// bloomIndex is the word of a filter of n words that holds fingerprint k's bits.
func bloomIndex(k uint64, n int) int {
	hi, _ := bits.Mul64(k, uint64(n))
	return int(hi)
}

func (r *run) bloomAdd(k uint64) {
	w, m := bloomWord(k, len(r.bloom))
	r.bloom[w] |= m
}

// prefetch starts fetching the filter words that has(k) will read first, one in each run:
// the workers call it as soon as a child's fingerprint is known, so that these misses overlap
// with the work before the lookup.
func (d *diskSet) prefetch(k uint64) {
	for _, r := range d.runs {
		prefetch(&r.bloom[bloomIndex(k, len(r.bloom))])
	}
}

// mayHave reports whether k may be in the run (false: certainly not).
func (r *run) mayHave(k uint64) bool {
	w, m := bloomWord(k, len(r.bloom))
	return r.bloom[w]&m == m
}

// runWriter writes one run.
type runWriter struct {
	d *diskSet
	r *run
	w *bufio.Writer
	b [8]byte
}

func (d *diskSet) newRun(size int64) (*runWriter, error) {
	f, err := d.st.create("seen")
	if err != nil {
		return nil, err
	}
	// The index and the filter are read at random, once or twice for each candidate the
	// memory part does not hold: on huge pages they miss the TLB far less (allocKeys).
	r := &run{f: f, index: allocKeys(int(size/pageFPs + 1))[:0], bloom: allocKeys(int((size*bloomBits+63)/64 + 1))}
	return &runWriter{d: d, r: r, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (rw *runWriter) emit(k uint64) error {
	r := rw.r
	if r.n%pageFPs == 0 {
		r.index = append(r.index, k)
	}
	r.n++
	rw.r.bloomAdd(k)
	binary.LittleEndian.PutUint64(rw.b[:], k)
	_, err := rw.w.Write(rw.b[:])
	return err
}

func (rw *runWriter) finish() (*run, error) {
	if err := rw.w.Flush(); err != nil {
		rw.abort()
		return nil, err
	}
	rw.d.st.grew(rw.r.n * 8)
	if data, err := mapRun(rw.r.f, rw.r.n*8); err == nil {
		rw.r.data = data // else the pages are read with ReadAt
	}
	return rw.r, nil
}

// drop unmaps a run, frees its index and filter and removes its file.
func (d *diskSet) drop(r *run) {
	unmapRun(r.data)
	r.data = nil
	r.free()
	d.st.remove(r.f, r.n*8)
}

// free releases the run's index and filter.
func (r *run) free() {
	if cap(r.index) > 0 {
		freeKeys(r.index[:cap(r.index)])
	}
	if len(r.bloom) > 0 {
		freeKeys(r.bloom)
	}
	r.index, r.bloom = nil, nil
}

func (rw *runWriter) abort() {
	rw.r.free()
	rw.d.st.remove(rw.r.f, 0)
}

// flush writes the fingerprints of s (oldOnly: its old generation's) as a new run and
// merges runs of similar size.
func (d *diskSet) flush(s *fpSet, oldOnly bool) error {
	n := s.len()
	if oldOnly {
		n = s.old
	}
	rw, err := d.newRun(int64(n))
	if err != nil {
		return fmt.Errorf("explore: spilling the seen set: %w", err)
	}
	var keys []uint64
	for p := range s.parts {
		keys = s.parts[p].appendSorted(keys[:0], oldOnly)
		for _, k := range keys {
			if err := rw.emit(k); err != nil {
				rw.abort()
				return fmt.Errorf("explore: spilling the seen set: %w", err)
			}
		}
	}
	r, err := rw.finish()
	if err != nil {
		return fmt.Errorf("explore: spilling the seen set: %w", err)
	}
	d.runs = append(d.runs, r)
	d.n += r.n
	for len(d.runs) >= 2 {
		a, b := d.runs[len(d.runs)-2], d.runs[len(d.runs)-1]
		if a.n > 2*b.n {
			break
		}
		m, err := d.merge(a, b)
		if err != nil {
			return fmt.Errorf("explore: merging the seen set's runs: %w", err)
		}
		d.drop(a)
		d.drop(b)
		d.runs = append(d.runs[:len(d.runs)-2], m)
	}
	return nil
}

// runReader reads a run in order.
type runReader struct {
	r    *bufio.Reader
	left int64
	next uint64
	have bool
	b    [8]byte
}

func newRunReader(r *run) *runReader {
	return &runReader{r: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, r.n*8), 1<<20), left: r.n}
}

func (rr *runReader) advance() error {
	rr.have = false
	if rr.left == 0 {
		return nil
	}
	if _, err := io.ReadFull(rr.r, rr.b[:]); err != nil {
		return err
	}
	rr.left--
	rr.next, rr.have = binary.LittleEndian.Uint64(rr.b[:]), true
	return nil
}

// merge writes the union of two runs (disjoint: a fingerprint is flushed once) as one.
func (d *diskSet) merge(a, b *run) (*run, error) {
	rw, err := d.newRun(a.n + b.n)
	if err != nil {
		return nil, err
	}
	ra, rb := newRunReader(a), newRunReader(b)
	if err := ra.advance(); err != nil {
		rw.abort()
		return nil, err
	}
	if err := rb.advance(); err != nil {
		rw.abort()
		return nil, err
	}
	for ra.have || rb.have {
		src := ra
		if !ra.have || rb.have && rb.next < ra.next {
			src = rb
		}
		if err := rw.emit(src.next); err != nil {
			rw.abort()
			return nil, err
		}
		if err := src.advance(); err != nil {
			rw.abort()
			return nil, err
		}
	}
	return rw.finish()
}

// pageBuf is a worker's buffer for one page of a run.
type pageBuf [pageFPs * 8]byte

// has reports whether k is on disk, reading at most one page of each run whose filter lets k
// pass (runs from the oldest, which holds the most, to the newest). It may be called from
// many goroutines at once, as long as no flush runs meanwhile; buf is the caller's own.
func (d *diskSet) has(k uint64, buf *pageBuf) (bool, error) {
	for _, r := range d.runs {
		if !r.mayHave(k) {
			continue
		}
		ok, err := r.has(k, buf)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// has looks k up in the run's page that would hold it. Fingerprints are uniform hashes, so
// both searches interpolate instead of bisecting: the page is first guessed from k's place in
// the whole range, then corrected from the index entries around the guess; within the page the
// slot is guessed from k's place between the page's first fingerprint and the next page's,
// and the search walks from there. Each guess is off by a few entries, so a lookup touches
// one or two cache lines of the index and of the page where bisection touched five or more
// (each a miss: the runs are far larger than the caches).
func (r *run) has(k uint64, buf *pageBuf) (bool, error) {
	p, i := r.locate(k)
	if p < 0 {
		return false, nil
	}
	have := int(min(pageFPs, r.n-int64(p)*pageFPs))
	page := buf[:have*8]
	if r.data != nil {
		page = r.data[int64(p)*pageFPs*8:][:have*8]
	} else if err := r.readPage(page, p); err != nil {
		return false, err
	}
	return searchPage(page, k, i), nil
}

// filters reports which runs' filters let k pass: bit i for run i (the runs past the 63rd all
// share bit 63). Zero means k is certainly not on disk.
func (d *diskSet) filters(k uint64) uint64 {
	var m uint64
	for i, r := range d.runs {
		if r.mayHave(k) {
			m |= 1 << min(i, 63)
		}
	}
	return m
}

// pendingFP is a new candidate's fingerprint that some run's filter lets pass, so that it may
// be on disk after all; settle finds out.
type pendingFP struct {
	f      uint64
	runs   uint64 // filters(f)
	cand   int32  // the candidate's index among its chunk's
	onDisk bool   // set by settle
}

// settleAhead is how many lookups ahead settle fetches the line of a run's page where a
// lookup's search starts; the index entry that finds that line is fetched twice as far ahead.
const settleAhead = 8

// settle sets onDisk for each fingerprint of ps that a run holds, looking in the runs whose
// filters let it pass (pendingFP.runs), oldest first, as has does. It looks them up run by
// run with each lookup's memory fetched ahead (settleAhead), so that the misses of many lookups
// overlap: has, one lookup at a time, waits for the index and then for the page, whose address
// in the mapped file usually misses the TLB as well. sel is scratch; settle returns it.
func (d *diskSet) settle(ps []pendingFP, sel []int32, buf *pageBuf) ([]int32, error) {
	for ri, r := range d.runs {
		sel = sel[:0]
		for i := range ps {
			p := &ps[i]
			if !p.onDisk && (ri < 63 && p.runs&(1<<ri) != 0 || ri >= 63 && r.mayHave(p.f)) {
				sel = append(sel, int32(i))
			}
		}
		if r.data == nil {
			for _, i := range sel {
				ok, err := r.has(ps[i].f, buf)
				if err != nil {
					return sel, err
				}
				ps[i].onDisk = ok
			}
			continue
		}
		n := len(sel)
		indexLine := func(j int) {
			g, _ := bits.Mul64(ps[sel[j]].f, uint64(len(r.index)))
			prefetch(&r.index[g])
		}
		var pages, slots [settleAhead]int
		locate := func(j int) {
			p, q := r.locate(ps[sel[j]].f)
			pages[j%settleAhead], slots[j%settleAhead] = p, q
			if p >= 0 {
				prefetch((*uint64)(unsafe.Pointer(&r.data[(int64(p)*pageFPs+int64(q))*8])))
			}
		}
		for j := 0; j < min(2*settleAhead, n); j++ {
			indexLine(j)
		}
		for j := 0; j < min(settleAhead, n); j++ {
			locate(j)
		}
		for i := 0; i < n; i++ {
			p, q := pages[i%settleAhead], slots[i%settleAhead]
			if j := i + 2*settleAhead; j < n {
				indexLine(j)
			}
			if j := i + settleAhead; j < n {
				locate(j)
			}
			if p < 0 {
				continue
			}
			have := int(min(pageFPs, r.n-int64(p)*pageFPs))
			ps[sel[i]].onDisk = searchPage(r.data[int64(p)*pageFPs*8:][:have*8], ps[sel[i]].f, q)
		}
	}
	return sel, nil
}

// locate returns the page that would hold k (-1: none) and the slot in it where k's search
// starts (interpolated between the page's first fingerprint and the next page's).
func (r *run) locate(k uint64) (int, int) {
	p := r.pageOf(k)
	if p < 0 {
		return -1, 0
	}
	have := int(min(pageFPs, r.n-int64(p)*pageFPs))
	// k lies in [first, next): next is the following page's first fingerprint (or the top).
	first, next := r.index[p], uint64(math.MaxUint64)
	if p+1 < len(r.index) {
		next = r.index[p+1]
	}
	i := 0
	if next > first {
		hi, lo := bits.Mul64(k-first, uint64(have))
		q, _ := bits.Div64(hi, lo, next-first) // hi < next-first: k-first < next-first
		i = min(int(q), have-1)
	}
	return p, i
}

// searchPage reports whether the page (fingerprints, ascending, 8 bytes each) holds k, walking
// from slot i.
func searchPage(page []byte, k uint64, i int) bool {
	have := len(page) / 8
	at := func(j int) uint64 { return binary.LittleEndian.Uint64(page[8*j:]) }
	v := at(i)
	for v > k && i > 0 {
		i--
		v = at(i)
	}
	for v < k && i+1 < have {
		i++
		v = at(i)
	}
	return v == k
}

// pageOf returns the page that would hold k: the last whose first fingerprint is at most k
// (-1: none).
func (r *run) pageOf(k uint64) int {
	n := len(r.index)
	if n == 0 || k < r.index[0] {
		return -1
	}
	// Guess from k's place in the whole range, then from the index entry at the guess and the
	// pages' mean width around it; walk the last stretch.
	g, _ := bits.Mul64(k, uint64(n))
	p := int(g)
	for range 2 {
		e := r.index[p]
		var d int
		if e <= k {
			step, _ := bits.Mul64(k-e, uint64(n))
			d = int(step)
		} else {
			step, _ := bits.Mul64(e-k, uint64(n))
			d = -int(step) - 1
		}
		if d == 0 || d == -1 {
			break
		}
		p = min(max(p+d, 0), n-1)
	}
	for range 8 {
		switch {
		case r.index[p] > k:
			p--
		case p+1 < n && r.index[p+1] <= k:
			p++
		default:
			return p
		}
	}
	// Still far off (fingerprints that are not uniform): bisect.
	return sort.Search(n, func(j int) bool { return r.index[j] > k }) - 1
}

// readPage reads page p of the run (len(into) bytes) into into.
func (r *run) readPage(into []byte, p int) error {
	if r.data != nil {
		copy(into, r.data[int64(p)*pageFPs*8:])
		return nil
	}
	if _, err := r.f.ReadAt(into, int64(p)*pageFPs*8); err != nil {
		return fmt.Errorf("explore: reading the seen set back: %w", err)
	}
	return nil
}

// appendAll appends every fingerprint on disk, sorted.
func (d *diskSet) appendAll(out []uint64) ([]uint64, error) {
	from := len(out)
	for _, r := range d.runs {
		rr := newRunReader(r)
		for {
			if err := rr.advance(); err != nil {
				return out, fmt.Errorf("explore: reading the seen set back: %w", err)
			}
			if !rr.have {
				break
			}
			out = append(out, rr.next)
		}
	}
	slices.Sort(out[from:])
	return out, nil
}

func (d *diskSet) close() {
	for _, r := range d.runs {
		d.drop(r)
	}
	d.runs, d.n = nil, 0
}
