package live

import (
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/sim"
)

// feeder hands the recorder's queue, in batches, to the streaming history checks and the
// meter, shifted to scenario time (0 is the start of production), and applies the
// readings of the broker's offsets once the history horizon passed them: then every
// operation the reading could reflect has been handed over, so the offsets below it are
// finished for the checks (checker.HistoryStream.Finished) and can be folded by the meter.
// It runs on one goroutine; nothing it holds grows with the run but the marks not yet
// passed by the horizon (a few per partition).
type feeder struct {
	rec    *recorder
	meter  *meter
	offset int64 // the recorder's time of scenario time 0
	// main runs the run's history checks; shadow, when not nil, runs the checks a known
	// error-code-only deviation of the broker can fail, with the outcomes it can falsify
	// taken as unknown (LOST, return time kept), so that a failure they explain can be
	// told from one they do not without keeping the history.
	main, shadow *checker.HistoryStream
	share        map[string]bool // share groups by name
	marks        []mark
}

func (f *feeder) shiftOp(op *sim.Op) {
	op.CallMs = max(0, op.CallMs-f.offset)
	if op.ReturnMs >= 0 {
		op.ReturnMs = max(0, op.ReturnMs-f.offset)
	}
}

// step takes what was recorded since the last step and hands it over.
func (f *feeder) step() {
	items, horizon := f.rec.take()
	for _, it := range items {
		switch {
		case it.op != nil:
			op := it.op
			f.shiftOp(op)
			f.main.Op(op)
			if f.shadow != nil {
				if it.suspect {
					lost := *op
					lost.Code = "LOST"
					f.shadow.Op(&lost)
				} else {
					f.shadow.Op(op)
				}
			}
			f.meter.op(op, it.suspect)
		case it.hidden != nil:
			ev := it.hidden
			ev.TimeMs, ev.FromMs = max(0, ev.TimeMs-f.offset), max(0, ev.FromMs-f.offset)
			f.main.Hidden(ev)
			if f.shadow != nil {
				f.shadow.Hidden(ev)
			}
		case it.mark != nil:
			f.marks = append(f.marks, *it.mark)
		case it.ended != "":
			f.meter.ended(it.group, it.ended)
		}
	}
	k := 0
	for _, m := range f.marks {
		if m.atMs >= horizon {
			f.marks[k] = m
			k++
			continue
		}
		if f.share[m.group] {
			f.main.Finished(m.group, m.part, m.floor)
			if f.shadow != nil {
				f.shadow.Finished(m.group, m.part, m.floor)
			}
		}
		f.meter.mark(&m)
	}
	f.marks = f.marks[:k]
}

// run steps every 50 ms until stop closes, then once more.
func (f *feeder) run(stop <-chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			f.step()
			return
		case <-t.C:
		}
		f.step()
	}
}
