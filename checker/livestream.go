package checker

import (
	"sort"

	"github.com/sharesim/sharesim/sim"
)

// HistoryStream runs the history checks on a history handed over as it is recorded outside
// the simulator (live mode's wire tap), holding per-offset state only for offsets the
// caller has not declared finished: the same per-operation checks and linearizability
// stream as CheckHistory and Attach, with the caller in the place of sim.World (which
// tells Attach when an offset is finished).
//
// Contract: operations come in the order of their return times (a lost operation when it
// was found lost), hidden events in time order among them; Finished promises that every
// operation on the offsets below floor has been handed over and that none to come
// delivers them (a delivery that does is reported by linearizable).
type HistoryStream struct {
	c       *Checker
	ran     []string
	skipped []string
}

// NewHistoryStream starts a streamed check of the history checks among names
// (DefaultChecks when empty); the others are listed as skipped in the verdict.
func NewHistoryStream(cfg sim.Config, names []string) (*HistoryStream, error) {
	v, err := CheckHistory(cfg, names, History{}) // the same selection, on nothing
	if err != nil {
		return nil, err
	}
	s := &HistoryStream{ran: v.Ran, skipped: v.Skipped}
	if len(v.Ran) == 0 {
		return s, nil
	}
	if s.c, err = New(cfg, v.Ran); err != nil {
		return nil, err
	}
	s.c.h.perCheck = map[string]int{}
	s.c.h.streaming = true
	return s, nil
}

// Op takes the next operation.
func (s *HistoryStream) Op(op *sim.Op) {
	if s.c == nil {
		return
	}
	if s.c.h.linOn() {
		s.c.h.stream().Add(op)
	}
	s.c.h.checkOp(op)
}

// Hidden takes the next hidden event.
func (s *HistoryStream) Hidden(ev *sim.HiddenEvent) {
	if s.c == nil {
		return
	}
	s.c.h.noteHidden(ev)
	if s.c.h.linOn() {
		s.c.h.stream().Hidden(ev)
	}
}

// Finished declares the share-partition's offsets below floor finished: their state is
// checked (linearizable) and forgotten.
func (s *HistoryStream) Finished(group, partition string, floor int64) {
	if s.c == nil {
		return
	}
	if hs := s.c.h.hist(group, partition); floor > hs.floor {
		s.c.h.forget(group, partition, hs, floor)
	}
}

// Verdict checks what is still held and returns the verdict, as CheckHistory's.
func (s *HistoryStream) Verdict() *HistoryVerdict {
	v := &HistoryVerdict{Ran: s.ran, Skipped: s.skipped}
	if s.c == nil {
		return v
	}
	hc := s.c.h
	hc.finishLinearizable()
	sort.SliceStable(hc.out, func(a, b int) bool { return hc.out[a].TimeMs < hc.out[b].TimeMs })
	v.Violations, v.Linearizability = hc.out, hc.lin
	return v
}

// CheckLiveness runs the liveness check on a run's end state (res.Final, and each group's
// KeepUp in res.Metrics.Groups): the code Finish runs after the healing phase, for an end
// state built by something other than the simulator (live mode, from the broker's offsets
// and the history).
func CheckLiveness(res *sim.Result) []Violation {
	c := &Checker{on: map[string]bool{"liveness": true}, limit: 100}
	c.checkLiveness(res)
	return c.out
}
