package sim

import (
	"github.com/sharesim/sharesim/model"
)

// The share coordinator persists every share-partition's state (one model.StateStore per
// share-partition). Leaders send it state writes (sendWrite), whose answer reaches them
// Coordinator.WriteLatency later (writeApply → leaders.writeDone), and state reads when they
// load a share-partition (requestRead, answered by read at the leader's loadDone after
// Coordinator.ReadLatency). Writes fail at random (WriteFailPerMillion) or while a write-fail
// fault is on (then reads too, with Fault.Reads); a coordinator-slow fault overrides the
// write latency.

// shareCoordinator is the share coordinator actor.
type shareCoordinator struct {
	*engine
	*topology

	leaders *leaders
	metrics *metrics
	history *history

	stores     []*model.StateStore // by share-partition
	writes     []writeRec          // writes on their way, by id
	freeWrites []int32
	slowMs     int64 // > 0: the write latency while a coordinator-slow fault is on
	writeFail  int   // > 0: writes fail (write-fail faults on)
	// writeFailCode is the error of the latest write-fail fault that started (zero:
	// COORDINATOR_NOT_AVAILABLE); readFail > 0: state reads fail with readFailCode.
	writeFailCode model.ErrorCode
	readFail      int
	readFailCode  model.ErrorCode
}

// writeRec is a state write on its way to the share coordinator: from core (which may be a
// share-partition its leader no longer serves), for the request req waiting for it (-1: none).
type writeRec struct {
	sp   int32
	core *model.SharePartition
	w    *model.Write
	req  int32
}

// addStore creates share-partition s's durable state, with start offset start (-1: unset,
// share.auto.offset.reset decides at the first load).
func (co *shareCoordinator) addStore(s *sharePart, start int64) {
	for len(co.stores) <= int(s.id) {
		co.stores = append(co.stores, nil)
	}
	co.stores[s.id] = model.NewStateStore(0, start).ForConfig(co.cfg.Kafka)
}

// store is share-partition s's durable state.
func (co *shareCoordinator) store(s *sharePart) *model.StateStore { return co.stores[s.id] }

// sendWrite sends a state write of s's current core; req is the request waiting for it.
func (co *shareCoordinator) sendWrite(s *sharePart, wr *model.Write, req int32) {
	co.sendWriteFrom(s, s.core, wr, req)
}

// sendWriteFrom sends a state write issued by core, which may be a share-partition its
// leader no longer serves (the DLQ manager finishing an old one's step).
func (co *shareCoordinator) sendWriteFrom(s *sharePart, core *model.SharePartition, wr *model.Write, req int32) {
	var id int32
	if n := len(co.freeWrites); n > 0 {
		id = co.freeWrites[n-1]
		co.freeWrites = co.freeWrites[:n-1]
	} else {
		co.writes = append(co.writes, writeRec{})
		id = int32(len(co.writes) - 1)
	}
	co.writes[id] = writeRec{sp: s.id, core: core, w: wr, req: req}
	co.metrics.writeSent()
	lat := co.cfg.Coordinator.WriteLatency.Sample(co.rNet)
	if co.slowMs > 0 {
		lat = co.slowMs
	}
	co.push(co.now+lat, event{kind: evWriteApply, ref: id})
}

// writeApply is a write reaching the share coordinator and its answer reaching the leader.
func (co *shareCoordinator) writeApply(id int32) {
	wr := co.writes[id]
	co.writes[id] = writeRec{}
	co.freeWrites = append(co.freeWrites, id)
	s := co.shares[wr.sp]
	var err error
	switch {
	case co.writeFail > 0:
		code := co.writeFailCode
		if code == model.ErrNone {
			code = model.ErrCoordinatorNotAvailable
		}
		err = &model.Error{Code: code, Offset: -1, Msg: "injected write failure"}
	case co.cfg.Coordinator.WriteFailPerMillion > 0 && co.rFault.Bool(uint64(co.cfg.Coordinator.WriteFailPerMillion), 1_000_000):
		err = &model.Error{Code: model.ErrCoordinatorNotAvailable, Offset: -1, Msg: "random write failure"}
	default:
		err = co.storeWrite(s, wr.w)
	}
	if err != nil {
		co.mark("write-failed")
	}
	co.lineOf(&fWrite).f(&co.parts[s.part].pField).op(wr.w.Kind).fnum(&fID, int64(wr.w.ID)).code(model.CodeOf(err)).end()
	co.leaders.writeDone(s, wr.core, wr.w, wr.req, err)
}

// storeWrite applies a write to s's durable state; the history notes its epochs for
// observers.
func (co *shareCoordinator) storeWrite(s *sharePart, wr *model.Write) error {
	st := co.stores[s.id]
	if co.opts.Observer == nil {
		return st.Write(wr) // nobody reads the notes
	}
	leaderEpoch, stateEpoch := st.LeaderEpoch(), st.StateEpoch()
	err := st.Write(wr)
	co.history.writeApplied(s, wr, leaderEpoch, stateEpoch, err == nil)
	return err
}

// requestRead is a leader asking for s's state: the answer reaches it (leaders.loadDone)
// after the read latency.
func (co *shareCoordinator) requestRead(s *sharePart) {
	co.push(co.now+co.cfg.Coordinator.ReadLatency.Sample(co.rNet), event{kind: evLoadDone, a: s.id})
}

// read serves a leader's state read of s at leaderEpoch: the error code of a failure a
// write-fail fault with reads injects (ErrNone: none), else the stored state.
func (co *shareCoordinator) read(s *sharePart, leaderEpoch int32) (model.Snapshot, model.ErrorCode, error) {
	if co.readFail > 0 {
		code := co.readFailCode
		if code == model.ErrNone {
			code = model.ErrCoordinatorNotAvailable
		}
		return model.Snapshot{}, code, nil
	}
	snap, err := co.stores[s.id].Read(leaderEpoch)
	return snap, model.ErrNone, err
}

// failWrites starts (+1) or ends (-1) a write-fail fault failing writes with code (zero:
// COORDINATOR_NOT_AVAILABLE), and reads too when reads is set.
func (co *shareCoordinator) failWrites(dir int, code model.ErrorCode, reads bool) {
	co.writeFail += dir
	if dir > 0 {
		co.writeFailCode = code
	}
	if reads {
		co.readFail += dir
		if dir > 0 {
			co.readFailCode = code
		}
	}
}

// slowWrites makes every write take ms (0: the write latency again).
func (co *shareCoordinator) slowWrites(ms int64) { co.slowMs = ms }

// heal ends every fault window.
func (co *shareCoordinator) heal() { co.writeFail, co.slowMs, co.readFail = 0, 0, 0 }
