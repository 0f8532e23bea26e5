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
// the real one. It is safe for concurrent use.
//
// Nothing it records stays with it: every operation is streamed to history.ndjson as it
// is recorded and queued for the run's feeder (run.go), which takes the queue in batches
// and hands it to the streaming checks and the meter. The queue holds what was recorded
// since the last batch; the pending set holds the requests on the wire. So its memory
// follows the requests in flight, not the length of the run.
type recorder struct {
	start time.Time

	mu sync.Mutex
	// queue is what was recorded since the feeder last took it, in recording order:
	// operations in the order of their return times (they are stamped here, under mu).
	queue []item
	// pending counts the requests on the wire by call time (ms): sent, and neither
	// answered nor found lost yet.
	pending map[int64]int
	// beats holds, for each share-group consumer incarnation that joined and has not ended
	// (clientEnded), the call time (ms) of its last heartbeat answered without error, or of
	// its joining while none was: the earliest time from which a member-gone the wire tap
	// may still record for it can let the broker release its records (fenced). take never
	// hands out a horizon past it.
	beats   map[member]int64
	ops     int                    // operations recorded
	suspect int                    // of them, outcomes a deviation may have falsified
	out     *reports.HistoryWriter // nil: not streamed to a file
	// keep, when set (tests), keeps every operation and hidden event as well.
	keep     bool
	kept     []sim.Op
	keptSus  map[int]bool
	keptHide []sim.HiddenEvent
}

// item is one entry of the recorder's queue: an operation, a hidden event, an
// observation of the broker's offsets (mark) or the end of a client (ended).
type item struct {
	op      *sim.Op
	suspect bool
	hidden  *sim.HiddenEvent
	mark    *mark
	ended   string // a client whose incarnation ended: it holds nothing any more
	group   string // the ended client's group
}

// mark is one reading of a group's progress on a partition at atMs (the recorder's time,
// the reading's return): the share group's start offset (DescribeShareGroupOffsets) or
// the classic group's committed offset, and the log start read after it.
type mark struct {
	group, part     string
	floor, logStart int64
	atMs            int64
}

func newRecorder(start time.Time, out *reports.HistoryWriter) *recorder {
	return &recorder{start: start, out: out, pending: map[int64]int{}, beats: map[member]int64{}}
}

// callMs is the time since the start, rounded down: a lower bound for a call.
func (r *recorder) callMs() int64 { return int64(time.Since(r.start) / time.Millisecond) }

// returnMs is the time since the start, rounded up: an upper bound for a return.
func (r *recorder) returnMs() int64 {
	d := time.Since(r.start)
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

func (r *recorder) push(it item) { r.queue = append(r.queue, it) }

// op records an operation. An answered operation's return time is taken here, under the
// lock (still an upper bound of the real return), so that the queue is in return order.
func (r *recorder) op(op sim.Op, suspect bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if op.ReturnMs >= 0 {
		op.ReturnMs = max(op.ReturnMs, r.returnMs())
	}
	if suspect {
		r.suspect++
	}
	if r.keep {
		if suspect {
			if r.keptSus == nil {
				r.keptSus = map[int]bool{}
			}
			r.keptSus[len(r.kept)] = true
		}
		r.kept = append(r.kept, op)
	}
	r.ops++
	if r.out != nil {
		r.out.Op(&op)
	}
	r.push(item{op: &op, suspect: suspect})
}

func (r *recorder) hide(ev sim.HiddenEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hideLocked(ev)
}

func (r *recorder) hideLocked(ev sim.HiddenEvent) {
	if r.keep {
		r.keptHide = append(r.keptHide, ev)
	}
	if r.out != nil {
		r.out.Hidden(&ev)
	}
	r.push(item{hidden: &ev})
}

// observed queues a reading of the broker's offsets.
func (r *recorder) observed(m mark) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.push(item{mark: &m})
}

// clientEnded queues the end of a client incarnation (after its loop returned and every
// connection of it was closed, so the wire tap records nothing more for it). A share-group
// incarnation stops holding the horizon back (beats).
func (r *recorder) clientEnded(group, client string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.beats, member{client: client, group: group})
	r.push(item{ended: client, group: group})
}

// joined registers a share-group consumer incarnation before it can dial the broker: from
// now until clientEnded the horizon waits for its heartbeats (beats). It holds no records
// before it joins, so its joining time stands for a last good heartbeat until it has one.
func (r *recorder) joined(m member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.beats[m] = r.callMs()
}

// beat notes that a heartbeat of m called at callMs (ms) was answered without error. A
// heartbeat of an incarnation not registered (joined) or already ended is not followed.
func (r *recorder) beat(m member, callMs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b, ok := r.beats[m]; ok {
		r.beats[m] = max(b, callMs)
	}
}

// gone records that m's session ends, or may end, now (live mode killed, closed or cut off
// the incarnation): a hidden member-gone at and from now, stamped under the lock, so after
// every horizon handed out before it.
func (r *recorder) gone(m member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := r.callMs()
	r.hideLocked(sim.HiddenEvent{TimeMs: at, Kind: sim.HiddenMemberGone, Group: m.group, Member: m.client, FromMs: at})
}

// fenced records that the broker answered a heartbeat of m (at retMs, ms) saying it no
// longer knows the member: a hidden member-gone from the call time of m's last heartbeat
// answered without error (from 0 for an incarnation not registered). Its start and its
// place in the queue are taken under one lock with take, so no horizon handed out before
// it passed its start (beats).
func (r *recorder) fenced(m member, retMs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hideLocked(sim.HiddenEvent{TimeMs: retMs, Kind: sim.HiddenMemberGone, Group: m.group, Member: m.client, FromMs: r.beats[m]})
}

// sentNow notes a request put on the wire now and returns its call time (ms), taken under the
// lock with the note, so that take sees the request pending from any horizon past that time;
// answered notes that it was answered or found lost (after its operations were recorded).
func (r *recorder) sentNow() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	callMs := r.callMs()
	r.pending[callMs]++
	return callMs
}

func (r *recorder) answered(callMs int64) {
	r.mu.Lock()
	if r.pending[callMs]--; r.pending[callMs] <= 0 {
		delete(r.pending, callMs)
	}
	r.mu.Unlock()
}

// take hands over the queue and the history horizon (ms). The horizon is the earliest of
// now, the call time of every request still on the wire (pending) and the last good
// heartbeat of every share-group incarnation not ended (beats). So:
//
//   - every request called before the horizon was answered or found lost, and its
//     operations are in the queue taken now or in an earlier one;
//   - every member-gone recorded after this take starts (FromMs) at or after the horizon.
//     Live mode's own (gone: kill, close, cut) start when they are recorded, not before
//     this take's now. The wire tap's (fenced) start at the member's last good heartbeat,
//     which only moves forward and is at or after every horizon handed out while the
//     member lived; an incarnation that ended (clientEnded) gets none any more.
//
// The feeder applies a reading of the offsets only once the horizon passed it: then no
// member-gone still to come lets the broker release a record before the reading, and the
// offsets the reading finished can be checked without waiting for one. A member whose
// heartbeats go unanswered (a starved or cut-off client) holds the horizon until one is
// answered without error or the incarnation ends; its fencing does not release it, since
// until the rejoined member's first good heartbeat another fencing would start at the same
// time. No session timeout enters the rule: the tap knows of a fencing only from an answer,
// and the member-gone it records starts at the last good heartbeat whatever the timeout.
func (r *recorder) take() ([]item, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.callMs()
	for t := range r.pending {
		h = min(h, t)
	}
	for _, b := range r.beats {
		h = min(h, b)
	}
	q := r.queue
	r.queue = nil
	return q, h
}

// counts returns how many operations were recorded, and how many of them suspect.
func (r *recorder) counts() (ops, suspect int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ops, r.suspect
}

// snapshot returns copies of what was kept (tests: keep set).
func (r *recorder) snapshot() ([]sim.Op, []sim.HiddenEvent, map[int]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sus := map[int]bool{}
	for k := range r.keptSus {
		sus[k] = true
	}
	return append([]sim.Op(nil), r.kept...), append([]sim.HiddenEvent(nil), r.keptHide...), sus
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
