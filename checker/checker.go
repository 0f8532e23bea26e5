// Package checker holds sharesim's checks: a catalogue of named invariants evaluated while a
// simulation runs (sim.Options.Observer), checks on the client-visible history, and liveness
// checks after the healing phase. Each check is named after what it protects and documents the
// Kafka rule or bug behind it.
package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sharesim/sharesim/checker/linearize"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Violation is one failed check.
type Violation struct {
	Check     string `json:"check"`
	Message   string `json:"message"`
	TimeMs    int64  `json:"time_ms"`
	Event     int64  `json:"event"`
	Group     string `json:"group,omitempty"`
	Partition string `json:"partition,omitempty"`
	Offsets   string `json:"offsets,omitempty"`
	Member    string `json:"member,omitempty"`
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %d ms (event %d)", v.Check, v.TimeMs, v.Event)
	if v.Partition != "" {
		fmt.Fprintf(&b, " on %s/%s", v.Group, v.Partition)
	}
	if v.Offsets != "" {
		fmt.Fprintf(&b, " offsets %s", v.Offsets)
	}
	if v.Member != "" {
		fmt.Fprintf(&b, " member %s", v.Member)
	}
	fmt.Fprintf(&b, ": %s", v.Message)
	return b.String()
}

// Info describes one check of the catalogue.
type Info struct {
	Name string
	// When is "event" (after every event), "deep" (about every DeepEvery events, and at the end),
	// "history" (on the client-visible history) or "end" (after the run).
	When string
	Doc  string
}

// Catalogue lists every check, in a fixed order.
var Catalogue = []Info{
	{"inflight-within-cap", "event", "The in-flight window SPEO−SPSO+1 never exceeds group.share.partition.max.record.locks by more than one producer batch (4.2 trims inside acquire; 4.1 only gates, so it may overshoot by a fetch). Kafka once exceeded the cap when many members released at once."},
	{"spso-monotonic", "event", "A leader's SPSO never moves backwards, except to below the log start offset after a log-start jump (the head rule's step 3, as Kafka does). 4.1 moved SPSO backwards in step 4 after a log-start jump (fixed by KAFKA-19859)."},
	{"core-consistent", "deep", "The share-partition's structure holds: cached batches ordered and disjoint, an owner exactly when ACQUIRED or pending, every live lock in the deadline heap, counters right, no AVAILABLE record at the delivery limit (4.2), exactly one live lock per ACQUIRED record (4.2)."},
	{"terminal-states-absorbing", "deep", "An offset seen ACKNOWLEDGED or ARCHIVED with no write outstanding never shows another state on the same leader (a lock firing during an acknowledgement once turned an accepted record available again); one seen ARCHIVING (4.4's dead-letter queue) only becomes ARCHIVED."},
	{"accepted-never-redelivered", "history", "A record whose ACCEPT the client saw succeed is never delivered again (barring admin offset resets)."},
	{"acquired-ranges-ordered", "history", "The ranges of one fetch result are ascending and disjoint, and every delivery count is at least 1."},
	{"linearizable", "history", "The client-visible history (fetch results and acknowledgement outcomes, lost ones included) is linearizable, offset by offset, against a sequential specification of a share-partition (checker/linearize): no record held by two clients unless the first one's lock could have run out or been released, nothing delivered again after a successful ACCEPT, REJECT or release at the limit, acknowledgements succeed only for the holder, delivery counts step by one except where a reload or an unseen fetch explains it. Hidden events of the run (failovers, member deaths, forced lock expiry, log-start moves, compaction) are allowed for."},
	{"no-silent-loss", "end", "No record is passed by a share-partition's start offset without a final state (acknowledged, archived, or deleted by the log start), during the run or found at its end (sim.Accounting's silent_loss); records deleted before the group first read the partition count as deleted, not lost; from Kafka 4.4 a partition added to a topic the group reads must begin at offset 0 (KAFKA-20742), before that share.auto.offset.reset's skip is not a loss."},
	{"records-accounted", "end", "Every offset of every group's partitions ends in exactly one bucket (sim.Accounting): completed or archived by cause, passed holding no record, deleted before delivery (also before the group first read the partition), skipped by the offset reset, silently lost, or unfinished by state; the buckets add up to the log end offsets. A miscount anywhere in the simulator's bookkeeping fails it."},
	{"dlq-exactly-once", "end", "Kafka 4.4 with the dead-letter queue on: every record rejected or archived at the delivery limit ended exactly one dead-letter-queue step (produced, or archived after every attempt failed), except the documented ones: a failed write whose lock had fired archives at the limit with no DLQ step (Kafka's rollback), records below SPSO are archived directly, and a new leader resends a batch persisted ARCHIVING, so the topic can hold a record twice (counted as duplicates in the group's dead_letter_queue figures, not a failure)."},
	{"liveness", "end", "After the healing phase every partition has drained, for every group: a share-partition's SPSO reached the log end (or everything left is terminal) and nothing is ACQUIRED; a classic group committed up to the log end. A group that did not keep up during production is reported once, with the capacity bound that explains it."},
}

// DefaultChecks are the checks run when a scenario names none.
var DefaultChecks = []string{"inflight-within-cap", "spso-monotonic", "core-consistent", "terminal-states-absorbing",
	"accepted-never-redelivered", "acquired-ranges-ordered", "linearizable", "no-silent-loss", "records-accounted", "dlq-exactly-once", "liveness"}

// DeepEvery is how often (in events) the deep checks run, at most; they also run at the
// end. A pass costs the records cached on every leader, so a pass that visited more than
// DeepEvery of them puts the next one off by as many events: the deep checks visit at
// most one cached record per event on average, and each record is still seen by as many
// passes while it is cached as in a world with DeepEvery records in flight. (The bug
// zoo's worlds cache fewer, so their passes come every DeepEvery events.)
const DeepEvery = 997

// Checker evaluates checks on one run.
type Checker struct {
	cfg sim.Config
	on  map[string]bool
	// is holds the checks of on that run per event or per operation, resolved once (New).
	is     enabled
	events int64
	// nextDeep is the event after which the deep checks run next.
	nextDeep int64
	maxOver  int64
	sps      map[spKey]*spState
	// byPos caches sps by position in sim.World.SharePartitions' order (Observe), and
	// seen what observeCores needs of them.
	byPos []*spState
	seen  []seenCore
	// capLimit is inflight-within-cap's bound while the cap does not change.
	capLimit int64
	// tl holds each group's timeline of the configuration in force.
	tl     *timelines
	out    []Violation
	outTag []uint64 // when each violation was found (tag)
	curTag uint64
	limit  int

	// h holds the history checks (history.go); pipe, when set, runs them on a goroutine
	// of their own (Attach, from the first message on). nowMs is the virtual time of the last event observed, and
	// pendMin and pendMax bound the return times of the operations handed over and not
	// yet known checked (a tick is due once virtual time passes pendMin).
	h                *histChecks
	pipe             *histPipe
	beside           bool // Attach: run the history checks beside the simulation (pipe)
	syncHistory      bool // keep the history checks on the simulation's goroutine (tests)
	nowMs            int64
	pendMin, pendMax int64
}

// The phases of an event's observation and of Finish, in the order in which they find
// violations: with the event's number they tag each violation (tag), so that the checks
// run beside the simulation keep the order and the limit of a run that checks everything
// in turn.
const (
	phaseObserve uint64 = iota // per-event and deep checks
	phaseEvent                 // what the event did (sessions.go)
	phaseDrain                 // history checks on the operations that returned
	phaseFinishDeep
	phaseFinishHistory
	phaseFinishLinearizable
	phaseFinishEnd
)

// tag is the tag of a violation found now in phase.
func (c *Checker) tag(phase uint64) uint64 { return uint64(c.events)<<3 | phase }

// timelines holds, per group, the timeline of the configuration in force, for the groups
// whose configuration changes during the run; read-only after New.
type timelines struct{ byGroup map[string]sim.InForce }

// changing returns the named group's timeline when its configuration changes during the
// run (false, at once, for runs without config changes).
func (t *timelines) changing(group string) (sim.InForce, bool) {
	if t == nil || t.byGroup == nil {
		return sim.InForce{}, false
	}
	in, ok := t.byGroup[group]
	return in, ok
}

// spKey names a share-partition: its group and partition.
type spKey struct{ group, part string }

type spState struct {
	group, part string
	core        *model.SharePartition
	spso        int64
	// speo and seenMs are the end offset and the time at the last observation
	// (inflight-within-cap under config changes).
	speo, seenMs int64
	terminal     terminalRuns // terminal-states-absorbing
	ev           spEvents     // sessions.go
	// inForce is the group's timeline of the configuration in force when changing.
	inForce  sim.InForce
	changing bool
}

// New returns a checker running the named checks (DefaultChecks when names is empty).
func New(cfg sim.Config, names []string) (*Checker, error) {
	if len(names) == 0 {
		names = DefaultChecks
	}
	c := &Checker{cfg: cfg, nextDeep: DeepEvery, on: map[string]bool{}, sps: map[spKey]*spState{}, limit: 100, pendMin: inf, pendMax: -inf}
	c.tl = &timelines{}
	if steps := c.cfg.ConfigSteps(); steps != nil {
		c.tl.byGroup = map[string]sim.InForce{}
		for gi, g := range c.cfg.Groups {
			if in := sim.InForceFor(&c.cfg, steps, int32(gi)); in.Changes() {
				c.tl.byGroup[g.Name] = in
			}
		}
	}
	for _, n := range names {
		if !known(n) {
			return nil, fmt.Errorf("unknown check %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		c.on[n] = true
	}
	c.is = enabledOf(c.on)
	c.h = newHistChecks(&c.cfg, &c.is, c.tl, c.limit)
	maxBatch := int64(1)
	for _, p := range cfg.Producers {
		maxBatch = max(maxBatch, p.MaxBatchRecords(), int64(p.BurstRecords))
	}
	c.maxOver = maxBatch
	if cfg.Kafka.Version < model.Kafka42 {
		maxPoll := int64(0)
		for _, g := range cfg.Groups {
			for _, cs := range g.Consumers {
				maxPoll = max(maxPoll, int64(cs.MaxPollRecords))
			}
		}
		c.maxOver += maxPoll
	}
	c.capLimit = int64(cfg.Kafka.PartitionMaxRecordLocks) + c.maxOver
	return c, nil
}

func known(n string) bool {
	for _, i := range Catalogue {
		if i.Name == n {
			return true
		}
	}
	return false
}

// Names lists the check names.
func Names() []string {
	out := make([]string, len(Catalogue))
	for i, c := range Catalogue {
		out[i] = c.Name
	}
	return out
}

// enabled says which of the checks that run per event or per history operation are on,
// so that those paths read no map.
type enabled struct {
	inflightCap, spsoMonotonic, coreConsistent, terminalAbsorbing          bool
	acceptedOnce, rangesOrdered, linearizable                              bool
	leaveReleases, olderEpochWrite, deliveryCounts, deliveryLimit, belowLS bool
	// history: any history check; perEvent: a check that looks at every share-partition
	// after every event (delivery-count-monotonic notes the leader's reloads); deep: a
	// check that runs every DeepEvery events.
	history, perEvent, deep bool
}

func enabledOf(on map[string]bool) enabled {
	e := enabled{
		inflightCap: on["inflight-within-cap"], spsoMonotonic: on["spso-monotonic"],
		coreConsistent: on["core-consistent"], terminalAbsorbing: on["terminal-states-absorbing"],
		acceptedOnce: on["accepted-never-redelivered"], rangesOrdered: on["acquired-ranges-ordered"], linearizable: on["linearizable"],
		leaveReleases: on[checkLeaveReleasesAll], olderEpochWrite: on[checkNoOlderEpochWrite],
		deliveryCounts: on[checkDeliveryCounts], deliveryLimit: on[checkDeliveryLimit], belowLS: on[checkBelowLogStart],
	}
	e.history = e.acceptedOnce || e.rangesOrdered || e.linearizable || e.deliveryCounts || e.deliveryLimit || e.belowLS
	e.perEvent = e.inflightCap || e.spsoMonotonic || e.deliveryCounts
	e.deep = e.coreConsistent || e.terminalAbsorbing
	return e
}

// NeedsHistory reports whether a history check is on (the run must record the history:
// Attach, or sim.Options.RecordHistory).
func (c *Checker) NeedsHistory() bool { return c.is.history }

func (c *Checker) report(v Violation) {
	if len(c.out) < c.limit {
		c.out, c.outTag = append(c.out, v), append(c.outTag, c.curTag)
	}
}

// Observe is the sim.Options.Observer: it runs the per-event checks, the deep ones about
// every DeepEvery events (see there), and the history checks on the operations that have
// returned.
func (c *Checker) Observe(w *sim.World) {
	c.events++
	c.curTag = c.tag(phaseObserve)
	deep := c.events >= c.nextDeep
	if deep {
		c.nextDeep = c.events + max(DeepEvery, c.observeAllSynced(w, true))
	} else if c.is.perEvent {
		c.observeCores(w)
	}
	c.curTag = c.tag(phaseEvent)
	c.observeEvent(w)
	if c.h.streaming {
		c.nowMs = w.NowMs()
		if c.pendMin < c.nowMs {
			// Check the operations that returned before now. What is left returned now
			// (a later operation returned no later than the event that recorded it).
			c.toHist(histMsg{kind: msgTick, a: c.nowMs, tag: c.tag(phaseDrain)})
			if c.pendMax >= c.nowMs {
				c.pendMin = c.nowMs
			} else {
				c.pendMin, c.pendMax = inf, -inf
			}
		}
		if c.events%DeepEvery == 0 {
			c.advanceFloors(w)
		}
	}
}

// observeAll runs the per-event checks, and the deep ones when deep, on every
// share-partition; it returns how many offsets the leaders hold in flight.
func (c *Checker) observeAll(w *sim.World, deep bool) int64 {
	pos, n := 0, int64(0)
	w.SharePartitions(func(i sim.SharePartitionInfo) {
		st := c.statePos(pos, &i)
		pos++
		c.observe(w, &i, st)
		if deep {
			c.deep(w, &i, st)
		}
		if i.Core != nil {
			n += i.Core.InFlightCount()
		}
	})
	return n
}

// observeCores runs the per-event checks from the leaders' share-partitions alone
// (sim.World.ShareCore) and what seen remembers of them, going through SharePartitions
// (observeAll) only when a share-partition was added or reloaded, its cap changes during
// the run, or a check needs more (a window above the cap, a start offset that moved back).
func (c *Checker) observeCores(w *sim.World) {
	capOn, spsoOn, capLimit := c.is.inflightCap, c.is.spsoMonotonic, c.capLimit
	seen := c.seen
	for k := range seen {
		s := &seen[k]
		core, ok := w.ShareCore(k)
		switch {
		case !ok || core != s.core:
			c.observeAllSynced(w, false)
			return
		case core == nil:
			continue
		case capOn && core.InFlightCount() > capLimit:
			c.observeAllSynced(w, false)
			return
		}
		if spsoOn {
			spso := core.StartOffset()
			if spso < s.spso {
				c.observeAllSynced(w, false)
				return
			}
			s.spso = spso
		}
	}
	if _, more := w.ShareCore(len(seen)); more || len(seen) == 0 {
		c.observeAllSynced(w, false) // a share-partition was added (or none seen yet)
	}
}

// seenCore is what observeCores remembers of the share-partition at one position: its
// leader's share-partition (nil when any change must go through observeAll: a cap that
// changes) and the SPSO last seen (spso-monotonic).
type seenCore struct {
	core *model.SharePartition
	spso int64
}

// observeAllSynced is observeAll beside observeCores: the SPSOs observeCores saw go to
// the share-partitions' state first, and what observeAll leaves comes back.
func (c *Checker) observeAllSynced(w *sim.World, deep bool) int64 {
	for k := range min(len(c.seen), len(c.byPos)) {
		c.byPos[k].spso = c.seen[k].spso
	}
	n := c.observeAll(w, deep)
	c.syncSeen()
	return n
}

// syncSeen copies what observeCores needs from the share-partitions' state.
func (c *Checker) syncSeen() {
	c.seen = c.seen[:0]
	for _, st := range c.byPos {
		core := st.core
		if st.ev.core != core || st.changing || core == nil {
			core = nil
		}
		c.seen = append(c.seen, seenCore{core: core, spso: st.spso})
	}
}

// statePos is state for the share-partition at position pos of sim.World.SharePartitions'
// order, found without building its key while the order stays the same.
func (c *Checker) statePos(pos int, i *sim.SharePartitionInfo) *spState {
	if pos < len(c.byPos) {
		if st := c.byPos[pos]; st.group == i.Group && st.part == i.Partition {
			if st.core != i.Core {
				c.newCore(st, i)
			}
			return st
		}
	}
	st := c.state(i)
	for len(c.byPos) <= pos {
		c.byPos = append(c.byPos, nil)
	}
	c.byPos[pos] = st
	return st
}

// state returns the checker's state of a share-partition, reset when its leader's
// share-partition changed.
func (c *Checker) state(i *sim.SharePartitionInfo) *spState {
	key := spKey{i.Group, i.Partition}
	st := c.sps[key]
	if st == nil {
		st = &spState{group: i.Group, part: i.Partition}
		st.inForce, st.changing = c.tl.changing(i.Group)
		c.sps[key] = st
	}
	if st.core != i.Core {
		c.newCore(st, i)
	}
	return st
}

// newCore notes a new leader or a reload: its SPSO comes from the durable state.
func (c *Checker) newCore(st *spState, i *sim.SharePartitionInfo) {
	st.core, st.spso = i.Core, -1
	st.terminal.reset()
	if i.Core != nil {
		st.spso = i.Core.StartOffset()
	}
}

// observe runs the per-event checks on one share-partition.
func (c *Checker) observe(w *sim.World, i *sim.SharePartitionInfo, st *spState) {
	if st.ev.core != i.Core {
		c.observeCore(w, i, st)
	}
	core := i.Core
	if core == nil {
		return
	}
	if c.is.inflightCap {
		if st.changing {
			// The cap in force changed: a window above a lowered cap stays until it drains,
			// and only a fetch that found the window below the cap in force may grow it. So
			// the window must lie within the cap plus the overshoot whenever the end offset
			// grew since the last observation, for some cap in force in between.
			speo := core.EndOffset()
			if _, hi := st.inForce.Range(st.seenMs, w.NowMs(), sim.CapOf); speo > st.speo && core.InFlightCount() > hi+c.maxOver {
				c.report(c.at(w, i, "inflight-within-cap", fmt.Sprintf("in-flight window %d grew above the cap in force %d plus %d", core.InFlightCount(), hi, c.maxOver), ""))
			}
			st.speo, st.seenMs = speo, w.NowMs()
		} else if n := core.InFlightCount(); n > c.capLimit {
			c.report(c.at(w, i, "inflight-within-cap", fmt.Sprintf("in-flight window %d exceeds the cap %d plus %d", n, c.cfg.Kafka.PartitionMaxRecordLocks, c.maxOver), ""))
		}
	}
	if c.is.spsoMonotonic {
		spso := core.StartOffset()
		if spso < st.spso && (spso >= i.LogStartOffset || core.InFlightCount() > 0) { // only step 3 may go below the log start
			c.report(c.at(w, i, "spso-monotonic", fmt.Sprintf("SPSO moved back from %d to %d (log start %d)", st.spso, spso, i.LogStartOffset), ""))
		}
		st.spso = spso
	}
}

// at is a violation of check on one share-partition, now.
func (c *Checker) at(w *sim.World, i *sim.SharePartitionInfo, check, msg, offsets string) Violation {
	return Violation{Check: check, Message: msg, TimeMs: w.NowMs(), Event: c.events, Group: i.Group, Partition: i.Partition, Offsets: offsets}
}

// deep runs the O(window) checks on one share-partition.
func (c *Checker) deep(w *sim.World, i *sim.SharePartitionInfo, st *spState) {
	core := i.Core
	if core == nil {
		return
	}
	at := func(check, msg, offsets string) Violation { return c.at(w, i, check, msg, offsets) }
	if c.is.coreConsistent {
		if err := core.CheckConsistency(); err != nil {
			c.report(at("core-consistent", err.Error(), ""))
		}
	}
	if c.is.terminalAbsorbing {
		st.terminal.pass(core.StartOffset(), core.ForEachStateRun, func(off int64, prev, now model.State) {
			c.report(at("terminal-states-absorbing", fmt.Sprintf("offset was %s, now %s", prev, now), fmt.Sprint(off)))
		})
	}
}

// Finish runs the end-of-run and history checks and returns every violation, in order.
func (c *Checker) Finish(w *sim.World, res *sim.Result) []Violation {
	c.Close()
	c.curTag = c.tag(phaseFinishDeep)
	w.SharePartitions(func(i sim.SharePartitionInfo) {
		c.deep(w, &i, c.state(&i))
	})
	c.finishHistory(res)
	c.curTag = c.tag(phaseFinishEnd)
	if c.on["no-silent-loss"] {
		c.checkNoSilentLoss(res)
		c.checkNewPartitions(w, res)
	}
	if c.on["records-accounted"] {
		c.checkAccounted(res)
	}
	if c.on["dlq-exactly-once"] {
		c.checkDLQ(res)
	}
	if c.on["liveness"] && c.cfg.HealMs > 0 {
		c.checkLiveness(res)
	}
	c.out = mergeTagged(c.out, c.outTag, c.h.out, c.h.outTag, c.limit)
	sort.SliceStable(c.out, func(a, b int) bool {
		if c.out[a].TimeMs != c.out[b].TimeMs {
			return c.out[a].TimeMs < c.out[b].TimeMs
		}
		return c.out[a].Event < c.out[b].Event
	})
	return c.out
}

// checkDLQ reports records that reached neither the dead-letter topic nor a failed DLQ step
// without a documented reason (sim.DLQMetrics.Unexplained).
func (c *Checker) checkDLQ(res *sim.Result) {
	for i := range res.Metrics.Groups {
		g := &res.Metrics.Groups[i]
		if q := g.DeadLetterQueue; q != nil && q.Unexplained > 0 {
			c.report(Violation{Check: "dlq-exactly-once", TimeMs: res.EndMs, Event: res.Events, Group: g.Name,
				Message: fmt.Sprintf("%d records were rejected or archived at the delivery limit with the dead-letter queue on and never ended a DLQ step (%d such records, %d explained by rollbacks after a fired lock)",
					q.Unexplained, q.BypassedAtLimit, q.BypassedAtLimit-q.Unexplained)})
		}
	}
}

// behind reports whether an undrained partition looks merely behind, not stuck: it still
// made progress while healing and its consumers are working on it (records in flight). A
// partition with unfinished records and nothing in flight is not being served.
func behind(f sim.FinalState) bool { return f.ProgressedWhileHealing && f.InFlight > 0 }

// checkLiveness reports partitions not drained after the healing phase. A group that did not
// keep up during production gets one line saying so, with the reason, for the partitions that
// were still making progress while healing: their backlog is a capacity problem. A partition
// that made no progress is stuck and is reported on its own.
func (c *Checker) checkLiveness(res *sim.Result) {
	overloaded := map[string]*sim.GroupMetrics{}
	for i := range res.Metrics.Groups {
		if g := &res.Metrics.Groups[i]; !g.KeepUp.KeptUp {
			overloaded[g.Name] = g
		}
	}
	undrained, parts := map[string]int{}, map[string]int{}
	for _, f := range res.Final {
		parts[f.Group]++
		if (!f.Drained || f.Acquired > 0) && behind(f) {
			undrained[f.Group]++
		}
	}
	reported := map[string]bool{}
	for _, f := range res.Final {
		if f.Drained && f.Acquired == 0 {
			continue
		}
		if g := overloaded[f.Group]; g != nil && behind(f) {
			if !reported[f.Group] {
				reported[f.Group] = true
				c.report(Violation{Check: "liveness", TimeMs: res.EndMs, Event: res.Events, Group: f.Group,
					Message: fmt.Sprintf("group %s did not drain %d of %d partitions after the healing phase (they were still making progress) because it did not keep up during production: %s",
						f.Group, undrained[f.Group], parts[f.Group], g.KeepUp.Reason)})
			}
			continue
		}
		c.report(Violation{Check: "liveness", TimeMs: res.EndMs, Event: res.Events, Group: f.Group, Partition: f.Partition,
			Message: fmt.Sprintf("not drained after the healing phase: start offset %d, log end %d, %d in flight, %d acquired", f.StartOffset, f.LogEnd, f.InFlight, f.Acquired)})
	}
}

// Linearizability is the linearizability check's result, nil when it did not run. Its
// verdict is Unknown (not a violation) when a share-partition ran out of time.
func (c *Checker) Linearizability() *linearize.Result {
	if c == nil {
		return nil
	}
	return c.h.lin
}

// WriteLinearizabilityHTML writes porcupine's visualisation of the offsets whose history is
// not linearizable to path, and reports whether it did (only when the check failed).
func (c *Checker) WriteLinearizabilityHTML(path string) (bool, error) {
	if !c.Linearizability().Failed() {
		return false, nil
	}
	return true, c.h.lin.VisualizeFile(path)
}

// checkNoSilentLoss reports records the start offset passed without a final state, during
// the run or found at its end.
func (c *Checker) checkNoSilentLoss(res *sim.Result) {
	for _, g := range res.Metrics.Groups {
		if n := g.Accounting.SilentLoss; n > 0 {
			c.report(Violation{Check: "no-silent-loss", TimeMs: res.EndMs, Event: res.Events, Group: g.Name,
				Message: fmt.Sprintf("group %s: %d records were passed by the start offset with no final state (neither acknowledged, archived nor deleted)", g.Name, n)})
		}
	}
}

// checkAccounted reports a group whose offsets do not add up.
func (c *Checker) checkAccounted(res *sim.Result) {
	for _, g := range res.Metrics.Groups {
		if a := g.Accounting; !a.Balanced {
			c.report(Violation{Check: "records-accounted", TimeMs: res.EndMs, Event: res.Events, Group: g.Name,
				Message: fmt.Sprintf("group %s: %d offsets produced but the buckets add up to %d (finished %v, in cache %v, no record %d, deleted %d, skipped %d, lost %d, unfinished %v)",
					g.Name, a.Offsets, a.Sum, a.Finished, a.TerminalInCache, a.NoRecord, a.DeletedUndelivered, a.SkippedByOffsetReset, a.SilentLoss, a.Unfinished)})
		}
	}
}

// mergeTagged merges two lists of violations, each in the order found, by their tags
// (when they were found), and keeps the first limit.
func mergeTagged(a []Violation, at []uint64, b []Violation, bt []uint64, limit int) []Violation {
	out := make([]Violation, 0, min(len(a)+len(b), limit))
	i, j := 0, 0
	for len(out) < limit && (i < len(a) || j < len(b)) {
		if j == len(b) || i < len(a) && at[i] <= bt[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}
