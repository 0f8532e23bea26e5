package model

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Support for the exhaustive explorer (package checker/explore) and for scripts that fire a
// chosen lock: a canonical, compact encoding of everything in a share-partition that decides
// its future behaviour, decoding it back into a working share-partition, firing one lock
// now, and reading the outstanding writes.
//
// The encoding leaves out what cannot change what the share-partition does next: lock and
// write ids (locks are numbered by the first offset holding them, writes are sorted by
// content), the statistics, the causes of terminal states, the next-fetch hints (they are
// recomputed), and the delivery-complete count of outstanding writes. Two share-partitions
// with equal encodings behave identically under the same calls, so the encoding serves as a
// state fingerprint.

// AddMembers registers members in the given order. A member is otherwise registered the
// first time it fetches; registering them up front makes the encoding independent of who
// fetched first. Decoding requires the same registrations.
func (sp *SharePartition) AddMembers(ms ...MemberID) {
	for _, m := range ms {
		sp.member(m)
	}
}

// FireLock fires now the live lock held by offset off (T-EXPIRE, as if its deadline had
// come, whatever the deadline) and appends the writes this issues to out, as ExpireLocks
// does. Every offset holding the same lock is released with it. It returns out unchanged
// when off is not cached or holds no live lock.
func (sp *SharePartition) FireLock(off int64, out []*Write) []*Write {
	i, ok := sp.find(off)
	if !ok {
		return out
	}
	id := sp.batches[i].at(off).lock
	if id == 0 {
		return out
	}
	for k := range sp.locks {
		if sp.locks[k].id == id {
			return sp.fire(sp.locks[k], out)
		}
	}
	return out
}

// OutstandingWrite returns the outstanding write with the given id.
func (sp *SharePartition) OutstandingWrite(id WriteID) (*Write, bool) {
	i, ok := sp.writeIndex(id)
	if !ok {
		return nil, false
	}
	return sp.writes[i], true
}

// StateCodec encodes and decodes share-partition states; it keeps scratch space so that
// neither allocates in steady state. The zero value is ready; a codec is not safe for
// concurrent use.
type StateCodec struct {
	lockIDs []uint64 // canonical lock number k+1 is lockIDs[k]
	lockDL  []int64
	lockLo  []int64
	lockHi  []int64
	wbuf    []byte
	wspans  []wspan
	ids     []WriteID
	perm    []int16 // member renaming applied by Append (nil: none)
	dlqs    []DLQRequest
	owners  []int // positions of the owner bytes the last Append wrote (OwnerBytes)
}

// OwnerBytes returns the positions, in the slice the last Append returned, of the owner
// varints of the records it encoded with an owner (ascending): the owner's member index under
// the renaming plus one, one byte while there are fewer than 127 members. No other byte of
// the encoding depends on member indices: encoding the same share-partition under another renaming changes exactly
// these bytes (the explorer's symmetry reduction compares renamings without re-encoding).
// The slice is the codec's and is overwritten by the next Append.
func (c *StateCodec) OwnerBytes() []int { return c.owners }

// SetMemberPerm makes Append encode the owner index i as perm[i] (members renamed; the
// explorer's symmetry reduction encodes each renaming and keeps the least). nil restores
// the identity. Decode reads owners as encoded.
func (c *StateCodec) SetMemberPerm(perm []int16) { c.perm = perm }

type wspan struct {
	from, to int
	id       WriteID
}

var errShortState = errors.New("model: truncated state encoding")

// Append appends the canonical encoding of sp to b. From Kafka 4.4 it ends with the
// outstanding dead-letter-queue produces, ascending (their ids are left out).
func (c *StateCodec) Append(b []byte, sp *SharePartition) []byte {
	b = c.appendBase(b, sp)
	if sp.cfg.Version < Kafka44 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(sp.dlqs)))
	n := len(b)
	for _, q := range sp.dlqs {
		b = appendDLQ(b, q)
	}
	if len(sp.dlqs) > 1 {
		// Sort by first offset: re-encode in order (there are few).
		c.dlqs = sp.OutstandingDLQ(c.dlqs[:0])
		b = b[:n]
		for _, q := range c.dlqs {
			b = appendDLQ(b, q)
		}
	}
	return b
}

func appendDLQ(b []byte, q DLQRequest) []byte {
	b = binary.AppendUvarint(b, uint64(q.First))
	b = binary.AppendUvarint(b, uint64(q.Last-q.First))
	b = binary.AppendUvarint(b, uint64(uint16(q.DeliveryCount)))
	flags := byte(q.Cause)
	if q.Resumed {
		flags |= 1 << 7
	}
	return append(b, flags)
}

// appendBase is the encoding of everything but the DLQ produces.
func (c *StateCodec) appendBase(b []byte, sp *SharePartition) []byte {
	b = append(b, byte(sp.state))
	b = binary.AppendUvarint(b, uint64(uint32(sp.stateEpoch)))
	b = binary.AppendUvarint(b, uint64(uint32(sp.leaderEpoch)))
	b = binary.AppendUvarint(b, uint64(sp.spso))
	b = binary.AppendUvarint(b, uint64(sp.speo))
	if sp.gap.active {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(sp.gap.start))
		b = binary.AppendUvarint(b, uint64(sp.gap.end))
	} else {
		b = append(b, 0)
	}
	c.lockIDs, c.lockDL = c.lockIDs[:0], c.lockDL[:0]
	c.owners = c.owners[:0]
	b = binary.AppendUvarint(b, uint64(len(sp.batches)))
	prev := int64(0)
	for i := range sp.batches {
		bt := &sp.batches[i]
		b = binary.AppendUvarint(b, uint64(bt.first-prev))
		b = binary.AppendUvarint(b, uint64(bt.last-bt.first))
		prev = bt.last
		if bt.recs == nil {
			b = append(b, 1)
			b = c.appendRec(b, &bt.whole)
			continue
		}
		b = append(b, 0)
		for k := range bt.recs {
			r := &bt.recs[k]
			if r.lock != 0 || c.perm != nil || uint16(r.dc) >= 0x80 || uint32(r.owner+1) >= 0x80 {
				b = c.appendRec(b, r)
				continue
			}
			// appendRec's usual case inline: no lock, every field one varint byte.
			if r.owner >= 0 {
				c.owners = append(c.owners, len(b)+2)
			}
			b = append(b, byte(r.state)|(r.flags&(flagPending|flagLockFired|flagForced))<<3, byte(r.dc), byte(r.owner+1), 0)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(c.lockIDs)))
	for _, d := range c.lockDL {
		b = binary.AppendUvarint(b, uint64(d))
	}
	// Outstanding writes, sorted by their encodings.
	if len(sp.writes) <= 1 {
		b = append(b, byte(len(sp.writes)))
		if len(sp.writes) == 1 {
			b = AppendWriteState(b, sp.writes[0])
		}
		return b
	}
	c.collectWrites(sp)
	b = binary.AppendUvarint(b, uint64(len(c.wspans)))
	for _, s := range c.wspans {
		b = append(b, c.wbuf[s.from:s.to]...)
	}
	return b
}

// CanonicalWrites appends the ids of sp's outstanding writes in the order Append encodes
// them (the order in which Decode numbers them 1, 2, ...).
func (c *StateCodec) CanonicalWrites(dst []WriteID, sp *SharePartition) []WriteID {
	c.collectWrites(sp)
	for _, s := range c.wspans {
		dst = append(dst, s.id)
	}
	return dst
}

// collectWrites encodes sp's outstanding writes into c.wbuf and sorts them.
func (c *StateCodec) collectWrites(sp *SharePartition) {
	c.wbuf, c.wspans = c.wbuf[:0], c.wspans[:0]
	n := len(sp.writes)
	if n == 0 {
		return
	}
	for _, w := range sp.writes {
		from := len(c.wbuf)
		c.wbuf = AppendWriteState(c.wbuf, w)
		c.wspans = append(c.wspans, wspan{from: from, to: len(c.wbuf), id: w.ID})
	}
	c.sortSpans()
}

// sortSpans sorts the write encodings by content, then id (insertion sort: there are few).
func (c *StateCodec) sortSpans() {
	s := c.wspans
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && c.less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (c *StateCodec) less(a, b wspan) bool {
	if k := bytes.Compare(c.wbuf[a.from:a.to], c.wbuf[b.from:b.to]); k != 0 {
		return k < 0
	}
	return a.id < b.id
}

func (c *StateCodec) appendRec(b []byte, r *rec) []byte {
	flags := byte(r.state) | (r.flags&(flagPending|flagLockFired|flagForced))<<3
	owner := r.owner
	if c.perm != nil && owner >= 0 && int(owner) < len(c.perm) {
		owner = int32(c.perm[owner])
	}
	lk := uint64(0)
	if r.lock != 0 {
		lk = c.lockNumber(r)
	}
	if dc := uint16(r.dc); dc < 0x80 && uint32(owner+1) < 0x80 && lk < 0x80 {
		// Every field fits one varint byte (the usual case): one append.
		if owner >= 0 {
			c.owners = append(c.owners, len(b)+2)
		}
		return append(b, flags, byte(dc), byte(owner+1), byte(lk))
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(uint16(r.dc)))
	if owner >= 0 {
		c.owners = append(c.owners, len(b))
	}
	b = binary.AppendUvarint(b, uint64(owner+1))
	return binary.AppendUvarint(b, lk)
}

// lockNumber is the canonical number of r's lock (r holds one), numbering a lock met for
// the first time next.
func (c *StateCodec) lockNumber(r *rec) uint64 {
	for k, id := range c.lockIDs {
		if id == r.lock {
			return uint64(k + 1)
		}
	}
	c.lockIDs = append(c.lockIDs, r.lock)
	c.lockDL = append(c.lockDL, r.deadline)
	return uint64(len(c.lockIDs))
}

// AppendWriteState appends the encoding of a write's content (without its id and
// delivery-complete count) to b.
func AppendWriteState(b []byte, w *Write) []byte {
	flags := byte(w.Kind)
	if w.decremented {
		flags |= 1 << 4
	}
	if w.unfenced {
		flags |= 1 << 5
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(uint32(w.StateEpoch)))
	b = binary.AppendUvarint(b, uint64(uint32(w.LeaderEpoch)))
	b = binary.AppendUvarint(b, uint64(w.StartOffset+1))
	b = binary.AppendUvarint(b, uint64(len(w.Batches)))
	for _, pb := range w.Batches {
		b = binary.AppendUvarint(b, uint64(pb.First))
		b = binary.AppendUvarint(b, uint64(pb.Last-pb.First))
		b = append(b, byte(pb.State))
		b = binary.AppendUvarint(b, uint64(uint16(pb.DeliveryCount)))
	}
	return b
}

// DecodeWriteState reads a write encoded by AppendWriteState into w (reusing w.Batches)
// and returns the rest of b. The write's id is left unchanged.
func DecodeWriteState(b []byte, w *Write) ([]byte, error) {
	d := decoder{b: b}
	flags := d.byte()
	w.Kind = WriteKind(flags & 15)
	w.decremented = flags&(1<<4) != 0
	w.unfenced = flags&(1<<5) != 0
	w.StateEpoch = int32(uint32(d.uvarint()))
	w.LeaderEpoch = int32(uint32(d.uvarint()))
	w.StartOffset = int64(d.uvarint()) - 1
	w.DeliveryCompleteCount = 0
	n := int(d.uvarint())
	w.Batches = w.Batches[:0]
	for k := 0; k < n && d.err == nil; k++ {
		first := int64(d.uvarint())
		last := first + int64(d.uvarint())
		st := State(d.byte())
		dc := int16(uint16(d.uvarint()))
		w.Batches = append(w.Batches, PersistedBatch{First: first, Last: last, State: st, DeliveryCount: dc})
	}
	return d.b, d.err
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.err = errShortState
		return 0
	}
	x := d.b[0]
	d.b = d.b[1:]
	return x
}

// uvarint reads one varint (written by binary.AppendUvarint). It is small enough to be
// inlined: the decoder reads several per record.
func (d *decoder) uvarint() uint64 {
	var x uint64
	var s uint
	for i, c := range d.b {
		if c < 0x80 {
			if i > 9 || i == 9 && c > 1 {
				break // more than 64 bits
			}
			d.b = d.b[i+1:]
			return x | uint64(c)<<s
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	d.err, d.b = errShortState, nil
	return 0
}

// Decode overwrites sp with the state encoded in b (by Append, from a share-partition with
// the same configuration and member registrations) and returns the rest of b. Locks are
// numbered 1, 2, ... by the first offset holding them and outstanding writes get ids 1, 2, ...
// in encoding order; statistics restart from zero. sp's memory is reused.
func (c *StateCodec) Decode(sp *SharePartition, b []byte) ([]byte, error) {
	d := decoder{b: b}
	sp.state = PartitionState(d.byte())
	sp.stateEpoch = int32(uint32(d.uvarint()))
	sp.leaderEpoch = int32(uint32(d.uvarint()))
	sp.spso = int64(d.uvarint())
	sp.speo = int64(d.uvarint())
	sp.gap = gapWindow{}
	if d.byte() == 1 {
		sp.gap = gapWindow{active: true, start: int64(d.uvarint()), end: int64(d.uvarint())}
	}
	// Recycle the old batches' per-offset slices.
	for i := range sp.batches {
		if r := sp.batches[i].recs; r != nil && len(sp.freeRecs) < freeRecsMax {
			sp.freeRecs = append(sp.freeRecs, r)
		}
		sp.batches[i] = batch{}
	}
	sp.batches = sp.batches[:0]
	c.lockLo, c.lockHi = c.lockLo[:0], c.lockHi[:0]
	nb := int(d.uvarint())
	prev := int64(0)
	sp.nTerminal = 0
	for i := 0; i < nb && d.err == nil; i++ {
		first := prev + int64(d.uvarint())
		last := first + int64(d.uvarint())
		prev = last
		bt := batch{first: first, last: last}
		if d.byte() == 1 {
			c.decodeRec(&d, &bt.whole, first, last)
			if bt.whole.state.Terminal() {
				sp.nTerminal += last - first + 1
			}
		} else {
			bt.recs = sp.takeRecs(last - first + 1)
			lead := true
			for k := range bt.recs {
				r := &bt.recs[k]
				*r = rec{}
				off := first + int64(k)
				c.decodeRec(&d, r, off, off)
				if r.state.Terminal() {
					sp.nTerminal++
				}
				if lead && r.settledTerminal() {
					bt.settled++
				} else {
					lead = false
				}
			}
		}
		sp.batches = append(sp.batches, bt)
	}
	nl := int(d.uvarint())
	sp.locks = sp.locks[:0]
	for k := 0; k < nl && d.err == nil; k++ {
		dl := int64(d.uvarint())
		if k < len(c.lockLo) {
			sp.locks.push(lockEntry{deadline: dl, id: uint64(k + 1), first: c.lockLo[k], last: c.lockHi[k]})
		}
	}
	sp.nextLock = uint64(nl)
	// Deadlines were read after the records; put them in.
	if nl > 0 {
		for i := range sp.batches {
			bt := &sp.batches[i]
			if bt.recs == nil {
				c.setDeadline(sp, &bt.whole)
				continue
			}
			for k := range bt.recs {
				c.setDeadline(sp, &bt.recs[k])
			}
		}
	}
	sp.dropWrites()
	nw := int(d.uvarint())
	for k := 0; k < nw && d.err == nil; k++ {
		w := sp.beginWrite(WriteAck)
		d.b, d.err = DecodeWriteState(d.b, w)
		w.ID = WriteID(k + 1)
		sp.writes = append(sp.writes, w)
	}
	sp.nextWrite = WriteID(nw)
	sp.dlqs = sp.dlqs[:0]
	if sp.cfg.Version >= Kafka44 {
		nq := int(d.uvarint())
		for k := 0; k < nq && d.err == nil; k++ {
			first := int64(d.uvarint())
			last := first + int64(d.uvarint())
			dc := int16(uint16(d.uvarint()))
			flags := d.byte()
			sp.dlqs = append(sp.dlqs, DLQRequest{ID: DLQID(k + 1), First: first, Last: last, DeliveryCount: dc,
				Cause: Cause(flags & 127), Resumed: flags&(1<<7) != 0})
			for i := sp.firstEndingAtOrAfter(first); i < len(sp.batches) && sp.batches[i].first <= last; i++ {
				bt := &sp.batches[i]
				if bt.recs == nil {
					bt.whole.flags |= flagDLQ
					continue
				}
				for off := max(first, bt.first); off <= min(last, bt.last); off++ {
					bt.recs[off-bt.first].flags |= flagDLQ
				}
			}
		}
		sp.nextDLQ = DLQID(nq)
	}
	if d.err != nil {
		return nil, d.err
	}
	if nl != len(c.lockLo) {
		return nil, errors.New("model: state encoding has inconsistent locks")
	}
	sp.findNext = true
	sp.availFrom = sp.spso
	if len(sp.batches) > 0 {
		sp.availFrom = min(sp.spso, sp.batches[0].first)
	}
	sp.journal = sp.journal[:0]
	sp.stats = Stats{}
	sp.final = sp.final[:0]
	return d.b, nil
}

func (c *StateCodec) decodeRec(d *decoder, r *rec, first, last int64) {
	flags := d.byte()
	r.state = State(flags & 7)
	r.flags = (flags >> 3) & (flagPending | flagLockFired | flagForced)
	r.dc = int16(uint16(d.uvarint()))
	r.owner = int32(d.uvarint()) - 1
	lk := d.uvarint()
	r.lock = lk
	if lk == 0 {
		return
	}
	for uint64(len(c.lockLo)) < lk {
		c.lockLo = append(c.lockLo, first)
		c.lockHi = append(c.lockHi, last)
	}
	c.lockLo[lk-1] = min(c.lockLo[lk-1], first)
	c.lockHi[lk-1] = max(c.lockHi[lk-1], last)
}

func (c *StateCodec) setDeadline(sp *SharePartition, r *rec) {
	if r.lock == 0 {
		return
	}
	for _, e := range sp.locks {
		if e.id == r.lock {
			r.deadline = e.deadline
			return
		}
	}
}

// AppendState appends the encoding of the store's durable state (epochs, start offset and
// batches; not the delivery-complete count) to b.
func (s *StateStore) AppendState(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(uint32(s.stateEpoch)))
	b = binary.AppendUvarint(b, uint64(uint32(s.leaderEpoch+1)))
	b = binary.AppendUvarint(b, uint64(s.startOffset+1))
	b = binary.AppendUvarint(b, uint64(len(s.batches)))
	for _, pb := range s.batches {
		b = binary.AppendUvarint(b, uint64(pb.First))
		b = binary.AppendUvarint(b, uint64(pb.Last-pb.First))
		b = append(b, byte(pb.State))
		b = binary.AppendUvarint(b, uint64(uint16(pb.DeliveryCount)))
	}
	return b
}

// AppendEpochs appends what AppendState gives for a store with s's epochs and nothing stored
// (no start offset, no batches): the encoding of s once nothing will read its stored state
// again, only its epochs (the explorer's dead-store reduction). DecodeState reads it back as
// that empty store.
func (s *StateStore) AppendEpochs(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(uint32(s.stateEpoch)))
	b = binary.AppendUvarint(b, uint64(uint32(s.leaderEpoch+1)))
	b = binary.AppendUvarint(b, 0) // start offset -1: none
	return binary.AppendUvarint(b, 0)
}

// DecodeState overwrites the store with a state encoded by AppendState and returns the rest
// of b.
func (s *StateStore) DecodeState(b []byte) ([]byte, error) {
	d := decoder{b: b}
	s.stateEpoch = int32(uint32(d.uvarint()))
	s.leaderEpoch = int32(uint32(d.uvarint())) - 1
	s.startOffset = int64(d.uvarint()) - 1
	s.dcc = -1
	n := int(d.uvarint())
	s.batches = s.batches[:0]
	for k := 0; k < n && d.err == nil; k++ {
		first := int64(d.uvarint())
		last := first + int64(d.uvarint())
		st := State(d.byte())
		dc := int16(uint16(d.uvarint()))
		s.batches = append(s.batches, PersistedBatch{First: first, Last: last, State: st, DeliveryCount: dc})
	}
	return d.b, d.err
}

// LeaderEpoch is the highest leader epoch a read has shown the store; writes with a lower
// one are fenced.
func (s *StateStore) LeaderEpoch() int32 { return s.leaderEpoch }

// StateEpoch is the store's state epoch; writes with a lower one are fenced.
func (s *StateStore) StateEpoch() int32 { return s.stateEpoch }

// AppendLockHolders appends, for every live lock, the lowest offset holding it, in
// ascending order: firing the lock of each of them fires every live lock once.
func (sp *SharePartition) AppendLockHolders(dst []int64) []int64 {
	start := len(dst)
	seen := func(id uint64) bool {
		for _, off := range dst[start:] {
			if i, ok := sp.find(off); ok && sp.batches[i].at(off).lock == id {
				return true
			}
		}
		return false
	}
	for i := range sp.batches {
		b := &sp.batches[i]
		if b.recs == nil {
			if b.whole.lock != 0 && !seen(b.whole.lock) {
				dst = append(dst, b.first)
			}
			continue
		}
		for k := range b.recs {
			if id := b.recs[k].lock; id != 0 && !seen(id) {
				dst = append(dst, b.first+int64(k))
			}
		}
	}
	return dst
}

// lockTable maps lock ids to deadlines for CheckConsistency without allocating (the
// explorer calls CheckConsistency on every new state). It holds len(buf) locks; past that
// it only notes that it overflowed, and CheckConsistency counts instead (checkLocksByCount).
type lockTable struct {
	n    int
	buf  [16]lockPair
	over bool
}

type lockPair struct {
	id       uint64
	deadline int64
}

func (t *lockTable) get(id uint64) (int64, bool) {
	for i := 0; i < t.n; i++ {
		if t.buf[i].id == id {
			return t.buf[i].deadline, true
		}
	}
	return 0, false
}

func (t *lockTable) set(id uint64, deadline int64) {
	for i := 0; i < t.n; i++ {
		if t.buf[i].id == id {
			t.buf[i].deadline = deadline
			return
		}
	}
	if t.n < len(t.buf) {
		t.buf[t.n] = lockPair{id, deadline}
		t.n++
		return
	}
	t.over = true
}

// missingFrom returns the first entry of t that other lacks or holds with another deadline.
func (t *lockTable) missingFrom(other *lockTable) (lockPair, bool) {
	for _, p := range t.buf[:t.n] {
		if od, ok := other.get(p.id); !ok || od != p.deadline {
			return p, true
		}
	}
	return lockPair{}, false
}

// dropWrites forgets every outstanding write, keeping the objects for reuse.
func (sp *SharePartition) dropWrites() {
	sp.freeWrites = append(sp.freeWrites, sp.writes...)
	clear(sp.writes)
	sp.writes = sp.writes[:0]
}

// CopyFrom makes sp an exact copy of src, which must have the same configuration and member
// registrations, reusing sp's memory (the explorer restores a state this way for every step
// it tries from it). Outstanding writes keep their ids; statistics are copied.
func (sp *SharePartition) CopyFrom(src *SharePartition) {
	// A batch of sp tracked per offset keeps its slice when src's batch at the same index
	// tracks as many offsets (the usual case: the explorer copies one state over its own
	// child again and again); the others go back to the free list.
	n := len(src.batches)
	for i := range sp.batches {
		r := sp.batches[i].recs
		if r == nil || i < n && len(src.batches[i].recs) == len(r) {
			continue
		}
		if len(sp.freeRecs) < freeRecsMax {
			sp.freeRecs = append(sp.freeRecs, r)
		}
		sp.batches[i].recs = nil
	}
	if len(sp.batches) > n {
		clear(sp.batches[n:])
		sp.batches = sp.batches[:n]
	}
	for i := range src.batches {
		sb := &src.batches[i]
		if i == len(sp.batches) {
			b := *sb
			if b.recs != nil {
				b.recs = sp.takeRecs(int64(len(b.recs)))
				copy(b.recs, sb.recs)
			}
			sp.batches = append(sp.batches, b)
			continue
		}
		db := &sp.batches[i]
		db.first, db.last, db.whole, db.settled = sb.first, sb.last, sb.whole, sb.settled
		if sb.recs == nil {
			continue // db.recs is nil: a slice of another length went back above
		}
		if db.recs == nil {
			db.recs = sp.takeRecs(int64(len(sb.recs)))
		}
		copy(db.recs, sb.recs)
	}
	sp.state, sp.stateEpoch, sp.leaderEpoch = src.state, src.stateEpoch, src.leaderEpoch
	sp.spso, sp.speo, sp.findNext, sp.availFrom = src.spso, src.speo, src.findNext, src.availFrom
	sp.nTerminal, sp.gap, sp.limitLowered = src.nTerminal, src.gap, src.limitLowered
	sp.locks = append(sp.locks[:0], src.locks...)
	sp.locksKept = src.locksKept
	sp.nextLock = src.nextLock
	// Overwrite sp's write objects in place; recycle the ones left over.
	for k := len(sp.writes) - 1; k >= len(src.writes); k-- {
		sp.freeWrites = append(sp.freeWrites, sp.writes[k])
		sp.writes[k] = nil
		sp.writes = sp.writes[:k]
	}
	for i, w := range src.writes {
		var c *Write
		if i < len(sp.writes) {
			c = sp.writes[i]
		} else {
			c = sp.beginWrite(w.Kind)
			sp.writes = append(sp.writes, c)
		}
		batches := append(c.Batches[:0], w.Batches...)
		*c = *w
		c.Batches = batches
	}
	sp.nextWrite = src.nextWrite
	if len(sp.dlqs) > 0 || len(src.dlqs) > 0 {
		sp.dlqs = append(sp.dlqs[:0], src.dlqs...)
	}
	sp.nextDLQ = src.nextDLQ
	sp.journal = sp.journal[:0]
	sp.stats = src.stats
	sp.final = sp.final[:0]
}

// CopyFrom makes the store an exact copy of src, reusing its memory.
func (s *StateStore) CopyFrom(src *StateStore) {
	batches := append(s.batches[:0], src.batches...)
	scratch := s.scratch
	*s = *src
	s.batches, s.scratch = batches, scratch
}

// CompactRecord is a small view of one cached offset, for checkers that look at every
// record after every step (the explorer's invariants).
type CompactRecord struct {
	Offset int64
	// DeliveryCount is the record's delivery count.
	DeliveryCount int16
	// Owner is the index of the member holding the record (see MemberName), -1 when the
	// record is not ACQUIRED.
	Owner int16
	// State is the shown state (while Pending, the write's provisional target).
	State   State
	Pending bool
	// Lock is true when the record holds a live lock.
	Lock bool
}

// AppendCompact appends the compact view of every cached offset, ascending, to dst.
func (sp *SharePartition) AppendCompact(dst []CompactRecord) []CompactRecord {
	for i := range sp.batches {
		b := &sp.batches[i]
		for off := b.first; off <= b.last; off++ {
			r := b.at(off)
			c := CompactRecord{Offset: off, DeliveryCount: r.dc, Owner: -1, State: r.state, Pending: r.pending(), Lock: r.lock != 0}
			if r.state == Acquired {
				c.Owner = int16(r.owner)
			}
			dst = append(dst, c)
		}
	}
	return dst
}

// MemberIndex returns the index of a registered member, or -1.
func (sp *SharePartition) MemberIndex(m MemberID) int16 {
	if i, ok := sp.lookupMember(m); ok {
		return int16(i)
	}
	return -1
}

// MemberName returns the member with the given index ("" for -1).
func (sp *SharePartition) MemberName(i int16) MemberID { return sp.memberName(int32(i)) }
