package explore

import (
	"encoding/binary"
	"fmt"
	"os"
)

// parentLog holds, for every state id, the id of the state it was first reached from, the
// action (in the parent's canonical frame) and, with symmetry, the renaming the state was
// stored under: 8 bytes per state, 9 with symmetry. They are used only to rebuild paths
// (realPath). The records of ids below base are in a file, rec bytes each at id*rec; the
// rest are in memory. When the memory records outgrow their share they are appended to the
// file.
type parentLog struct {
	st    *storage
	share int64
	base  uint32
	par   []uint32
	act   []Action
	sym   []uint8 // nil without symmetry
	rec   int64
	f     *os.File
	buf   []byte
	err   error // the first I/O error; paths read after it are wrong
}

func newParentLog(st *storage, share int64, symmetry bool) *parentLog {
	p := &parentLog{st: st, share: share, rec: 8}
	if symmetry {
		p.rec, p.sym = 9, []uint8{}
	}
	return p
}

// len is the number of states recorded.
func (p *parentLog) len() int { return int(p.base) + len(p.par) }

// memBytes is the memory the records in memory take.
func (p *parentLog) memBytes() int64 { return int64(cap(p.par))*8 + int64(cap(p.sym)) }

// add records the next state.
func (p *parentLog) add(parent uint32, a Action, perm uint8) error {
	p.par = append(p.par, parent)
	p.act = append(p.act, a)
	if p.sym != nil {
		p.sym = append(p.sym, perm)
	}
	if over(int64(len(p.par))*p.rec, p.share) {
		return p.flush()
	}
	return nil
}

// flush appends the records in memory to the file.
func (p *parentLog) flush() error {
	if len(p.par) == 0 {
		return nil
	}
	if p.f == nil {
		f, err := p.st.create("parents")
		if err != nil {
			return err
		}
		p.f = f
	}
	const piece = 1 << 16 // records per write
	for lo := 0; lo < len(p.par); lo += piece {
		hi := min(lo+piece, len(p.par))
		p.buf = p.buf[:0]
		for i := lo; i < hi; i++ {
			p.buf = binary.LittleEndian.AppendUint32(p.buf, p.par[i])
			p.buf = binary.LittleEndian.AppendUint32(p.buf, uint32(p.act[i]))
			if p.sym != nil {
				p.buf = append(p.buf, p.sym[i])
			}
		}
		if _, err := p.f.WriteAt(p.buf, (int64(p.base)+int64(lo))*p.rec); err != nil {
			return fmt.Errorf("explore: spilling parent pointers: %w", err)
		}
		p.st.grew(int64(len(p.buf)))
	}
	p.base += uint32(len(p.par))
	p.par, p.act = p.par[:0], p.act[:0]
	if p.sym != nil {
		p.sym = p.sym[:0]
	}
	return nil
}

// get returns state id's record.
func (p *parentLog) get(id uint32) (parent uint32, a Action, perm uint8) {
	if id >= p.base {
		i := id - p.base
		if p.sym != nil {
			perm = p.sym[i]
		}
		return p.par[i], p.act[i], perm
	}
	var b [9]byte
	if _, err := p.f.ReadAt(b[:p.rec], int64(id)*p.rec); err != nil {
		if p.err == nil {
			p.err = fmt.Errorf("explore: reading parent pointers back: %w", err)
		}
		return 0, 0, 0
	}
	if p.sym != nil {
		perm = b[8]
	}
	return binary.LittleEndian.Uint32(b[:]), Action(binary.LittleEndian.Uint32(b[4:])), perm
}

func (p *parentLog) close() {
	p.st.remove(p.f, int64(p.base)*p.rec)
	p.f = nil
}
