package live

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/sim"
)

// recorder collects a live run's history: the share-group operations seen on the wire
// (wiretap.go) and the hidden events live mode causes (kills, closes, dropped connections,
// log-start moves), in the simulator's types, with times in milliseconds since the run's
// start. Call times are rounded down and return times up, so every recorded interval holds
// the real one. It is safe for concurrent use; every operation is also streamed to
// history.ndjson as it is recorded.
type recorder struct {
	start time.Time

	mu  sync.Mutex
	ops []sim.Op
	// suspect marks the operations (by index) whose reported outcome a broker deviation
	// may have falsified (an acknowledgement piggy-backed on a ShareFetch that answered
	// NONE: deviation piggybacked-ack-error-dropped).
	suspect map[int]bool
	hidden  []sim.HiddenEvent
	out     *reports.HistoryWriter // nil: not streamed
	// onOp, when set, sees every operation as it is recorded (the meter).
	onOp func(op *sim.Op, suspect bool)
}

func newRecorder(start time.Time, out *reports.HistoryWriter) *recorder {
	return &recorder{start: start, out: out}
}

// callMs is the time since the start, rounded down: a lower bound for a call.
func (r *recorder) callMs() int64 { return int64(time.Since(r.start) / time.Millisecond) }

// returnMs is the time since the start, rounded up: an upper bound for a return.
func (r *recorder) returnMs() int64 {
	d := time.Since(r.start)
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

func (r *recorder) op(op sim.Op, suspect bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if suspect {
		if r.suspect == nil {
			r.suspect = map[int]bool{}
		}
		r.suspect[len(r.ops)] = true
	}
	r.ops = append(r.ops, op)
	if r.out != nil {
		r.out.Op(&op)
	}
	if r.onOp != nil {
		r.onOp(&op, suspect)
	}
}

func (r *recorder) hide(ev sim.HiddenEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hidden = append(r.hidden, ev)
	if r.out != nil {
		r.out.Hidden(&ev)
	}
}

// snapshot returns copies of what was recorded so far.
func (r *recorder) snapshot() ([]sim.Op, []sim.HiddenEvent, map[int]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sus := map[int]bool{}
	for k := range r.suspect {
		sus[k] = true
	}
	return append([]sim.Op(nil), r.ops...), append([]sim.HiddenEvent(nil), r.hidden...), sus
}

// ReadHistory reads a history.ndjson file (reports.HistoryWriter's format: live mode's and
// `sharesim run --history`'s) into a checker.History.
func ReadHistory(path string) (checker.History, error) {
	var h checker.History
	f, err := os.Open(path)
	if err != nil {
		return h, fmt.Errorf("reading the history: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		var l reports.HistoryLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return h, fmt.Errorf("%s:%d: expected a JSON history line ({\"op\":…} or {\"hidden\":…}): %w", path, line, err)
		}
		switch {
		case l.Op != nil:
			h.Ops = append(h.Ops, *l.Op)
		case l.Hidden != nil:
			h.Hidden = append(h.Hidden, *l.Hidden)
		default:
			return h, fmt.Errorf("%s:%d: expected \"op\" or \"hidden\"", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}
