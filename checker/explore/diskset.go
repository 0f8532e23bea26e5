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

// diskSet is the part of the seen set moved out of the hash tables, kept as an LSM tree keeps
// its levels: sorted runs of fingerprints, disjoint, each with a Bloom filter in memory
// (bloomBits bits per fingerprint, 1.25 bytes) that answers "certainly not in this run" for all
// but a few percent of the fingerprints it does not hold. A run is one of two kinds:
//   - packed: compressed in memory on huge pages (packedRun, about 5 bytes a fingerprint), while
//     the packed runs fit their share of the budget (packShare);
//   - a file on disk, the fingerprints in ascending order (8 bytes each, little-endian), with
//     the first fingerprint of every page of pageFPs in memory (8 bytes per 128 states).
//
// The files come first in runs, oldest first, then the packed runs, oldest first. A flush
// writes the in-memory tables, partition by partition (in fingerprint order, as their top bits
// pick them), as a new run: it costs what the new fingerprints take, not what the runs already
// hold. The new run is packed when it fits the packed share once the oldest packed runs that
// stand in its way have been written out to files (on the expectation, not measured, that
// the newer a state, the likelier a search meets it again); else it is a file. Whenever a
// file joins the runs, then, while the file before the newest is at most twice its size, the
// two are merged into one (size tiers, as a binary counter carries): every fingerprint on disk
// is rewritten about log2(total/flush) times over the whole search and there are at most as
// many files. Packed runs are not merged: there are at most maxPacked of them.
//
// A worker looks up together the candidates of its chunk that some run's filter lets pass
// (settle), run by run, fetching each lookup's index entry (or bucket start) and page line
// (or remainder) ahead so that their memory misses overlap.
type diskSet struct {
	st        *storage
	runs      []*run
	n         int64 // fingerprints in all runs (they are disjoint)
	packShare int64 // the bytes packed runs may take with their filters (negative: unbounded)
	maxPacked int   // the most packed runs (0: maxPacked)
	// packed counts the runs packed and writtenOut those later written to files (tests).
	packed, writtenOut int
}

// run is one sorted run of the disk set: a file (f), or packed in memory (pk).
type run struct {
	f     *os.File   // nil for a packed run
	data  []byte     // the file mapped (mapRun), or nil: then pages are read with ReadAt
	pk    *packedRun // the run packed in memory, or nil for a file
	n     int64      // fingerprints in the run
	index []uint64   // a file's index: index[i] is page i's first fingerprint (allocKeys)
	bloom []uint64   // Bloom filter: bloomHashes bits a fingerprint in len(bloom)*64 bits (allocKeys)
}

// maxPacked is the most packed runs the set keeps: each costs every lookup that misses the
// tables a probe of its filter.
const maxPacked = 8

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

// bytes is the memory the runs take: the packed runs, and the files' indexes, and all the
// filters.
func (d *diskSet) bytes() int64 {
	var b int64
	for _, r := range d.runs {
		b += r.bytes()
	}
	return b
}

// bytes is the memory the run takes.
func (r *run) bytes() int64 {
	b := mappedBytes(cap(r.index)) + mappedBytes(len(r.bloom))
	if r.pk != nil {
		b += r.pk.bytes()
	}
	return b
}

// offHeap is the part of bytes mapped outside the Go heap (allocKeys on Linux).
func (d *diskSet) offHeap() int64 {
	var b int64
	for _, r := range d.runs {
		b += keysOffHeap(cap(r.index)) + keysOffHeap(len(r.bloom))
		if r.pk != nil {
			b += r.pk.offHeap()
		}
	}
	return b
}

// packedBytes is the memory the packed runs take, with their filters.
func (d *diskSet) packedBytes() int64 {
	var b int64
	for _, r := range d.runs[d.files():] {
		b += r.bytes()
	}
	return b
}

// files is the number of runs that are files (they come first).
func (d *diskSet) files() int {
	n := len(d.runs)
	for n > 0 && d.runs[n-1].pk != nil {
		n--
	}
	return n
}

// empty reports whether the set holds no run.
func (d *diskSet) empty() bool { return len(d.runs) == 0 }

// bloomWords is the size of a filter for n fingerprints, in 64-bit words.
func bloomWords(n int64) int { return int((n*bloomBits+63)/64 + 1) }

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

// runWriter writes one run, a file (w) or packed (pw), from fingerprints in ascending order.
type runWriter struct {
	d  *diskSet
	r  *run
	w  *bufio.Writer
	pw *packWriter
	b  [8]byte
}

// newRun starts a file run of size fingerprints.
func (d *diskSet) newRun(size int64) (*runWriter, error) {
	f, err := d.st.create("seen")
	if err != nil {
		return nil, err
	}
	// The index and the filter are read at random, once or twice for each candidate the
	// memory part does not hold: on huge pages they miss the TLB far less (allocKeys).
	r := &run{f: f, index: allocKeys(int(size/pageFPs + 1))[:0], bloom: allocKeys(bloomWords(size))}
	return &runWriter{d: d, r: r, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// newPacked starts a packed run of size fingerprints (at most packMax).
func (d *diskSet) newPacked(size int64) *runWriter {
	pw := newPackWriter(size)
	return &runWriter{d: d, r: &run{pk: pw.p, bloom: allocKeys(bloomWords(size))}, pw: pw}
}

func (rw *runWriter) emit(k uint64) error {
	r := rw.r
	if rw.pw != nil && rw.pw.full() {
		return fmt.Errorf("explore: more fingerprints than the %d a packed run was made for", rw.pw.size)
	}
	r.bloomAdd(k)
	if rw.pw != nil {
		rw.pw.put(k)
		r.n++
		return nil
	}
	if r.n%pageFPs == 0 {
		r.index = append(r.index, k)
	}
	r.n++
	binary.LittleEndian.PutUint64(rw.b[:], k)
	_, err := rw.w.Write(rw.b[:])
	return err
}

func (rw *runWriter) finish() (*run, error) {
	if rw.pw != nil {
		rw.pw.finish()
		return rw.r, nil
	}
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

// drop releases a run: it unmaps and removes a file, frees a packed run's arrays, and frees
// the index and the filter.
func (d *diskSet) drop(r *run) {
	unmapRun(r.data)
	r.data = nil
	r.free()
	if r.f != nil {
		d.st.remove(r.f, r.n*8)
	}
}

// free releases the run's memory: its index, its filter and its packed arrays.
func (r *run) free() {
	if cap(r.index) > 0 {
		freeKeys(r.index[:cap(r.index)])
	}
	if len(r.bloom) > 0 {
		freeKeys(r.bloom)
	}
	if r.pk != nil {
		r.pk.free()
	}
	r.index, r.bloom, r.pk = nil, nil, nil
}

func (rw *runWriter) abort() {
	rw.r.free()
	if rw.r.f != nil {
		rw.d.st.remove(rw.r.f, 0)
	}
}

// flush writes the fingerprints of s as a new run, packed in memory if it fits the packed
// share once the oldest packed runs in its way are written out to files, else a file; a file
// joining the runs is merged with files of similar size.
func (d *diskSet) flush(s *fpSet) error { return d.write(s, false) }

// flushOld writes the old generation of s as flush does and ages s (fpSet.age), partition by
// partition: each partition's table is rebuilt with its young fingerprints once its old ones
// are written, so that a packed run grows while the tables it comes from shrink, and the
// memory of both at once is not needed. On an error the set is left in part aged, its old
// fingerprints neither in the tables nor in a run: the search must end with the error, as
// Explore's does (a retry would take them for new states).
func (d *diskSet) flushOld(s *fpSet) error {
	if err := d.write(s, true); err != nil {
		return err
	}
	s.aged()
	return nil
}

// write is flush (oldOnly false) and flushOld (true, then fpSet.aged).
func (d *diskSet) write(s *fpSet, oldOnly bool) error {
	n := int64(s.len())
	if oldOnly {
		n = int64(s.old)
	}
	packed, err := d.makeRoom(n)
	if err != nil {
		return err
	}
	var rw *runWriter
	if packed {
		rw = d.newPacked(n)
	} else if rw, err = d.newRun(n); err != nil {
		return fmt.Errorf("explore: spilling the seen set: %w", err)
	}
	// The partitions are gathered and sorted one ahead, on a goroutine of their own: while
	// partition p's fingerprints are written and (oldOnly) its table is rebuilt, partition
	// p+1's are sorted (each touches only its own table), so a flush, during which no wave
	// expands, takes both processors. The two take turns with two buffers: the sorter fills
	// one while the other is written, and hands it over only when the writer asks for the next.
	// On an error the sorter is stopped and waited for: it must not read a table the caller
	// is about to release.
	next := make(chan []uint64)
	stop, sorted := make(chan struct{}), make(chan struct{})
	defer func() {
		close(stop)
		<-sorted
	}()
	go func() {
		defer close(sorted)
		var bufs [2][]uint64
		for p := range s.parts {
			bufs[p%2] = s.parts[p].appendSorted(bufs[p%2][:0], oldOnly)
			select {
			case next <- bufs[p%2]:
			case <-stop:
				return
			}
		}
	}()
	for p := range s.parts {
		for _, k := range <-next {
			if err := rw.emit(k); err != nil {
				rw.abort()
				return fmt.Errorf("explore: spilling the seen set: %w", err)
			}
		}
		if oldOnly {
			s.parts[p].age()
		}
	}
	r, err := rw.finish()
	if err != nil {
		return fmt.Errorf("explore: spilling the seen set: %w", err)
	}
	d.n += r.n
	if packed {
		d.runs = append(d.runs, r)
		d.packed++
		return nil
	}
	return d.addFile(r)
}

// makeRoom decides whether a new run of n fingerprints is packed. It is when it would fit the
// packed share alone and there are fewer than maxPacked packed runs once the oldest packed
// runs that stand in its way are written out to files (writeOut).
func (d *diskSet) makeRoom(n int64) (bool, error) {
	need := packedBytes(n)
	if n > packMax || d.packShare >= 0 && need > d.packShare {
		return false, nil
	}
	most := maxPacked
	if d.maxPacked > 0 {
		most = d.maxPacked
	}
	for f := d.files(); f < len(d.runs); f = d.files() {
		if len(d.runs)-f < most && (d.packShare < 0 || d.packedBytes()+need <= d.packShare) {
			break
		}
		if err := d.writeOut(f); err != nil {
			return false, err
		}
	}
	return true, nil
}

// writeOut writes packed run i, the oldest, to a file, which joins the files.
func (d *diskSet) writeOut(i int) error {
	p := d.runs[i]
	r, err := d.rewrite(p)
	if err != nil {
		return fmt.Errorf("explore: writing a packed run of the seen set to disk: %w", err)
	}
	d.drop(p)
	d.runs = slices.Delete(d.runs, i, i+1)
	d.writtenOut++
	return d.addFile(r)
}

// addFile puts file run r after the other files and merges files of similar size: while the
// file before the newest is at most twice its size, the two become one.
func (d *diskSet) addFile(r *run) error {
	f := d.files()
	d.runs = slices.Insert(d.runs, f, r)
	for f++; f >= 2; f-- {
		a, b := d.runs[f-2], d.runs[f-1]
		if a.n > 2*b.n {
			break
		}
		m, err := d.rewrite(a, b)
		if err != nil {
			return fmt.Errorf("explore: merging the seen set's runs: %w", err)
		}
		d.drop(a)
		d.drop(b)
		d.runs[f-2] = m
		d.runs = slices.Delete(d.runs, f-1, f)
	}
	return nil
}

// runReader reads a run in order: a file through a buffer, a packed run position by
// position.
type runReader struct {
	r      *bufio.Reader
	pk     *packedRun
	bucket uint64 // a packed run's bucket of the next position
	left   int64
	next   uint64
	have   bool
	b      [8]byte
}

func newRunReader(r *run) *runReader {
	if r.pk != nil {
		return &runReader{pk: r.pk, left: r.n}
	}
	return &runReader{r: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, r.n*8), 1<<20), left: r.n}
}

func (rr *runReader) advance() error {
	rr.have = false
	if rr.left == 0 {
		return nil
	}
	if p := rr.pk; p != nil {
		i := p.n - rr.left
		for p.end(rr.bucket) <= i {
			rr.bucket++
		}
		rr.left--
		rr.next, rr.have = p.key(rr.bucket, i), true
		return nil
	}
	if _, err := io.ReadFull(rr.r, rr.b[:]); err != nil {
		return err
	}
	rr.left--
	rr.next, rr.have = binary.LittleEndian.Uint64(rr.b[:]), true
	return nil
}

// rewrite writes the union of runs (disjoint: a fingerprint is flushed once) as one new file:
// two files merged (addFile), or one packed run written out (writeOut).
func (d *diskSet) rewrite(rs ...*run) (*run, error) {
	var size int64
	rrs := make([]*runReader, len(rs))
	for i, r := range rs {
		size += r.n
		rrs[i] = newRunReader(r)
	}
	rw, err := d.newRun(size)
	if err != nil {
		return nil, err
	}
	for _, rr := range rrs {
		if err := rr.advance(); err != nil {
			rw.abort()
			return nil, err
		}
	}
	for {
		var src *runReader
		for _, rr := range rrs {
			if rr.have && (src == nil || rr.next < src.next) {
				src = rr
			}
		}
		if src == nil {
			break
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
	r, err := d.holder(k, buf)
	return r != nil, err
}

// holder is has that returns the run that holds k (nil: none).
func (d *diskSet) holder(k uint64, buf *pageBuf) (*run, error) {
	for _, r := range d.runs {
		if !r.mayHave(k) {
			continue
		}
		ok, err := r.has(k, buf)
		if ok || err != nil {
			return r, err
		}
	}
	return nil, nil
}

// has looks k up in the run's page that would hold it. Fingerprints are uniform hashes, so
// both searches interpolate instead of bisecting: the page is first guessed from k's place in
// the whole range, then corrected from the index entries around the guess; within the page the
// slot is guessed from k's place between the page's first fingerprint and the next page's,
// and the search walks from there. Each guess is off by a few entries, so a lookup touches
// one or two cache lines of the index and of the page where bisection touched five or more
// (each a miss: the runs are far larger than the caches).
func (r *run) has(k uint64, buf *pageBuf) (bool, error) {
	if r.pk != nil {
		return r.pk.has(k), nil
	}
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
	onDisk bool   // set by settle: a run holds f
	packed bool   // set by settle: a packed run holds f
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
		if r.pk != nil {
			settlePacked(r.pk, ps, sel)
			continue
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

// settlePacked sets onDisk for the fingerprints ps[sel] that packed run p holds, fetching
// each lookup's bucket starts 2·settleAhead lookups ahead and the line of its first remainder
// settleAhead ahead, as settle does for a file's index and page.
func settlePacked(p *packedRun, ps []pendingFP, sel []int32) {
	n := len(sel)
	startLine := func(j int) {
		k := ps[sel[j]].f
		prefetch(&p.startMem[k>>(64-p.b)/2]) // the word holding the bucket's start
	}
	var los, his, guesses [settleAhead]int64
	locate := func(j int) {
		k := ps[sel[j]].f
		_, lo, hi := p.bucket(k)
		g := lo
		if lo < hi {
			g = p.guess(k, lo, hi)
			prefetch(p.remLine(g))
		}
		los[j%settleAhead], his[j%settleAhead], guesses[j%settleAhead] = lo, hi, g
	}
	for j := 0; j < min(2*settleAhead, n); j++ {
		startLine(j)
	}
	for j := 0; j < min(settleAhead, n); j++ {
		locate(j)
	}
	for i := 0; i < n; i++ {
		lo, hi, g := los[i%settleAhead], his[i%settleAhead], guesses[i%settleAhead]
		if j := i + 2*settleAhead; j < n {
			startLine(j)
		}
		if j := i + settleAhead; j < n {
			locate(j)
		}
		if lo < hi && p.search(ps[sel[i]].f, lo, hi, g) {
			ps[sel[i]].onDisk, ps[sel[i]].packed = true, true
		}
	}
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
