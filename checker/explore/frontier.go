package explore

import (
	"encoding/binary"
	"fmt"
	"os"
)

// level is one wave of a BFS frontier: state encodings back to back, and their ids.
type level struct {
	arena []byte
	offs  []uint32 // state i is arena[offs[i]:offs[i+1]]
	ids   []uint32
}

func (l *level) bytes() int64 { return int64(cap(l.arena)) + 4*int64(cap(l.offs)+cap(l.ids)) }

// segment is one wave of a frontier, in memory or in the level's file.
type segment struct {
	lv        *level // nil when spilled
	n         int    // states
	arenaLen  int
	off, size int64 // where it is in the file, when spilled
}

// frontier is one BFS level as segments of at most waveStates states, in id order; the
// segments are the level's waves. A finished segment that would take the frontiers' memory
// over their share is written to the level's file; it is read back when its wave is
// expanded, and a segment's memory is reused once its wave is done. The file is written once,
// front to back, and removed when the level is done.
type frontier struct {
	pool *segPool
	segs []*segment
	n    int
	f    *os.File
	end  int64 // bytes in the file
	buf  []byte
}

// segPool recycles segments' memory between the two levels alive at once and counts the
// memory of the segments in use (mem) against the frontiers' share.
type segPool struct {
	st    *storage
	share int64
	mem   int64
	free  []*level
	// wave is the most states a segment holds (waveStates but in tests: Scope.waveSize).
	wave int
	// arenaCap is the arena a new segment gets: segArena, or an eighth more than the
	// largest full segment's encodings so far, so that a segment is not grown (copied) as
	// it fills once the states are larger than segArena allows for.
	arenaCap int
}

func (p *segPool) get() *level {
	if k := len(p.free); k > 0 {
		lv := p.free[k-1]
		p.free = p.free[:k-1]
		p.mem += lv.bytes()
		return lv
	}
	// A segment is allocated at its usual size (about 60 bytes a state), so that filling it
	// does not leave grown-out copies behind for the collector.
	lv := &level{arena: make([]byte, 0, max(segArena/waveStates*p.waves(), p.arenaCap)), offs: append(make([]uint32, 0, p.waves()+1), 0), ids: make([]uint32, 0, p.waves())}
	p.mem += lv.bytes()
	return lv
}

// segArena is the encoding bytes a new segment has room for.
const segArena = 2 << 20

func (p *segPool) put(lv *level) {
	p.mem -= lv.bytes()
	lv.arena, lv.offs, lv.ids = lv.arena[:0], append(lv.offs[:0], 0), lv.ids[:0]
	if len(p.free) < 4 {
		p.free = append(p.free, lv)
	}
}

// waves is the most states a segment holds, and a wave expands.
func (p *segPool) waves() int {
	if p.wave > 0 {
		return p.wave
	}
	return waveStates
}

// waveStates is the number of states expanded in one wave, and the size of a segment.
const waveStates = 1 << 15

// add appends a state to the level.
func (fr *frontier) add(enc []byte, id uint32) error {
	var s *segment
	if k := len(fr.segs); k > 0 && fr.segs[k-1].lv != nil && fr.segs[k-1].n < fr.pool.waves() {
		s = fr.segs[k-1]
	} else {
		if k > 0 {
			if lv := fr.segs[k-1].lv; lv != nil {
				fr.pool.arenaCap = max(fr.pool.arenaCap, len(lv.arena)+len(lv.arena)/8)
			}
			if err := fr.seal(fr.segs[k-1]); err != nil {
				return err
			}
		}
		s = &segment{lv: fr.pool.get()}
		fr.segs = append(fr.segs, s)
	}
	lv := s.lv
	before := int64(-1) // the segment's memory, when this state may grow it
	if len(lv.arena)+len(enc) > cap(lv.arena) || len(lv.ids) == cap(lv.ids) || len(lv.offs) == cap(lv.offs) {
		before = lv.bytes()
	}
	lv.arena = append(lv.arena, enc...)
	lv.offs = append(lv.offs, uint32(len(lv.arena)))
	lv.ids = append(lv.ids, id)
	if before >= 0 {
		fr.pool.mem += lv.bytes() - before
	}
	s.n, s.arenaLen = len(lv.ids), len(lv.arena)
	fr.n++
	return nil
}

// finish seals the level's last segment.
func (fr *frontier) finish() error {
	if k := len(fr.segs); k > 0 && fr.segs[k-1].lv != nil {
		return fr.seal(fr.segs[k-1])
	}
	return nil
}

// seal spills a finished segment when the frontiers' memory is over the share.
func (fr *frontier) seal(s *segment) error {
	if s.lv == nil || !over(fr.pool.mem, fr.pool.share) {
		return nil
	}
	if fr.f == nil {
		f, err := fr.pool.st.create("frontier")
		if err != nil {
			return err
		}
		fr.f = f
	}
	lv := s.lv
	b := fr.buf[:0]
	for _, id := range lv.ids {
		b = binary.LittleEndian.AppendUint32(b, id)
	}
	for _, o := range lv.offs {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	b = append(b, lv.arena...)
	fr.buf = b
	if _, err := fr.f.WriteAt(b, fr.end); err != nil {
		return fmt.Errorf("explore: spilling the frontier: %w", err)
	}
	s.off, s.size = fr.end, int64(len(b))
	fr.end += s.size
	fr.pool.st.grew(s.size)
	fr.pool.put(lv)
	s.lv = nil
	return nil
}

// load returns segment k's states, read into into when it was spilled.
func (fr *frontier) load(k int, into *level) (*level, error) {
	s := fr.segs[k]
	if s.lv != nil {
		return s.lv, nil
	}
	if cap(fr.buf) < int(s.size) {
		fr.buf = make([]byte, s.size)
	}
	b := fr.buf[:s.size]
	if _, err := fr.f.ReadAt(b, s.off); err != nil {
		return nil, fmt.Errorf("explore: reading the frontier back: %w", err)
	}
	into.ids, into.offs = into.ids[:0], into.offs[:0]
	for i := 0; i < s.n; i++ {
		into.ids = append(into.ids, binary.LittleEndian.Uint32(b[4*i:]))
	}
	b = b[4*s.n:]
	for i := 0; i <= s.n; i++ {
		into.offs = append(into.offs, binary.LittleEndian.Uint32(b[4*i:]))
	}
	into.arena = append(into.arena[:0], b[4*(s.n+1):]...)
	return into, nil
}

// release gives segment k's memory back once its wave is done.
func (fr *frontier) release(k int) {
	if s := fr.segs[k]; s.lv != nil {
		fr.pool.put(s.lv)
		s.lv = nil
	}
}

// close removes the level's file and gives back its segments.
func (fr *frontier) close() {
	for k := range fr.segs {
		fr.release(k)
	}
	fr.pool.st.remove(fr.f, fr.end)
	fr.f, fr.end = nil, 0
}
