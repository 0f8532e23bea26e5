package live

import (
	"math"
	"sort"
	"sync"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/hist"
)

// meter turns what a live run saw into the simulator's headline figures and end-of-run
// accounting: the produce times (from the producers' acknowledgements), the history's
// operations (deliveries and acknowledgement outcomes, as the wire tap records them, in
// return order from the feeder) and the applications' processings. Times are scenario
// milliseconds (0 is the start of production); calls that carry the recorder's time are
// shifted by offset.
//
// Memory follows the records in flight, not the length of the run: per-offset state is
// kept only for offsets at or above each group's fold floor of the partition. An offset is
// folded — added to the group's counts, latency histogram, series increments and
// accounting buckets, then forgotten — once the broker showed the group past it (the share
// group's start offset, the classic group's committed offset) at a time every request of
// the history had returned by, and no application of the group still holds it (polled and
// not yet processed): a processing that ends after that would be a duplicate the meter
// could no longer see. (Holding from the delivery on the wire to the client's
// acknowledgement was tried first: with kgo v1.22.3 some delivered records were never
// acknowledged on the wire while the client lived — 500 records of one poll for over
// 10 s in a 30 s quickstart run — which stalled the fold; why was not traced in kgo.) The rest grows with the run
// only through the time series (one point per metrics interval, as the simulator's).
type meter struct {
	mu sync.Mutex
	// inForce is each group's configuration over the run (config-change faults move its
	// delivery count limit from Kafka 4.3), by group index. Read-only after newMeter.
	inForce []sim.InForce
	offset  int64 // the recorder's time of scenario time 0
	win     sim.Window
	groups  []*groupMeter
	byName  map[string]*groupMeter
	// topicGroups: topic → the groups reading it.
	topicGroups map[string][]*groupMeter
	// produced: per partition, the produce times of records not yet folded by every group
	// that reads the partition.
	produced map[string]*producedPart
	series   []point
	// producedTotal counts the records the broker acknowledged.
	producedTotal int64
	// late counts processings of an offset already folded (a client held a record the
	// meter did not know of); their duplicates cannot be told.
	late int64
}

type producedPart struct {
	at    map[int64]int64
	floor int64 // produce times below it are dropped
	// maxOffset is the highest acknowledged offset (-1 none): the log must hold it.
	maxOffset int64
}

type groupMeter struct {
	name  string
	idx   int // in the configuration's groups
	share bool
	parts map[string]*partMeter
	// held: client → partition → offsets the client holds (count of deliveries or polls).
	held map[string]map[string]map[int64]int

	deliveries, redeliveries int64
	dups, dupsInWin          int64 // successful processings beyond a record's first
	completed, doneInWin     int64
	producedBy               int64 // records acknowledged to the group's topics
	conflicts                int64 // offsets with two different final outcomes
	lat                      hist.Hist
	// doneAt and finAt count completions and final outcomes by series slot: slot i holds
	// those with a time in (series[i-1].TimeMs, series[i].TimeMs]; the last slot those
	// after the last sample.
	doneAt, finAt []int64
	acc           sim.Accounting
}

type partMeter struct {
	floor int64 // offsets below it are folded
	first int64 // lowest offset delivered (share) or processed (classic), -1 none
	open  map[int64]*offState
	// healFloor is the group's offset when the healing phase began (-1 unknown);
	// finishedHealing is set by a final outcome called during it.
	healFloor       int64
	finishedHealing bool
}

// offState is what the meter knows of one open offset of one group.
type offState struct {
	final string // accepted, rejected, gap, limit (share); committed (classic)
	// unsure: final came from an answer a broker deviation may have falsified; a later
	// sure outcome replaces it. maybe: a terminal acknowledgement named it and its answer
	// was lost (it may have applied).
	unsure, maybe bool
	maxDC         int16
	// completedAt: the call time of the acknowledgement whose answer confirmed the ACCEPT
	// (the broker applied it between that call and the answer; the simulator's completion
	// is the broker's, so the call is the nearer end: a piggy-backed acknowledgement's
	// answer waits for its fetch's long poll), or a classic consumer's processing;
	// finishedAt the same for the final outcome. -1: none.
	completedAt, finishedAt int64
	okCount                 int32
}

// point is one sample of the measured time series.
type point struct {
	TimeMs      int64 `json:"time_ms"`
	Produced    int64 `json:"produced"`
	Completed   int64 `json:"completed"`
	Deliveries  int64 `json:"deliveries"`
	Redelivered int64 `json:"redeliveries"`
	Duplicates  int64 `json:"duplicates"`
	Backlog     int64 `json:"backlog"`
	// producedBy: records produced to each group's topics by then; backlogBy: each
	// group's backlog (by group index).
	producedBy, backlogBy []int64
}

func newMeter(cfg *sim.Config, win sim.Window) *meter {
	m := &meter{win: win, byName: map[string]*groupMeter{}, topicGroups: map[string][]*groupMeter{}, produced: map[string]*producedPart{}}
	steps := cfg.ConfigSteps()
	for i, g := range cfg.Groups {
		m.inForce = append(m.inForce, sim.InForceFor(cfg, steps, int32(i)))
		gm := &groupMeter{name: g.Name, idx: i, share: g.Type == sim.ShareGroup, parts: map[string]*partMeter{}, held: map[string]map[string]map[int64]int{},
			doneAt: []int64{0}, finAt: []int64{0}, acc: sim.Accounting{Finished: map[string]int64{}, TerminalInCache: map[string]int64{}, Unfinished: map[string]int64{}}}
		m.groups = append(m.groups, gm)
		m.byName[g.Name] = gm
		for _, t := range g.Topics {
			m.topicGroups[t] = append(m.topicGroups[t], gm)
		}
	}
	return m
}

// setOffset fixes scenario time 0 in the recorder's time (the start of production).
func (m *meter) setOffset(ms int64) {
	m.mu.Lock()
	m.offset = ms
	m.mu.Unlock()
}

func (m *meter) scen(recMs int64) int64 { return max(0, recMs-m.offset) }

func (m *meter) inWin(t int64) bool { return t >= m.win.StartMs && t < m.win.EndMs }

func (g *groupMeter) part(p string) *partMeter {
	pm := g.parts[p]
	if pm == nil {
		pm = &partMeter{first: -1, open: map[int64]*offState{}, healFloor: -1}
		g.parts[p] = pm
	}
	return pm
}

// state returns an open offset's state, nil when it is folded already.
func (pm *partMeter) state(off int64) *offState {
	if off < pm.floor {
		return nil
	}
	st := pm.open[off]
	if st == nil {
		st = &offState{completedAt: -1, finishedAt: -1}
		pm.open[off] = st
	}
	return st
}

func (g *groupMeter) hold(client, part string, off int64, n int) {
	ps := g.held[client]
	if ps == nil {
		ps = map[string]map[int64]int{}
		g.held[client] = ps
	}
	os := ps[part]
	if os == nil {
		os = map[int64]int{}
		ps[part] = os
	}
	if os[off] += n; os[off] <= 0 {
		delete(os, off)
	}
}

// heldBelow is the lowest offset of the partition a client of the group holds, or to.
func (g *groupMeter) heldBelow(part string, to int64) int64 {
	for _, ps := range g.held {
		for off := range ps[part] {
			to = min(to, off)
		}
	}
	return to
}

// produce notes a record the broker acknowledged (atMs in the recorder's time).
func (m *meter) produce(part string, offset, atMs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.producedTotal++
	gs := m.topicGroups[topicOf(part)]
	for _, g := range gs {
		g.producedBy++
	}
	pp := m.produced[part]
	if pp == nil {
		pp = &producedPart{at: map[int64]int64{}, maxOffset: -1}
		m.produced[part] = pp
	}
	pp.maxOffset = max(pp.maxOffset, offset)
	if len(gs) > 0 && offset >= pp.floor {
		pp.at[offset] = m.scen(atMs)
	}
}

// polled notes a record a consumer's poll handed to its application: the client holds it
// until it is done. (A record kgo fetched and has not handed over yet is not held: with one
// fetch per poll it is handed over at once, long before another consumer could finish it.)
func (m *meter) polled(group, client, part string, off int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.byName[group]; g != nil {
		g.hold(client, part, off, 1)
	}
}

// done notes that a consumer's application finished a polled record (any outcome).
func (m *meter) done(group, client, part string, off int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.byName[group]; g != nil {
		g.hold(client, part, off, -1)
	}
}

// ended drops what a client incarnation held (its loop returned).
func (m *meter) ended(group, client string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.byName[group]; g != nil {
		delete(g.held, client)
	}
}

// processed notes a successful processing of a record by a group's consumer (atMs in the
// recorder's time).
func (m *meter) processed(group, part string, offset, atMs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.byName[group]
	if g == nil {
		return
	}
	t := m.scen(atMs)
	pm := g.part(part)
	st := pm.state(offset)
	if st == nil {
		m.late++
		return
	}
	st.okCount++
	if st.okCount > 1 {
		g.dups++
		if m.inWin(t) {
			g.dupsInWin++
		}
	}
	if !g.share {
		if pm.first < 0 || offset < pm.first {
			pm.first = offset
		}
		if st.completedAt < 0 {
			st.completedAt, st.finishedAt, st.final = t, t, "committed"
		}
	}
}

// op takes one history operation (times in scenario time); suspect marks an answer a
// deviation may have falsified.
func (m *meter) op(op *sim.Op, suspect bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.byName[op.Group]
	if g == nil {
		return
	}
	pm := g.part(op.Partition)
	switch op.Kind {
	case "fetch":
		for _, r := range op.Acquired {
			n := r.Last - r.First + 1
			g.deliveries += n
			if r.DeliveryCount > 1 {
				g.redeliveries += n
			}
			if pm.first < 0 || r.First < pm.first {
				pm.first = r.First
			}
			for off := r.First; off <= r.Last; off++ {
				if st := pm.state(off); st != nil {
					st.maxDC = max(st.maxDC, r.DeliveryCount)
				}
			}
		}
	case "ack":
		each := func(f func(off int64, t model.AckType)) {
			for _, r := range op.Acks {
				for off := r.First; off <= r.Last; off++ {
					t := r.Types[0]
					if len(r.Types) > 1 {
						t = r.Types[off-r.First]
					}
					f(off, t)
				}
			}
		}
		if op.Code == "LOST" || op.ReturnMs < 0 {
			each(func(off int64, t model.AckType) {
				if st := pm.state(off); st != nil && t != model.AckRelease && t != model.AckRenew {
					st.maybe = true
				}
			})
			return
		}
		if op.Code != model.ErrNone.String() {
			return
		}
		each(func(off int64, t model.AckType) {
			st := pm.state(off)
			if st == nil {
				return
			}
			var out string
			switch t {
			case model.AckAccept:
				out = "accepted"
			case model.AckReject:
				out = "rejected"
			case model.AckGap:
				out = "gap"
			case model.AckRelease:
				// The limit in force when the release was sent (both sides of a change
				// at that millisecond: the lower one).
				if lo, _ := m.inForce[g.idx].Range(m.scen(op.CallMs), m.scen(op.CallMs), sim.LimitOf); int64(st.maxDC) >= lo {
					out = "limit"
				}
			}
			if out == "" {
				return
			}
			if st.final != "" {
				switch {
				case st.unsure && !suspect:
					// A sure outcome replaces one the broker may have misreported.
					st.unsure = false
					if st.final == "accepted" {
						st.completedAt = -1
					}
				case st.final != out && !st.unsure && !suspect:
					g.conflicts++
					return
				default:
					return
				}
			}
			st.final, st.finishedAt, st.unsure = out, op.CallMs, suspect
			if out == "accepted" {
				st.completedAt = op.CallMs
			}
			if pm.healFloor >= 0 {
				pm.finishedHealing = true
			}
		})
	}
}

// slot is the series slot of time t.
func (m *meter) slot(t int64) int {
	return sort.Search(len(m.series), func(i int) bool { return m.series[i].TimeMs >= t })
}

// fold adds the group's offsets of part in [pm.floor, to) to its counts and accounting and
// forgets them. below is the group's offset (start or committed) they are classified
// against, logStart the partition's log start read after it.
func (m *meter) fold(g *groupMeter, part string, to, below, logStart int64) {
	pm := g.part(part)
	if to <= pm.floor {
		return
	}
	a := &g.acc
	pp := m.produced[part]
	// A record passed at its delivery count with no final outcome seen was archived at the
	// limit in force then: the lowest over the run, when config changes moved it.
	limitLo, _ := m.inForce[g.idx].Range(0, math.MaxInt64, sim.LimitOf)
	for off := pm.floor; off < to; off++ {
		st := pm.open[off]
		delete(pm.open, off)
		if st == nil {
			st = &offState{completedAt: -1, finishedAt: -1}
		}
		isBelow := off < below
		if g.share {
			done, dc := st.final != "", st.maxDC
			switch {
			case done && isBelow:
				a.Finished[st.final]++
			case done:
				a.TerminalInCache[st.final]++
			case dc > 0 && isBelow && int64(dc) >= limitLo:
				a.Finished["limit"]++
			case dc > 0 && isBelow && off < logStart:
				a.Finished["log-start"]++
			case dc > 0 && isBelow && st.maybe:
				// Acknowledged by a request whose answer was lost: it may have applied.
				a.Finished["unconfirmed"]++
			case dc > 0 && isBelow:
				a.SilentLoss++
			case dc > 0:
				a.Unfinished["delivered"]++
			case off < logStart:
				a.DeletedUndelivered++
			case isBelow && (pm.first < 0 || off < pm.first):
				a.SkippedByOffsetReset++
			case isBelow:
				a.SilentLoss++
			default:
				a.Unfinished["unread"]++
			}
		} else {
			switch {
			case isBelow && st.okCount > 0:
				a.Finished["committed"]++
			case isBelow && off < logStart:
				a.DeletedUndelivered++
			case isBelow:
				// Committed past with no successful processing seen (kgo's autocommit
				// commits what a poll returned): the simulator counts it committed too.
				a.Finished["committed-unprocessed"]++
			default:
				a.Unfinished["uncommitted"]++
			}
		}
		if c := st.completedAt; c >= 0 {
			g.completed++
			if m.inWin(c) {
				g.doneInWin++
			}
			if pp != nil {
				if pt, ok := pp.at[off]; ok && m.inWin(pt) {
					g.lat.Add(c - pt)
				}
			}
			g.doneAt[m.slot(c)]++
		}
		if f := st.finishedAt; f >= 0 {
			g.finAt[m.slot(f)]++
		}
	}
	pm.floor = to
	if pp == nil {
		return
	}
	// Produce times no group reading the partition needs any more.
	low := to
	for _, og := range m.topicGroups[topicOf(part)] {
		if op := og.parts[part]; op != nil {
			low = min(low, op.floor)
		} else {
			low = min(low, 0)
		}
	}
	for off := pp.floor; off < low; off++ {
		delete(pp.at, off)
	}
	pp.floor = max(pp.floor, low)
}

// mark folds what a reading of the broker's offsets finished (the feeder calls it once
// every request called before the reading had returned): up to the reading's floor, but
// not past an offset a client of the group still holds.
func (m *meter) mark(k *mark) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.byName[k.group]
	if g == nil {
		return
	}
	m.fold(g, k.part, g.heldBelow(k.part, k.floor), k.floor, k.logStart)
}

// healing notes the groups' offsets at the start of the healing phase (by group, then
// "topic/p").
func (m *meter) healing(floors map[string]map[string]int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for gn, fs := range floors {
		if g := m.byName[gn]; g != nil {
			for p, f := range fs {
				g.part(p).healFloor = f
			}
		}
	}
}

// sample appends a point of the time series at atMs (the recorder's time); its completed
// and backlog counts are filled in by settle.
func (m *meter) sample(atMs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := point{TimeMs: m.scen(atMs), Produced: m.producedTotal, producedBy: make([]int64, len(m.groups)), backlogBy: make([]int64, len(m.groups))}
	if n := len(m.series); n > 0 && p.TimeMs < m.series[n-1].TimeMs {
		p.TimeMs = m.series[n-1].TimeMs
	}
	for i, g := range m.groups {
		p.Deliveries += g.deliveries
		p.Redelivered += g.redeliveries
		p.Duplicates += g.dups
		p.producedBy[i] = g.producedBy
		g.doneAt = append(g.doneAt, 0)
		g.finAt = append(g.finAt, 0)
	}
	m.series = append(m.series, p)
}

// final folds everything left at the end of the run, against the groups' offsets then
// (floors: group → "topic/p" → start or committed offset) and the partitions' log start
// and end offsets, and settles the series. It returns each group's accounting and the
// partitions' end states (sim.FinalState, for liveness); undecided lists the partitions
// not drained only because of acknowledgements whose answers were lost.
func (m *meter) final(floors map[string]map[string]int64, logStart, logEnd map[string]int64, topicsOf map[string][]string) (map[string]sim.Accounting, []sim.FinalState, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	accs := map[string]sim.Accounting{}
	var fss []sim.FinalState
	var undecided []string
	for _, g := range m.groups {
		fl, ok := floors[g.name]
		if !ok {
			continue
		}
		var parts []string
		for p := range logEnd {
			for _, t := range topicsOf[g.name] {
				if topicOf(p) == t {
					parts = append(parts, p)
				}
			}
		}
		sort.Strings(parts)
		a := &g.acc
		for _, p := range parts {
			end, ls := logEnd[p], logStart[p]
			start := fl[p]
			pm := g.part(p)
			before := *a
			before.Unfinished = map[string]int64{}
			for k, v := range a.Unfinished {
				before.Unfinished[k] = v
			}
			var maybe, inFlight int64
			for off, st := range pm.open {
				if off >= start && off < end && st.final == "" && st.maxDC > 0 {
					inFlight++
					if st.maybe {
						maybe++
					}
				}
			}
			m.fold(g, p, max(end, pm.floor), start, ls)
			// Offsets the history shows beyond the log end (a delivery or processing of an
			// offset the log does not hold, an acknowledged produce beyond it) unbalance
			// the sum.
			for off := range pm.open {
				if off >= end {
					g.conflicts++
				}
			}
			if pp := m.produced[p]; pp != nil && pp.maxOffset >= end {
				g.conflicts += pp.maxOffset - end + 1
			}
			a.Offsets += end
			unfinished := a.Unfinished["delivered"] + a.Unfinished["unread"] + a.Unfinished["uncommitted"] -
				before.Unfinished["delivered"] - before.Unfinished["unread"] - before.Unfinished["uncommitted"]
			fs := sim.FinalState{Group: g.name, Partition: p, StartOffset: start, LogStart: ls, LogEnd: end, Loaded: true}
			if g.share {
				fs.InFlight = inFlight
				fs.Drained = unfinished == 0
				if !fs.Drained && unfinished == maybe {
					undecided = append(undecided, g.name+"/"+p)
				}
			} else {
				fs.Drained = start >= end
			}
			fs.ProgressedWhileHealing = pm.healFloor >= 0 && (start > pm.healFloor || pm.finishedHealing)
			fss = append(fss, fs)
		}
		var sum int64
		for _, v := range a.Finished {
			sum += v
		}
		for _, v := range a.TerminalInCache {
			sum += v
		}
		a.UnfinishedTotal = 0
		for _, v := range a.Unfinished {
			a.UnfinishedTotal += v
		}
		sum += a.UnfinishedTotal + a.DeletedUndelivered + a.SkippedByOffsetReset + a.SilentLoss + a.NoRecord + g.conflicts
		a.Sum, a.Balanced = sum, sum == a.Offsets
		accs[g.name] = *a
	}
	m.settle()
	return accs, fss, undecided
}

// settle fills in each sample's completed and backlog counts from the completions and
// final outcomes by slot: a sample taken while an acknowledgement was in flight would
// have counted its records as not finished, although the broker had applied them; the
// simulator's backlog is the broker's.
func (m *meter) settle() {
	done := make([]int64, len(m.groups))
	fin := make([]int64, len(m.groups))
	for i := range m.series {
		p := &m.series[i]
		p.Completed, p.Backlog = 0, 0
		for gi, g := range m.groups {
			done[gi] += g.doneAt[i]
			fin[gi] += g.finAt[i]
			p.Completed += done[gi]
			p.backlogBy[gi] = max(0, p.producedBy[gi]-fin[gi])
			p.Backlog += p.backlogBy[gi]
		}
	}
}

// retained counts the per-offset entries the meter holds (open offsets, produce times,
// held records): what must stay flat as a run gets longer. window is the number of offsets
// those entries may legitimately cover: per partition, the offsets from the lowest floor
// still needed (pp.floor) to the highest acknowledged, plus per group and partition those
// from the group's floor to the highest acknowledged. Entries that follow the in-flight
// window stay within a small multiple of it however long the run (an offset has at most a
// produce time, an open state and a holder or two); entries kept for folded offsets
// grow past it.
func (m *meter) retained() (entries, window int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for part, pp := range m.produced {
		entries += len(pp.at)
		window += int(max(0, pp.maxOffset+1-pp.floor))
		for _, g := range m.topicGroups[topicOf(part)] {
			if pm := g.parts[part]; pm != nil {
				window += int(max(0, pp.maxOffset+1-pm.floor))
			} else {
				window += int(max(0, pp.maxOffset+1))
			}
		}
	}
	for _, g := range m.groups {
		for _, pm := range g.parts {
			entries += len(pm.open)
		}
		for _, ps := range g.held {
			for _, os := range ps {
				entries += len(os)
			}
		}
	}
	return entries, window
}

func topicOf(part string) string {
	for i := len(part) - 1; i >= 0; i-- {
		if part[i] == '/' {
			return part[:i]
		}
	}
	return part
}

// Figures are the headline numbers of one group, predicted or measured, over the
// measurement window (sim.GroupMetrics.Window).
type Figures struct {
	Group             string   `json:"group"`
	ThroughputPerSec  float64  `json:"throughput_per_sec"`
	DuplicatesPerHour float64  `json:"duplicates_per_hour"`
	Redeliveries      float64  `json:"redeliveries"`
	E2EP50Ms          *float64 `json:"e2e_p50_ms"`
	E2EP99Ms          *float64 `json:"e2e_p99_ms"`
	BacklogMax        float64  `json:"backlog_max"`
	Produced          float64  `json:"produced"`
	Completed         float64  `json:"completed"`
}

// figures computes a group's measured figures over the meter's window (after final).
func (m *meter) figures(group string) Figures {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.byName[group]
	f := Figures{Group: group}
	if g == nil {
		return f
	}
	win := float64(max(m.win.EndMs-m.win.StartMs, 1))
	f.ThroughputPerSec = float64(g.doneInWin) * 1000 / win
	f.DuplicatesPerHour = float64(g.dupsInWin) * 3_600_000 / win
	f.Redeliveries = float64(g.redeliveries)
	f.Completed = float64(g.completed)
	f.Produced = float64(g.producedBy)
	if g.lat.Count() > 0 {
		q50, _ := g.lat.Quantile(0.5)
		q99, _ := g.lat.Quantile(0.99)
		p50, p99 := float64(q50), float64(q99)
		f.E2EP50Ms, f.E2EP99Ms = &p50, &p99
	}
	for i, og := range m.groups {
		if og == g {
			for _, p := range m.series {
				f.BacklogMax = max(f.BacklogMax, float64(p.backlogBy[i]))
			}
		}
	}
	return f
}

// predicted copies the simulator's figures of one group.
func predicted(res *sim.Result, group string) Figures {
	f := Figures{Group: group}
	for i := range res.Metrics.Groups {
		g := &res.Metrics.Groups[i]
		if g.Name != group {
			continue
		}
		f.ThroughputPerSec = g.Rates.CompletedPerSec
		f.DuplicatesPerHour = g.Rates.DuplicatesPerHour
		f.Redeliveries = float64(g.Totals.Redeliveries)
		f.Produced = float64(g.Totals.Produced)
		f.Completed = float64(g.Totals.Completed)
		if v := g.Latency.Completed.P50Ms; v != nil {
			x := float64(*v)
			f.E2EP50Ms = &x
		}
		if v := g.Latency.Completed.P99Ms; v != nil {
			x := float64(*v)
			f.E2EP99Ms = &x
		}
	}
	for _, s := range res.Metrics.Series {
		for _, gs := range s.Groups {
			if gs.Group == group {
				f.BacklogMax = max(f.BacklogMax, float64(gs.Backlog))
			}
		}
	}
	return f
}
