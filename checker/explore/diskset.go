package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"
)

// diskSet is the part of the seen set flushed to disk, as TLC's disk-backed fingerprint set
// keeps it: every fingerprint flushed so far in one file, sorted ascending, 8 bytes each
// (little-endian), and in memory the first fingerprint of every page of pageFPs (8 bytes per
// 128 states). A flush merges the in-memory tables, partition by partition (in fingerprint
// order, as their top bits pick them), with the old file into a new one. A batch of
// candidates is looked up sorted: each is searched in the index, then in its page, and
// candidates in the same page share one read.
type diskSet struct {
	st    *storage
	f     *os.File
	n     int64    // fingerprints in the file
	index []uint64 // index[i] is the first fingerprint of page i
}

// pageFPs is the number of fingerprints in a page of the file (1 KiB).
const pageFPs = 128

func (d *diskSet) bytes() int64 { return int64(cap(d.index)) * 8 }

// flush merges the fingerprints of s into the file.
func (d *diskSet) flush(s *fpSet) error {
	f, err := d.st.create("seen")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var old *bufio.Reader
	if d.f != nil {
		old = bufio.NewReaderSize(io.NewSectionReader(d.f, 0, d.n*8), 1<<20)
	}
	var (
		oldLeft = d.n
		next    uint64 // the old file's next fingerprint, when have
		have    bool
		index   = make([]uint64, 0, (d.n+int64(s.len()))/pageFPs+1)
		n       int64
		b       [8]byte
		keys    []uint64
	)
	readOld := func() error {
		have = false
		if oldLeft == 0 {
			return nil
		}
		if _, err := io.ReadFull(old, b[:]); err != nil {
			return err
		}
		oldLeft--
		next, have = binary.LittleEndian.Uint64(b[:]), true
		return nil
	}
	emit := func(k uint64) error {
		if n%pageFPs == 0 {
			index = append(index, k)
		}
		n++
		binary.LittleEndian.PutUint64(b[:], k)
		_, err := w.Write(b[:])
		return err
	}
	fail := func(err error) error {
		d.st.remove(f, 0)
		return fmt.Errorf("explore: spilling the seen set: %w", err)
	}
	if old != nil {
		if err := readOld(); err != nil {
			return fail(err)
		}
	}
	for p := range s.parts {
		keys = s.parts[p].appendSorted(keys[:0])
		for _, k := range keys {
			for have && next < k {
				if err := emit(next); err != nil {
					return fail(err)
				}
				if err := readOld(); err != nil {
					return fail(err)
				}
			}
			if err := emit(k); err != nil { // the sets are disjoint: a key is never in both
				return fail(err)
			}
		}
	}
	for have {
		if err := emit(next); err != nil {
			return fail(err)
		}
		if err := readOld(); err != nil {
			return fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	d.st.grew(n * 8)
	d.st.remove(d.f, d.n*8)
	d.f, d.n, d.index = f, n, index
	return nil
}

// lookup sets seen[i] for every fingerprint of fps (sorted ascending) that is in the file,
// using up to par goroutines.
func (d *diskSet) lookup(fps []uint64, seen []bool, par int) error {
	if d.f == nil || len(fps) == 0 {
		return nil
	}
	par = max(1, min(par, len(fps)/1024))
	var wg sync.WaitGroup
	errs := make([]error, par)
	for g := 0; g < par; g++ {
		lo, hi := g*len(fps)/par, (g+1)*len(fps)/par
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g] = d.lookupRange(fps[lo:hi], seen[lo:hi])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *diskSet) lookupRange(fps []uint64, seen []bool) error {
	var raw [pageFPs * 8]byte
	var page [pageFPs]uint64
	cur, have := -1, 0
	for i, k := range fps {
		p := sort.Search(len(d.index), func(j int) bool { return d.index[j] > k }) - 1
		if p < 0 {
			continue
		}
		if p != cur {
			have = int(min(pageFPs, d.n-int64(p)*pageFPs))
			if _, err := d.f.ReadAt(raw[:have*8], int64(p)*pageFPs*8); err != nil {
				return fmt.Errorf("explore: reading the seen set back: %w", err)
			}
			for j := 0; j < have; j++ {
				page[j] = binary.LittleEndian.Uint64(raw[8*j:])
			}
			cur = p
		}
		_, seen[i] = slices.BinarySearch(page[:have], k)
	}
	return nil
}

// appendAll appends the file's fingerprints.
func (d *diskSet) appendAll(out []uint64) ([]uint64, error) {
	if d.f == nil {
		return out, nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(d.f, 0, d.n*8), 1<<20)
	var b [8]byte
	for i := int64(0); i < d.n; i++ {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return out, fmt.Errorf("explore: reading the seen set back: %w", err)
		}
		out = append(out, binary.LittleEndian.Uint64(b[:]))
	}
	return out, nil
}

func (d *diskSet) close() {
	d.st.remove(d.f, d.n*8)
	d.f, d.n, d.index = nil, 0, nil
}
