package explore

import (
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"
)

// parentLog holds, for every state id, the id of the state it was first reached from, the
// action (in the parent's canonical frame) and, with symmetry, the renaming the state was
// stored under: 8 bytes per state, 9 with symmetry. They are used only to rebuild paths
// (realPath). The records of ids below base are in a file, rec bytes each at id*rec; the
// rest are in memory, in pieces of pieceLen records (appending never copies what is there).
// When the memory records outgrow their share they are appended to the file.
type parentLog struct {
	st     *storage
	share  int64
	base   uint32
	n      int // records in memory
	pieces []*parentPiece
	sym    bool
	rec    int64
	f      *os.File
	buf    []byte
	err    error // the first I/O error; paths read after it are wrong
}

// parentPiece holds pieceLen records in memory.
type parentPiece struct {
	par [pieceLen]uint32
	act [pieceLen]Action
	sym [pieceLen]uint8
}

// pieceLen is the number of records in a piece (576 KiB).
const pieceLen = 1 << 16

func newParentLog(st *storage, share int64, symmetry bool) *parentLog {
	p := &parentLog{st: st, share: share, rec: 8, sym: symmetry}
	if symmetry {
		p.rec = 9
	}
	return p
}

// len is the number of states recorded.
func (p *parentLog) len() int { return int(p.base) + p.n }

// memBytes is the memory the records in memory take.
func (p *parentLog) memBytes() int64 {
	return int64(len(p.pieces)) * int64(unsafe.Sizeof(parentPiece{}))
}

// add records the next state.
func (p *parentLog) add(parent uint32, a Action, perm uint8) error {
	k, i := p.n/pieceLen, p.n%pieceLen
	if k == len(p.pieces) {
		p.pieces = append(p.pieces, new(parentPiece))
	}
	pc := p.pieces[k]
	pc.par[i], pc.act[i], pc.sym[i] = parent, a, perm
	p.n++
	if over(int64(p.n)*p.rec, p.share) {
		return p.flush()
	}
	return nil
}

// flush appends the records in memory to the file.
func (p *parentLog) flush() error {
	if p.n == 0 {
		return nil
	}
	if p.f == nil {
		f, err := p.st.create("parents")
		if err != nil {
			return err
		}
		p.f = f
	}
	for lo := 0; lo < p.n; lo += pieceLen { // a piece per write
		pc, hi := p.pieces[lo/pieceLen], min(pieceLen, p.n-lo)
		p.buf = p.buf[:0]
		for i := 0; i < hi; i++ {
			p.buf = binary.LittleEndian.AppendUint32(p.buf, pc.par[i])
			p.buf = binary.LittleEndian.AppendUint32(p.buf, uint32(pc.act[i]))
			if p.sym {
				p.buf = append(p.buf, pc.sym[i])
			}
		}
		if _, err := p.f.WriteAt(p.buf, (int64(p.base)+int64(lo))*p.rec); err != nil {
			return fmt.Errorf("explore: spilling parent pointers: %w", err)
		}
		p.st.grew(int64(len(p.buf)))
	}
	p.base += uint32(p.n)
	p.n = 0
	return nil
}

// get returns state id's record.
func (p *parentLog) get(id uint32) (parent uint32, a Action, perm uint8) {
	if id >= p.base {
		i := int(id - p.base)
		pc := p.pieces[i/pieceLen]
		i %= pieceLen
		if p.sym {
			perm = pc.sym[i]
		}
		return pc.par[i], pc.act[i], perm
	}
	var b [9]byte
	if _, err := p.f.ReadAt(b[:p.rec], int64(id)*p.rec); err != nil {
		if p.err == nil {
			p.err = fmt.Errorf("explore: reading parent pointers back: %w", err)
		}
		return 0, 0, 0
	}
	if p.sym {
		perm = b[8]
	}
	return binary.LittleEndian.Uint32(b[:]), Action(binary.LittleEndian.Uint32(b[4:])), perm
}

func (p *parentLog) close() {
	p.st.remove(p.f, int64(p.base)*p.rec)
	p.f = nil
}
