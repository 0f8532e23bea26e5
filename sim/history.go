package sim

import (
	"github.com/sharesim/sharesim/model"
)

// Op is one client-visible operation on one share-partition: a fetch result or an
// acknowledgement outcome, with the virtual times the client issued it and learnt its
// result. A lost response has ReturnMs -1: its effect, if any, may have happened at any
// time after CallMs (porcupine treats it as open-ended).
type Op struct {
	Client    string                `json:"client"`
	Group     string                `json:"group"`
	Partition string                `json:"partition"`
	Kind      string                `json:"kind"` // "fetch" or "ack"
	CallMs    int64                 `json:"call_ms"`
	ReturnMs  int64                 `json:"return_ms"`
	Acquired  []model.AcquiredRange `json:"acquired,omitempty"`
	Acks      []model.AckRange      `json:"acks,omitempty"`
	Code      string                `json:"code"`
}

// history is the client-visible history's observer: it records the operations the clients
// saw and the hidden events a history checker needs (Options.RecordHistory, OnHistory,
// OnHidden), and what the current event did for Options.Observer (Departures, AppliedWrites).
type history struct {
	*engine
	*topology

	reqs *requests
	// added records the share-partitions add-partitions faults created (addedBy: index by
	// share-partition id), for AddedSharePartitions.
	added    []addedShare
	addedBy  map[int32]int
	ops      []Op
	hidden   []HiddenEvent
	obsNotes eventNotes // what the current event did, for observers (observe.go)
}

// recordsHistory reports whether the run records the history (kept or handed over).
func (h *history) recordsHistory() bool { return h.opts.RecordHistory || h.opts.OnHistory != nil }

// emit hands op to Options.OnHistory, or keeps it in the result.
func (h *history) emit(op Op) {
	if h.opts.OnHistory != nil {
		h.opts.OnHistory(&op)
		return
	}
	h.ops = append(h.ops, op)
}

// emitHidden hands ev to Options.OnHidden, or keeps it in the result.
func (h *history) emitHidden(ev HiddenEvent) {
	if h.opts.OnHidden != nil {
		h.opts.OnHidden(&ev)
		return
	}
	if h.opts.RecordHistory {
		h.hidden = append(h.hidden, ev)
	}
}

func (h *history) historyHorizon() int64 {
	horizon := h.now
	for id := range h.reqs.all {
		r := &h.reqs.all[id]
		if !r.inUse || r.done {
			continue
		}
		if c := h.consumers[r.consumer]; c.gen == r.gen && c.state != cDead {
			horizon = min(horizon, r.sentMs)
		}
	}
	return horizon
}

func (h *history) recordHistory(r *request) {
	if !h.recordsHistory() {
		return
	}
	for i := range r.acks {
		pa := &r.acks[i]
		res := r.result(pa.sp)
		h.emit(h.op(r, pa.sp, "ack", h.now, nil, pa.ranges, res.ackCode.String()))
	}
	if r.kind != reqFetch {
		return
	}
	for i := range r.results {
		res := &r.results[i]
		if len(res.ranges) == 0 && res.err == model.ErrNone {
			continue
		}
		h.emit(h.op(r, res.sp, "fetch", h.now, append([]model.AcquiredRange(nil), res.ranges...), nil, res.err.String()))
	}
}

func (h *history) recordHistoryLost(r *request) {
	if !h.recordsHistory() {
		return
	}
	for i := range r.acks {
		pa := &r.acks[i]
		h.emit(h.op(r, pa.sp, "ack", -1, nil, pa.ranges, "LOST"))
	}
	if r.kind == reqFetch {
		for _, sp := range r.parts {
			h.emit(h.op(r, sp, "fetch", -1, nil, nil, "LOST"))
		}
	}
}

func (h *history) op(r *request, sp int32, kind string, ret int64, acq []model.AcquiredRange, acks []model.AckRange, code string) Op {
	s := h.shares[sp]
	return Op{Client: string(r.member), Group: h.groups[s.group].cfg.Name, Partition: h.parts[s.part].name,
		Kind: kind, CallMs: r.sentMs, ReturnMs: ret, Acquired: acq, Acks: append([]model.AckRange(nil), acks...), Code: code}
}
