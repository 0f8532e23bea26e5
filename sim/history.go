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

func (w *World) recordHistory(r *request) {
	if !w.opts.RecordHistory {
		return
	}
	for i := range r.acks {
		pa := &r.acks[i]
		res := r.result(pa.sp)
		w.history = append(w.history, w.op(r, pa.sp, "ack", w.now, nil, pa.ranges, res.ackCode.String()))
	}
	if r.kind != reqFetch {
		return
	}
	for i := range r.results {
		res := &r.results[i]
		if len(res.ranges) == 0 && res.err == model.ErrNone {
			continue
		}
		w.history = append(w.history, w.op(r, res.sp, "fetch", w.now, append([]model.AcquiredRange(nil), res.ranges...), nil, res.err.String()))
	}
}

func (w *World) recordHistoryLost(r *request) {
	if !w.opts.RecordHistory {
		return
	}
	for i := range r.acks {
		pa := &r.acks[i]
		w.history = append(w.history, w.op(r, pa.sp, "ack", -1, nil, pa.ranges, "LOST"))
	}
	if r.kind == reqFetch {
		for _, sp := range r.parts {
			w.history = append(w.history, w.op(r, sp, "fetch", -1, nil, nil, "LOST"))
		}
	}
}

func (w *World) op(r *request, sp int32, kind string, ret int64, acq []model.AcquiredRange, acks []model.AckRange, code string) Op {
	s := w.shares[sp]
	return Op{Client: string(r.member), Group: w.groups[s.group].cfg.Name, Partition: w.parts[s.part].name,
		Kind: kind, CallMs: r.sentMs, ReturnMs: ret, Acquired: acq, Acks: append([]model.AckRange(nil), acks...), Code: code}
}
