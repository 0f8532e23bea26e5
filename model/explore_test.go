package model_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// twin drives a share-partition and, before every operation, a copy rebuilt from its
// encoding; both must answer alike and encode alike afterwards. This is what the explorer
// relies on: a decoded state behaves exactly like the state it was encoded from.
type twin struct {
	t        *testing.T
	cfg      model.Config
	members  []model.MemberID
	log      []model.LogBatch
	logStart int64
	a        *model.SharePartition
	store    *model.StateStore
	epoch    int32
	codec    model.StateCodec
	buf      []byte
	trace    []string
	// cp is copied from a (CopyFrom) before every operation and reused, so that CopyFrom
	// overwrites a share-partition of another shape every time; it must answer alike too.
	cp *model.SharePartition
}

func (tw *twin) decoded() *model.SharePartition {
	tw.buf = tw.codec.Append(tw.buf[:0], tw.a)
	tw.checkOwnerBytes()
	b, err := model.New(tw.cfg, 0)
	if err != nil {
		tw.t.Fatal(err)
	}
	b.AddMembers(tw.members...)
	var c model.StateCodec
	rest, err := c.Decode(b, tw.buf)
	if err != nil || len(rest) != 0 {
		tw.t.Fatalf("decode: %v (%d bytes left)\n%v", err, len(rest), tw.trace)
	}
	if again := c.Append(nil, b); !bytes.Equal(again, tw.buf) {
		tw.t.Fatalf("re-encoding differs\n%x\n%x\n%v", tw.buf, again, tw.trace)
	}
	if err := b.CheckConsistency(); err != nil {
		tw.t.Fatalf("decoded state inconsistent: %v\n%v", err, tw.trace)
	}
	return b
}

// checkOwnerBytes checks StateCodec.OwnerBytes on tw.buf, just encoded: renaming the
// members (swapping the two) changes exactly the bytes it names, each to the renamed owner.
func (tw *twin) checkOwnerBytes() {
	perm := []int16{1, 0}
	want := append([]byte(nil), tw.buf...)
	for _, p := range tw.codec.OwnerBytes() {
		if o := int(want[p]) - 1; o < 0 || o >= len(perm) {
			tw.t.Fatalf("owner byte at %d is %d: no member\n%v", p, want[p], tw.trace)
		} else {
			want[p] = byte(perm[o] + 1)
		}
	}
	var c model.StateCodec
	c.SetMemberPerm(perm)
	if got := c.Append(nil, tw.a); !bytes.Equal(got, want) {
		tw.t.Fatalf("renamed encoding differs beyond the owner bytes %v\n%x\n%x\n%v", tw.codec.OwnerBytes(), got, want, tw.trace)
	}
}

func (tw *twin) read(f int64) []model.LogBatch {
	var out []model.LogBatch
	for _, lb := range tw.log {
		if lb.Last >= f && lb.Last >= tw.logStart {
			out = append(out, lb)
		}
	}
	return out
}

// step applies one random operation to both and compares the answers.
func (tw *twin) step(rng *rand.Rand) {
	b := tw.decoded()
	type answer struct {
		ranges []model.AcquiredRange
		code   model.ErrorCode
		writes []string
	}
	fmtWrites := func(ws []*model.Write) []string {
		var out []string
		for _, w := range ws {
			out = append(out, fmt.Sprintf("%v e%d/%d s%d %v", w.Kind, w.StateEpoch, w.LeaderEpoch, w.StartOffset, w.Batches))
		}
		return out
	}
	one := func(w *model.Write) []*model.Write {
		if w == nil {
			return nil
		}
		return []*model.Write{w}
	}
	var do func(sp *model.SharePartition) answer
	m := tw.members[rng.IntN(len(tw.members))]
	switch k := rng.IntN(10); {
	case k < 3:
		p := model.FetchParams{MaxRecords: 1 + rng.IntN(4), BatchSize: 1 + rng.IntN(4)}
		if rng.IntN(3) == 0 && tw.cfg.Version == model.Kafka42 {
			p.Mode = model.RecordLimit
		}
		short := rng.IntN(2) == 0
		tw.trace = append(tw.trace, fmt.Sprintf("fetch %s %+v short=%v", m, p, short))
		do = func(sp *model.SharePartition) answer {
			f := sp.NextFetchOffset()
			if f < tw.logStart {
				sp.MoveLogStartOffset(tw.logStart)
				return answer{}
			}
			log := tw.read(f)
			if short && len(log) > 1 {
				log = log[:1]
			}
			rs, err := sp.Acquire(0, m, p, log, nil)
			return answer{ranges: rs, code: model.CodeOf(err)}
		}
	case k < 6:
		first := tw.a.StartOffset() + int64(rng.IntN(4)) - 1
		last := first + int64(rng.IntN(3))
		ty := model.AckType(rng.IntN(5))
		tw.trace = append(tw.trace, fmt.Sprintf("ack %s %d-%d %v", m, first, last, ty))
		do = func(sp *model.SharePartition) answer {
			w, err := sp.Acknowledge(0, m, []model.AckRange{{First: max(0, first), Last: max(0, last), Types: []model.AckType{ty}}})
			return answer{code: model.CodeOf(err), writes: fmtWrites(one(w))}
		}
	case k < 7:
		off := tw.a.StartOffset() + int64(rng.IntN(4))
		tw.trace = append(tw.trace, fmt.Sprintf("fire %d", off))
		do = func(sp *model.SharePartition) answer { return answer{writes: fmtWrites(sp.FireLock(off, nil))} }
	case k < 9:
		idx := rng.IntN(3)
		ok := rng.IntN(2) == 0
		tw.trace = append(tw.trace, fmt.Sprintf("complete #%d ok=%v", idx, ok))
		do = func(sp *model.SharePartition) answer {
			var c model.StateCodec
			ids := c.CanonicalWrites(nil, sp)
			if idx >= len(ids) {
				return answer{}
			}
			var err error
			if !ok {
				err = &model.Error{Code: model.ErrCoordinatorNotAvailable}
			} else if sp == tw.a {
				w, _ := sp.OutstandingWrite(ids[idx])
				err = tw.store.Write(w)
			}
			return answer{code: model.CodeOf(sp.CompleteWrite(0, ids[idx], err))}
		}
	case rng.IntN(4) == 0:
		tw.epoch++
		snap, err := tw.store.Read(tw.epoch)
		if err != nil {
			tw.t.Fatal(err)
		}
		start := snap.StartOffset
		if start < 0 {
			start = tw.logStart
		}
		tw.trace = append(tw.trace, fmt.Sprintf("failover %d start %d %v", tw.epoch, start, snap.Batches))
		load := func() *model.SharePartition {
			sp, err := model.Load(tw.cfg, snap, tw.epoch, start)
			if err != nil {
				tw.t.Fatal(err)
			}
			sp.AddMembers(tw.members...)
			if tw.logStart > sp.StartOffset() {
				sp.MoveLogStartOffset(tw.logStart)
			}
			return sp
		}
		tw.a = load()
		return
	default:
		if rng.IntN(2) == 0 {
			tw.trace = append(tw.trace, "leave "+string(m))
			do = func(sp *model.SharePartition) answer { return answer{writes: fmtWrites(one(sp.ReleaseMember(0, m)))} }
		} else {
			if tw.logStart < tw.log[len(tw.log)-1].Last {
				tw.logStart++
			}
			ls := tw.logStart
			tw.trace = append(tw.trace, fmt.Sprintf("log start %d", ls))
			do = func(sp *model.SharePartition) answer { sp.MoveLogStartOffset(ls); return answer{} }
		}
	}
	if tw.cp == nil {
		cp, err := model.New(tw.cfg, 0)
		if err != nil {
			tw.t.Fatal(err)
		}
		cp.AddMembers(tw.members...)
		tw.cp = cp
	}
	tw.cp.CopyFrom(tw.a)
	if ec, ea := tw.codec.Append(nil, tw.cp), tw.codec.Append(nil, tw.a); !bytes.Equal(ec, ea) {
		tw.t.Fatalf("copy encodes differently\n%x\n%x\n%v", ec, ea, tw.trace)
	}
	got, want, copied := do(b), do(tw.a), do(tw.cp)
	if !reflect.DeepEqual(got, want) {
		tw.t.Fatalf("decoded core answered %+v, original %+v\n%v", got, want, tw.trace)
	}
	if !reflect.DeepEqual(copied, want) {
		tw.t.Fatalf("copied core answered %+v, original %+v\n%v", copied, want, tw.trace)
	}
	if ec, ea := tw.codec.Append(nil, tw.cp), tw.codec.Append(nil, tw.a); !bytes.Equal(ec, ea) {
		tw.t.Fatalf("copy diverged after the step\n%v", tw.trace)
	}
	if err := tw.cp.CheckConsistency(); err != nil {
		tw.t.Fatalf("copy inconsistent after the step: %v\n%v", err, tw.trace)
	}
	ea := tw.codec.Append(nil, tw.a)
	eb := tw.codec.Append(nil, b)
	if !bytes.Equal(ea, eb) {
		tw.t.Fatalf("states diverged after the step\n%v", tw.trace)
	}
}

func TestStateCodecRoundTrip(t *testing.T) {
	for _, v := range []model.Version{model.Kafka41, model.Kafka42} {
		for seed := uint64(1); seed <= 300; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(v)))
			cfg := model.DefaultConfig()
			cfg.Version = v
			cfg.RelaxRanges = true
			cfg.RecordLockDurationMs = 1000
			cfg.DeliveryCountLimit = 2 + rng.IntN(3)
			cfg.PartitionMaxRecordLocks = 2 + rng.IntN(6)
			sp, err := model.New(cfg, 0)
			if err != nil {
				t.Fatal(err)
			}
			ms := []model.MemberID{"m1", "m2"}
			sp.AddMembers(ms...)
			sp.SetEpochs(0, 1)
			store := model.NewStateStore(0, -1)
			if _, err := store.Read(1); err != nil {
				t.Fatal(err)
			}
			tw := &twin{t: t, cfg: cfg, members: ms, a: sp, store: store, epoch: 1,
				log: []model.LogBatch{{First: 0, Last: 1}, {First: 2, Last: 4}, {First: 5, Last: 5}, {First: 6, Last: 7}}}
			for range 60 {
				tw.step(rng)
			}
		}
	}
}

func TestStoreStateRoundTrip(t *testing.T) {
	s := model.NewStateStore(3, -1)
	if _, err := s.Read(2); err != nil {
		t.Fatal(err)
	}
	w := &model.Write{StateEpoch: 3, LeaderEpoch: 2, StartOffset: 1, Batches: []model.PersistedBatch{{First: 1, Last: 3, State: model.Available, DeliveryCount: 2}}}
	if err := s.Write(w); err != nil {
		t.Fatal(err)
	}
	enc := s.AppendState(nil)
	var u model.StateStore
	if rest, err := u.DecodeState(enc); err != nil || len(rest) != 0 {
		t.Fatal(err)
	}
	got, want := u.Snapshot(), s.Snapshot()
	want.DeliveryCompleteCount = -1 // not part of the encoding
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded store %+v, want %+v", got, want)
	}
}
