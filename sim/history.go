package sim

import "github.com/sharesim/sharesim/model"

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

// recordsHistory reports whether the run records the history (kept or handed over).
func (w *World) recordsHistory() bool { return w.opts.RecordHistory || w.opts.OnHistory != nil }

// emit hands op to Options.OnHistory, or keeps it in the result.
func (w *World) emit(op Op) {
	if w.opts.OnHistory != nil {
		w.opts.OnHistory(&op)
		return
	}
	w.history = append(w.history, op)
}

// emitHidden hands ev to Options.OnHidden, or keeps it in the result.
func (w *World) emitHidden(ev HiddenEvent) {
	if w.opts.OnHidden != nil {
		w.opts.OnHidden(&ev)
		return
	}
	if w.opts.RecordHistory {
		w.hidden = append(w.hidden, ev)
	}
}

// HistoryHorizonMs is a lower bound of everything the history has still to show: every
// operation recorded from now on has a call time at or after it, and every hidden event a
// time (and FromMs) at or after it. It is the earliest send time of a live incarnation's
// request whose outcome is not recorded yet, or now. O(requests in flight).
func (w *World) HistoryHorizonMs() int64 {
	h := w.now
	for id := range w.reqs {
		r := &w.reqs[id]
		if !r.inUse || r.done {
			continue
		}
		if c := w.consumers[r.consumer]; c.gen == r.gen && c.state != cDead {
			h = min(h, r.sentMs)
		}
	}
	return h
}

func (w *World) recordHistory(r *request) {
	if !w.recordsHistory() {
		return
	}
	for i := range r.acks {
		pa := &r.acks[i]
		res := r.result(pa.sp)
		w.emit(w.op(r, pa.sp, "ack", w.now, nil, pa.ranges, res.ackCode.String()))
	}
	if r.kind != reqFetch {
		return
	}
	for i := range r.results {
		res := &r.results[i]
		if len(res.ranges) == 0 && res.err == model.ErrNone {
			continue
		}
		w.emit(w.op(r, res.sp, "fetch", w.now, append([]model.AcquiredRange(nil), res.ranges...), nil, res.err.String()))
	}
}

func (w *World) recordHistoryLost(r *request) {
	if !w.recordsHistory() {
		return
	}
	for i := range r.acks {
		pa := &r.acks[i]
		w.emit(w.op(r, pa.sp, "ack", -1, nil, pa.ranges, "LOST"))
	}
	if r.kind == reqFetch {
		for _, sp := range r.parts {
			w.emit(w.op(r, sp, "fetch", -1, nil, nil, "LOST"))
		}
	}
}

func (w *World) op(r *request, sp int32, kind string, ret int64, acq []model.AcquiredRange, acks []model.AckRange, code string) Op {
	s := w.shares[sp]
	return Op{Client: string(r.member), Group: w.groups[s.group].cfg.Name, Partition: w.parts[s.part].name,
		Kind: kind, CallMs: r.sentMs, ReturnMs: ret, Acquired: acq, Acks: append([]model.AckRange(nil), acks...), Code: code}
}
