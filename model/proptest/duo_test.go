package proptest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/model/refspec"
)

// duo runs a fixed script against the core and the spec, for minimal cases found by
// the property tests.
type duo struct {
	t    *testing.T
	cfg  model.Config
	core *model.SharePartition
	spec *refspec.Spec
	now  int64
}

func newDuo(t *testing.T, v model.Version, limit, capacity int, readCommitted bool) *duo {
	t.Helper()
	cfg := model.DefaultConfig()
	cfg.Version, cfg.RelaxRanges, cfg.RecordLockDurationMs = v, true, lockMs
	cfg.DeliveryCountLimit, cfg.PartitionMaxRecordLocks = limit, capacity
	if readCommitted {
		cfg.IsolationLevel = model.ReadCommitted
	}
	core, err := model.New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &duo{t: t, cfg: cfg, core: core, spec: refspec.New(specConfig(cfg), 0)}
}

// loadDuo builds both sides from the same persisted state (a failover).
func loadDuo(t *testing.T, v model.Version, limit, capacity int, start int64, bs ...model.PersistedBatch) *duo {
	t.Helper()
	d := newDuo(t, v, limit, capacity, false)
	var ss refspec.Snapshot
	ss.StartOffset = start
	for _, b := range bs {
		ss.Batches = append(ss.Batches, refspec.PersistedBatch{First: b.First, Last: b.Last, State: refspec.State(b.State), DC: int(b.DeliveryCount)})
	}
	var err error
	if d.core, err = model.Load(d.cfg, model.Snapshot{StartOffset: start, Batches: bs}, 1, start); err != nil {
		t.Fatal(err)
	}
	if d.spec, err = refspec.Load(specConfig(d.cfg), ss, 1, start); err != nil {
		t.Fatal(err)
	}
	return d
}

// release ends member's session on both sides; both must issue the same write.
func (d *duo) release(member string) (duoWrite, bool) {
	cw := d.core.ReleaseMember(d.now, model.MemberID(member))
	sw := d.spec.ReleaseMember(member)
	same := (cw == nil) == (sw == nil) && (cw == nil || sameWrite(cw, sw) == nil)
	if !same {
		d.t.Logf("release %s: core %s, spec %s", member, fmtWrite(cw), fmtSpecWrite(sw))
	}
	if cw == nil || sw == nil {
		return duoWrite{}, same
	}
	return duoWrite{cw.Clone(), sw}, same
}

func lb(first, last int64) model.LogBatch { return model.LogBatch{First: first, Last: last} }

func aborted(first, last int64) model.LogBatch {
	return model.LogBatch{First: first, Last: last, Aborted: true}
}

// acquire fetches for member; it returns whether both sides agree.
func (d *duo) acquire(member string, maxRecords, batchSize int, mode model.AcquireMode, log ...model.LogBatch) bool {
	d.t.Helper()
	p := model.FetchParams{MaxRecords: maxRecords, BatchSize: batchSize, Mode: mode}
	got, err := d.core.Acquire(d.now, model.MemberID(member), p, log, nil)
	if err != nil {
		d.t.Fatalf("core Acquire: %v", err)
	}
	sl := make([]refspec.LogBatch, len(log))
	for i, b := range log {
		sl[i] = refspec.LogBatch{First: b.First, Last: b.Last, Aborted: b.Aborted}
	}
	want := d.spec.Acquire(d.now, member, maxRecords, batchSize, refspec.Mode(mode), sl)
	if !reflect.DeepEqual(coreRanges(got), want) {
		d.t.Logf("acquire %s %+v %v: core %v, spec %v", member, p, log, got, want)
		return false
	}
	return true
}

// duoWrite is one outstanding write on both sides.
type duoWrite struct {
	core *model.Write
	spec *refspec.Write
}

// ackTypes acknowledges [first, last] with one type or one type per offset; both sides
// must agree. It returns the writes (zero value when none).
func (d *duo) ackTypes(member string, first, last int64, types ...model.AckType) duoWrite {
	d.t.Helper()
	st := make([]refspec.AckType, len(types))
	for i, x := range types {
		st[i] = refspec.AckType(x)
	}
	cw, err := d.core.Acknowledge(d.now, model.MemberID(member), []model.AckRange{{First: first, Last: last, Types: types}})
	code, sw := d.spec.Acknowledge(d.now, member, []refspec.AckRange{{First: first, Last: last, Types: st}})
	if model.CodeOf(err) != specCode(code) || (cw == nil) != (sw == nil) || (cw != nil && sameWrite(cw, sw) != nil) {
		d.t.Fatalf("ack %s [%d,%d] %v: core %v %s, spec %v %s", member, first, last, types, model.CodeOf(err), fmtWrite(cw), code, fmtSpecWrite(sw))
	}
	if cw == nil {
		return duoWrite{}
	}
	return duoWrite{cw.Clone(), sw}
}

// complete finishes a write on both sides (ok or failed).
func (d *duo) complete(w duoWrite, ok bool) {
	d.t.Helper()
	if w.core == nil {
		return
	}
	var err error
	if !ok {
		err = &model.Error{Code: model.ErrCoordinatorNotAvailable, Offset: -1, Msg: "injected"}
	}
	if e := d.core.CompleteWrite(d.now, w.core.ID, err); e != nil {
		d.t.Fatalf("core CompleteWrite: %v", e)
	}
	d.spec.CompleteWrite(w.spec.ID, ok)
}

// ack acknowledges one range with one type; it returns whether both sides agree.
func (d *duo) ack(member string, first, last int64, ty model.AckType) (*model.Write, *refspec.Write, bool) {
	d.t.Helper()
	cw, err := d.core.Acknowledge(d.now, model.MemberID(member), []model.AckRange{{First: first, Last: last, Types: []model.AckType{ty}}})
	code, sw := d.spec.Acknowledge(d.now, member, []refspec.AckRange{{First: first, Last: last, Types: []refspec.AckType{refspec.AckType(ty)}}})
	same := model.CodeOf(err) == specCode(code) && (cw == nil) == (sw == nil) && (cw == nil || sameWrite(cw, sw) == nil)
	if !same {
		d.t.Logf("ack %s [%d,%d] %v: core %v %s, spec %v %s", member, first, last, ty, model.CodeOf(err), fmtWrite(cw), code, fmtSpecWrite(sw))
	}
	return cw, sw, same
}

// expire advances time to now and fires locks on both sides.
func (d *duo) expire(now int64) ([]duoWrite, bool) {
	d.now = now
	cw := d.core.ExpireLocks(now, nil)
	sw := d.spec.ExpireLocks(now)
	same := len(cw) == len(sw)
	for i := 0; same && i < len(cw); i++ {
		same = sameWrite(cw[i], sw[i]) == nil
	}
	if !same {
		d.t.Logf("expire at %d: core %v, spec %v", now, fmtWrites(cw), fmtSpecWrites(sw))
		return nil, false
	}
	out := make([]duoWrite, len(cw))
	for i := range cw {
		out[i] = duoWrite{cw[i].Clone(), sw[i]}
	}
	return out, true
}

func (d *duo) moveLogStart(lso int64) {
	d.core.MoveLogStartOffset(lso)
	d.spec.MoveLogStartOffset(lso)
}

// dump shows both sides' observable state.
func (d *duo) dump() string {
	var b strings.Builder
	c, s := d.core, d.spec
	fmt.Fprintf(&b, "core: spso %d speo %d window %d next %d batches", c.StartOffset(), c.EndOffset(), c.InFlightCount(), c.NextFetchOffset())
	c.ForEachBatch(func(v model.BatchView) bool { fmt.Fprintf(&b, " %+v", v); return true })
	c.ForEachRecord(func(v model.RecordView) bool {
		fmt.Fprintf(&b, "\n  %d %v dc%d %q pend=%v lock=%v@%d", v.Offset, v.State, v.DeliveryCount, v.Owner, v.Pending, v.HasLock, v.LockDeadlineMs)
		return true
	})
	fmt.Fprintf(&b, "\nspec: spso %d speo %d window %d next %d batches %+v", s.SPSO(), s.SPEO(), s.Window(), s.NextFetchOffset(), s.Batches())
	for _, o := range s.Offsets() {
		v, _ := s.View(o)
		fmt.Fprintf(&b, "\n  %d %v dc%d %q pend=%v lock=%v@%d", o, model.State(v.State), v.DC, v.Owner, v.Pending, v.HasLock, v.Deadline)
	}
	return b.String()
}

// agree reports whether both sides show the same state (the property test's compare).
func (d *duo) agree() bool {
	ok := true
	m := &machine{cfg: d.cfg, core: d.core, spec: d.spec}
	func() {
		defer func() {
			if r := recover(); r != nil {
				d.t.Logf("compare: %v", r)
				ok = false
			}
		}()
		m.compare(panicT{})
	}()
	return ok
}

// panicT lets compare run outside rapid: any failure panics.
type panicT struct{}

func (panicT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
