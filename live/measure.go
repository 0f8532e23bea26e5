package live

import (
	"math"
	"sort"
	"sync"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// meter turns what a live run saw into the simulator's headline figures: the produce times
// (from the producers' acknowledgements), the history's operations (deliveries and
// acknowledgement outcomes, as the wire tap records them) and the applications'
// processings. Times are milliseconds since the run's start, like the history's.
type meter struct {
	mu sync.Mutex
	// produced: per partition, offset → produce time.
	produced map[string]map[int64]int64
	// groups by name.
	groups map[string]*groupMeter
	// topicGroups: topic → the groups reading it.
	topicGroups map[string][]string
	limit       int
	series      []point
}

type groupMeter struct {
	share bool
	// final: per partition, offset → the outcome seen (accepted, rejected, gap, limit).
	final map[string]map[int64]string
	// unsure: per partition, the offsets whose final outcome came from an answer a broker
	// deviation may have falsified (recorder.suspect); a later sure outcome replaces it.
	unsure map[string]map[int64]bool
	// maybe: per partition, the offsets a terminal acknowledgement named whose answer was
	// lost (it may have applied).
	maybe map[string]map[int64]bool
	// maxDC: per partition, offset → highest delivery count seen.
	maxDC map[string]map[int64]int16
	// completedAt: per partition, offset → when the record completed: the call time of the
	// acknowledgement whose answer confirmed the ACCEPT (the broker applied it after that
	// call and before the answer; the simulator's completion is the broker's, so the call
	// is the nearer end: a piggy-backed acknowledgement's answer waits for its fetch's long
	// poll), or a classic consumer's processing.
	completedAt map[string]map[int64]int64
	// finishedAt: per partition, offset → when its final outcome (final) was applied, the
	// same way: the call time of the confirmed acknowledgement.
	finishedAt map[string]map[int64]int64
	// processedOK counts successful processings per record.
	processedOK map[string]map[int64]int

	deliveries, redeliveries int64
	dupEvents                []int64 // times of duplicate processings
	conflicts                int64   // offsets with two different final outcomes
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
	// producedBy: records produced to each group's topics by then (for settle).
	producedBy map[string]int64
}

func newMeter(cfg *sim.Config) *meter {
	m := &meter{produced: map[string]map[int64]int64{}, groups: map[string]*groupMeter{}, topicGroups: map[string][]string{}, limit: cfg.Kafka.DeliveryCountLimit}
	for _, g := range cfg.Groups {
		m.groups[g.Name] = &groupMeter{share: g.Type == sim.ShareGroup, final: map[string]map[int64]string{}, maxDC: map[string]map[int64]int16{},
			completedAt: map[string]map[int64]int64{}, finishedAt: map[string]map[int64]int64{}, processedOK: map[string]map[int64]int{}, unsure: map[string]map[int64]bool{}, maybe: map[string]map[int64]bool{}}
		for _, t := range g.Topics {
			m.topicGroups[t] = append(m.topicGroups[t], g.Name)
		}
	}
	return m
}

func sub[V any](m map[string]map[int64]V, k string) map[int64]V {
	s := m[k]
	if s == nil {
		s = map[int64]V{}
		m[k] = s
	}
	return s
}

// produce notes a record the broker acknowledged.
func (m *meter) produce(part string, offset, atMs int64) {
	m.mu.Lock()
	sub(m.produced, part)[offset] = atMs
	m.mu.Unlock()
}

// processed notes a successful processing of a record by a group's consumer.
func (m *meter) processed(group, part string, offset, atMs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	if g == nil {
		return
	}
	s := sub(g.processedOK, part)
	s[offset]++
	if s[offset] > 1 {
		g.dupEvents = append(g.dupEvents, atMs)
	}
	if !g.share {
		if _, ok := sub(g.completedAt, part)[offset]; !ok {
			sub(g.completedAt, part)[offset] = atMs
			sub(g.finishedAt, part)[offset] = atMs
			sub(g.final, part)[offset] = "committed"
		}
	}
}

// op takes one history operation; suspect marks an answer a deviation may have falsified.
func (m *meter) op(op *sim.Op, suspect bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[op.Group]
	if g == nil {
		return
	}
	switch op.Kind {
	case "fetch":
		dcs := sub(g.maxDC, op.Partition)
		for _, r := range op.Acquired {
			n := r.Last - r.First + 1
			g.deliveries += n
			if r.DeliveryCount > 1 {
				g.redeliveries += n
			}
			for off := r.First; off <= r.Last; off++ {
				dcs[off] = max(dcs[off], r.DeliveryCount)
			}
		}
	case "ack":
		if op.Code == "LOST" || op.ReturnMs < 0 {
			mb := sub(g.maybe, op.Partition)
			for _, r := range op.Acks {
				for off := r.First; off <= r.Last; off++ {
					t := r.Types[0]
					if len(r.Types) > 1 {
						t = r.Types[off-r.First]
					}
					if t != model.AckRelease && t != model.AckRenew {
						mb[off] = true
					}
				}
			}
			return
		}
		if op.Code != model.ErrNone.String() {
			return
		}
		fin := sub(g.final, op.Partition)
		for _, r := range op.Acks {
			for off := r.First; off <= r.Last; off++ {
				t := r.Types[0]
				if len(r.Types) > 1 {
					t = r.Types[off-r.First]
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
					if int(sub(g.maxDC, op.Partition)[off]) >= m.limit {
						out = "limit"
					}
				}
				if out == "" {
					continue
				}
				uns := sub(g.unsure, op.Partition)
				if prev, ok := fin[off]; ok {
					switch {
					case uns[off] && !suspect:
						// A sure outcome replaces one the broker may have misreported.
						delete(uns, off)
						if prev == "accepted" {
							delete(sub(g.completedAt, op.Partition), off)
						}
					case prev != out && !uns[off] && !suspect:
						g.conflicts++
						continue
					default:
						continue
					}
				}
				fin[off] = out
				sub(g.finishedAt, op.Partition)[off] = op.CallMs
				if suspect {
					uns[off] = true
				}
				if out == "accepted" {
					sub(g.completedAt, op.Partition)[off] = op.CallMs
				}
			}
		}
	}
}

// sample appends a point of the time series at atMs.
func (m *meter) sample(atMs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := point{TimeMs: atMs, producedBy: map[string]int64{}}
	for _, s := range m.produced {
		p.Produced += int64(len(s))
	}
	for name, g := range m.groups {
		p.Completed += g.completedCount()
		p.Deliveries += g.deliveries
		p.Redelivered += g.redeliveries
		p.Duplicates += int64(len(g.dupEvents))
		var fin int64
		for _, f := range g.final {
			fin += int64(len(f))
		}
		p.producedBy[name] = m.producedFor(g)
		p.Backlog += max(0, p.producedBy[name]-fin)
	}
	m.series = append(m.series, p)
}

// settle recomputes each sample's completed and backlog counts from the completion and
// finish times (the acknowledgements' call times), once every answer is in: a sample
// taken while an acknowledgement was in flight counted its records as not finished,
// although the broker had applied it; the simulator's backlog is the broker's. Call it
// after shift.
func (m *meter) settle() {
	m.mu.Lock()
	defer m.mu.Unlock()
	type times struct{ done, fin []int64 }
	by := map[string]times{}
	for name, g := range m.groups {
		var t times
		for _, s := range g.completedAt {
			for _, v := range s {
				t.done = append(t.done, v)
			}
		}
		for _, s := range g.finishedAt {
			for _, v := range s {
				t.fin = append(t.fin, v)
			}
		}
		sort.Slice(t.done, func(a, b int) bool { return t.done[a] < t.done[b] })
		sort.Slice(t.fin, func(a, b int) bool { return t.fin[a] < t.fin[b] })
		by[name] = t
	}
	upTo := func(sorted []int64, at int64) int64 {
		return int64(sort.Search(len(sorted), func(i int) bool { return sorted[i] > at }))
	}
	for i := range m.series {
		p := &m.series[i]
		p.Completed, p.Backlog = 0, 0
		for name, t := range by {
			p.Completed += upTo(t.done, p.TimeMs)
			p.Backlog += max(0, p.producedBy[name]-upTo(t.fin, p.TimeMs))
		}
	}
}

// producedFor counts the records produced to a group's topics.
func (m *meter) producedFor(g *groupMeter) int64 {
	var n int64
	for name, gm := range m.groups {
		if gm != g {
			continue
		}
		for part, s := range m.produced {
			for _, gn := range m.topicGroups[topicOf(part)] {
				if gn == name {
					n += int64(len(s))
				}
			}
		}
	}
	return n
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

// figures computes a group's measured figures over the window [startMs, endMs).
func (m *meter) figures(group string, startMs, endMs int64) Figures {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	f := Figures{Group: group}
	if g == nil {
		return f
	}
	win := float64(max(endMs-startMs, 1))
	in := func(t int64) bool { return t >= startMs && t < endMs }
	var done, dups int64
	for _, s := range g.completedAt {
		for _, t := range s {
			if in(t) {
				done++
			}
		}
	}
	for _, t := range g.dupEvents {
		if in(t) {
			dups++
		}
	}
	f.ThroughputPerSec = float64(done) * 1000 / win
	f.DuplicatesPerHour = float64(dups) * 3_600_000 / win
	f.Redeliveries = float64(g.redeliveries)
	f.Completed = float64(g.completedCount())
	f.Produced = float64(m.producedFor(g))
	var lat []int64
	for part, s := range m.produced {
		ca := g.completedAt[part]
		for off, pt := range s {
			if !in(pt) {
				continue
			}
			if c, ok := ca[off]; ok {
				lat = append(lat, max(0, c-pt))
			}
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	if len(lat) > 0 {
		p50, p99 := quantile(lat, 0.5), quantile(lat, 0.99)
		f.E2EP50Ms, f.E2EP99Ms = &p50, &p99
	}
	for _, p := range m.series {
		f.BacklogMax = max(f.BacklogMax, float64(p.Backlog))
	}
	return f
}

// quantile is the nearest-rank quantile of sorted values.
func quantile(sorted []int64, q float64) float64 {
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return float64(sorted[min(max(k, 0), len(sorted)-1)])
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

// shift moves every time the meter holds by -offset ms (clamped at 0): scenario time 0 is
// the start of production.
func (m *meter) shift(offset int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := func(t int64) int64 { return max(0, t-offset) }
	for _, s := range m.produced {
		for k, v := range s {
			s[k] = f(v)
		}
	}
	for _, g := range m.groups {
		for _, s := range g.completedAt {
			for k, v := range s {
				s[k] = f(v)
			}
		}
		for _, s := range g.finishedAt {
			for k, v := range s {
				s[k] = f(v)
			}
		}
		for i := range g.dupEvents {
			g.dupEvents[i] = f(g.dupEvents[i])
		}
	}
	for i := range m.series {
		m.series[i].TimeMs = f(m.series[i].TimeMs)
	}
}

// accounting puts every offset of a share group's partitions in one of sim.Accounting's
// buckets, from what the history showed (final outcomes, highest delivery count) and the
// broker's answers at the end: the group's start offsets (spso), log start and end offsets.
// An offset the history shows ending two different ways is counted in both buckets, which
// unbalances the sum (records-accounted fails).
//
//   - a final outcome seen (ACCEPT, REJECT, GAP, RELEASE at the limit): finished below the
//     start offset, terminal in the cache above it;
//   - delivered, no final outcome: below the start offset, archived at the limit (lock
//     expiry at the limit), archived by the log start, finished by an acknowledgement whose
//     answer was lost ("unconfirmed"), or silently lost; above it, unfinished;
//   - never delivered: below the log start, deleted before delivery; below the group's
//     first delivery on the partition and the start offset, skipped by the offset reset;
//     below the start offset otherwise, silently lost; above it, unfinished (unread).
func (m *meter) accounting(g sim.Group, spso, logStart, logEnd map[string]int64) sim.Accounting {
	m.mu.Lock()
	defer m.mu.Unlock()
	gm := m.groups[g.Name]
	a := sim.Accounting{Finished: map[string]int64{}, TerminalInCache: map[string]int64{}, Unfinished: map[string]int64{}}
	parts := make([]string, 0, len(logEnd))
	for p := range logEnd {
		for _, t := range g.Topics {
			if topicOf(p) == t {
				parts = append(parts, p)
			}
		}
	}
	sort.Strings(parts)
	for _, p := range parts {
		end, ls := logEnd[p], logStart[p]
		start, known := spso[p]
		if !known {
			start = 0
		}
		fin, dcs := gm.final[p], gm.maxDC[p]
		first := int64(-1)
		for off := range dcs {
			if first < 0 || off < first {
				first = off
			}
		}
		a.Offsets += end
		for off := int64(0); off < end; off++ {
			below := off < start
			out, done := fin[off]
			dc := dcs[off]
			switch {
			case done && below:
				a.Finished[out]++
			case done:
				a.TerminalInCache[out]++
			case dc > 0 && below && int(dc) >= m.limit:
				a.Finished["limit"]++
			case dc > 0 && below && off < ls:
				a.Finished["log-start"]++
			case dc > 0 && below && gm.maybe[p][off]:
				// Acknowledged by a request whose answer was lost: it may have applied.
				a.Finished["unconfirmed"]++
			case dc > 0 && below:
				a.SilentLoss++
			case dc > 0:
				a.Unfinished["delivered"]++
			case off < ls:
				a.DeletedUndelivered++
			case below && (first < 0 || off < first):
				a.SkippedByOffsetReset++
			case below:
				a.SilentLoss++
			default:
				a.Unfinished["unread"]++
			}
		}
	}
	var sum int64
	for _, v := range a.Finished {
		sum += v
	}
	for _, v := range a.TerminalInCache {
		sum += v
	}
	for _, v := range a.Unfinished {
		a.UnfinishedTotal += v
	}
	sum += a.UnfinishedTotal + a.DeletedUndelivered + a.SkippedByOffsetReset + a.SilentLoss + a.NoRecord + gm.conflicts
	a.Sum, a.Balanced = sum, sum == a.Offsets
	return a
}

func (g *groupMeter) completedCount() int64 {
	var n int64
	for _, s := range g.completedAt {
		n += int64(len(s))
	}
	return n
}
