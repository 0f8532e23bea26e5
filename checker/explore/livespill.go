package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
)

// The liveness graph on disk. When the seen set (which, with liveness, maps every state's
// fingerprint to its id) and the graph outgrow the seen set's share of the memory budget, the
// graph spills (graph.spill): the edges already resolved to ids are written to the edge file
// (8 bytes each: target id, source id), every state's fingerprint and id to the id files,
// and the seen set drops its ids, so that it can be flushed to its runs like any other. From
// then on a new state's fingerprint and id go to the id files as it gets its id
// (graph.newState), and an expanded state's fault-free edges go to the open-edge files by
// the successor's fingerprint (12 bytes each: fingerprint, source id). Both are split into
// liveBuckets files by the fingerprint's top bits. After the search each bucket's ids are
// read into memory sorted and its open edges resolved against them into the edge file; then
// the backward reachability marks, pass after pass over the edge file, every source whose
// target is marked, until a pass marks nothing, with a bit per state in memory. Memory: two
// bits per state (settled, reached), the buckets' write buffers, and one bucket's ids while
// resolving (12 bytes per state / liveBuckets). The result is the same as in memory
// (TestLivenessSpillKeepsResults): the same states are stuck, and the stuck states are
// classified in the same id order.

// liveBuckets is the number of id and open-edge files.
const liveBuckets = 256

// liveBufBytes is each of those files' write buffer.
const liveBufBytes = 32 << 10

// liveDisk is the spilled part of a graph.
type liveDisk struct {
	st     *storage
	ids    [liveBuckets]*recFile // fingerprint, id
	open   [liveBuckets]*recFile // successor fingerprint, source id
	edges  *recFile              // target id, source id
	nEdges int64
}

// recFile is a file of fixed-size records written through a buffer.
type recFile struct {
	st *storage
	f  *os.File
	w  *bufio.Writer
	n  int64 // bytes written
}

func newRecFile(st *storage, what string, buf int) (*recFile, error) {
	f, err := st.create(what)
	if err != nil {
		return nil, err
	}
	return &recFile{st: st, f: f, w: bufio.NewWriterSize(f, buf)}, nil
}

func (r *recFile) write(b []byte) error {
	if _, err := r.w.Write(b); err != nil {
		return fmt.Errorf("explore: spilling the liveness graph: %w", err)
	}
	r.n += int64(len(b))
	r.st.grew(int64(len(b)))
	return nil
}

// done flushes what is buffered.
func (r *recFile) done() error {
	if r.w == nil {
		return nil
	}
	err := r.w.Flush()
	r.w = nil
	if err != nil {
		return fmt.Errorf("explore: spilling the liveness graph: %w", err)
	}
	return nil
}

// reader reads the file from the start (after done).
func (r *recFile) reader() *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(r.f, 0, r.n), 1<<20)
}

func (r *recFile) remove(st *storage) {
	if r != nil {
		st.remove(r.f, r.n)
	}
}

func liveBucket(f uint64) int { return int(f >> 56) }

// spilled reports whether the graph is on disk.
func (g *graph) spilled() bool { return g != nil && g.disk != nil }

// spill moves the graph to disk and takes the ids out of the seen set (see above).
func (g *graph) spill(st *storage, set *fpSet) error {
	d := &liveDisk{st: st}
	g.disk = d
	var err error
	if d.edges, err = newRecFile(st, "live-edges", 1<<20); err != nil {
		return err
	}
	for b := range d.ids {
		if d.ids[b], err = newRecFile(st, "live-ids", liveBufBytes); err != nil {
			return err
		}
		if d.open[b], err = newRecFile(st, "live-open", liveBufBytes); err != nil {
			return err
		}
	}
	var rec [12]byte
	for s := 0; s < g.n; s++ {
		for _, t := range g.edges[g.eoff[s]:g.eoff[s+1]] {
			binary.LittleEndian.PutUint32(rec[0:], t)
			binary.LittleEndian.PutUint32(rec[4:], uint32(s))
			if err := d.edges.write(rec[:8]); err != nil {
				return err
			}
		}
	}
	d.nEdges = int64(len(g.edges))
	g.edges, g.eoff = nil, nil
	for p := range set.parts {
		t := &set.parts[p]
		for i, k := range t.keys {
			if k != 0 {
				if err := g.newState(t.fpOf(k), t.ids[i]); err != nil {
					return err
				}
			}
		}
	}
	for p := range set.parts {
		set.parts[p].ids = nil
	}
	return nil
}

// newState records a state's id (spilled graphs only).
func (g *graph) newState(f fp, id uint32) error {
	if !g.spilled() {
		return nil
	}
	var rec [12]byte
	binary.LittleEndian.PutUint64(rec[0:], uint64(f))
	binary.LittleEndian.PutUint32(rec[8:], id)
	return g.disk.ids[liveBucket(uint64(f))].write(rec[:])
}

// addOpen records a fault-free edge from state src to the state of fingerprint f.
func (d *liveDisk) addOpen(f fp, src uint32) error {
	var rec [12]byte
	binary.LittleEndian.PutUint64(rec[0:], uint64(f))
	binary.LittleEndian.PutUint32(rec[8:], src)
	return d.open[liveBucket(uint64(f))].write(rec[:])
}

func (d *liveDisk) bytes() int64 { return 2 * liveBuckets * liveBufBytes }

// resolve turns the open edges into edges between ids, bucket by bucket.
func (d *liveDisk) resolve() error {
	type idRec struct {
		f  uint64
		id uint32
	}
	var ids []idRec
	var rec [12]byte
	for b := range d.ids {
		for _, r := range []*recFile{d.ids[b], d.open[b]} {
			if err := r.done(); err != nil {
				return err
			}
		}
		ids = ids[:0]
		rd := d.ids[b].reader()
		for range d.ids[b].n / 12 {
			if _, err := io.ReadFull(rd, rec[:]); err != nil {
				return fmt.Errorf("explore: liveness: reading the state ids back: %w", err)
			}
			ids = append(ids, idRec{binary.LittleEndian.Uint64(rec[0:]), binary.LittleEndian.Uint32(rec[8:])})
		}
		slices.SortFunc(ids, func(a, b idRec) int {
			switch {
			case a.f < b.f:
				return -1
			case a.f > b.f:
				return 1
			}
			return 0
		})
		rd = d.open[b].reader()
		for range d.open[b].n / 12 {
			if _, err := io.ReadFull(rd, rec[:]); err != nil {
				return fmt.Errorf("explore: liveness: reading the edges back: %w", err)
			}
			f := binary.LittleEndian.Uint64(rec[0:])
			i, ok := slices.BinarySearchFunc(ids, f, func(a idRec, f uint64) int {
				switch {
				case a.f < f:
					return -1
				case a.f > f:
					return 1
				}
				return 0
			})
			if !ok {
				return fmt.Errorf("explore: liveness: a successor's fingerprint is not in the set")
			}
			binary.LittleEndian.PutUint32(rec[0:], ids[i].id)
			copy(rec[4:8], rec[8:12])
			if err := d.edges.write(rec[:8]); err != nil {
				return err
			}
			d.nEdges++
		}
		d.ids[b].remove(d.st)
		d.open[b].remove(d.st)
		d.ids[b], d.open[b] = nil, nil
	}
	return d.edges.done()
}

// passes calls visit with every edge (target, source) of the edge file, pass after pass,
// until a pass in which visit returned false for every edge.
func (d *liveDisk) passes(visit func(t, s uint32) bool) error {
	var rec [8]byte
	for {
		changed := false
		rd := d.edges.reader()
		for range d.edges.n / 8 {
			if _, err := io.ReadFull(rd, rec[:]); err != nil {
				return fmt.Errorf("explore: liveness: reading the edges back: %w", err)
			}
			if visit(binary.LittleEndian.Uint32(rec[0:]), binary.LittleEndian.Uint32(rec[4:])) {
				changed = true
			}
		}
		if !changed {
			return nil
		}
	}
}

func (d *liveDisk) close() {
	for b := range d.ids {
		d.ids[b].remove(d.st)
		d.open[b].remove(d.st)
	}
	d.edges.remove(d.st)
}
