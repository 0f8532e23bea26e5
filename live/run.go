package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/rng"
)

// attempt is what one live run of a scenario recorded.
type attempt struct {
	ops     int // operations recorded
	suspect int // of them, outcomes a deviation may have falsified
	// hv is the history checks' verdict; shadow the verdict of the checks a known
	// error-code-only deviation can fail, with the outcomes it can falsify taken as
	// unknown (nil: no such check).
	hv, shadow *checker.HistoryVerdict
	meter      *meter
	accounting map[string]sim.Accounting
	// final holds the partitions' end states (liveness); undecided the partitions not
	// drained only because acknowledgements' answers were lost.
	final       []sim.FinalState
	undecided   []string
	late        int64
	interrupted bool
	drained     bool
	notes       []string
	applied     []string
	elapsed     time.Duration
	offsetMs    int64 // production started this long after the clients
}

// runner drives one live attempt.
type runner struct {
	cfg     sim.Config // scaled
	seed    uint64
	cl      *cluster
	rec     *recorder
	meter   *meter
	ctx     context.Context // the clients' context: cancelled only after the drain
	wg      sync.WaitGroup
	startAt time.Time
	stopC   chan struct{} // closed when the run stops (faults stop restarting clients)

	mu        sync.Mutex
	notes     []string
	stopped   bool
	outageEnd time.Time
	stallEnd  time.Time
	instances []*instance
	logStart  map[string]int64 // "topic/p" → highest log start seen
	parts     map[string]int   // topic → partitions, once an add-partitions fault changed it
	probe     func(atMs int64, retained, window, ops int)
}

func (r *runner) note(s string) {
	r.mu.Lock()
	r.notes = append(r.notes, s)
	r.mu.Unlock()
}

// spawn runs f on a goroutine the run waits for, unless the run is stopping (then it
// reports false): no goroutine is added once the run waits for them.
func (r *runner) spawn(f func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return false
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
	return true
}

func (r *runner) stopping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

func (r *runner) outage() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Now().Before(r.outageEnd)
}

func (r *runner) renewStalled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Now().Before(r.stallEnd)
}

// untilMs waits until scenario time atMs or until stop closes.
func (r *runner) untilMs(stop <-chan struct{}, atMs int64) bool {
	return sleepCtx(stop, time.Until(r.startAt.Add(time.Duration(atMs)*time.Millisecond)))
}

// runAttempt runs cfg (already scaled) once against target. interrupt ends production
// early (Ctrl-C); the attempt still drains, closes its clients, and returns what it saw.
func runAttempt(interrupt context.Context, cfg sim.Config, seed uint64, target Target, historyOut string, progress io.Writer, ck checks, win sim.Window, probe func(int64, int, int, int)) (*attempt, error) {
	main, err := checker.NewHistoryStream(cfg, ck.names)
	if err != nil {
		return nil, err
	}
	var shadow *checker.HistoryStream
	if len(ck.shadow) > 0 {
		if shadow, err = checker.NewHistoryStream(cfg, ck.shadow); err != nil {
			return nil, err
		}
	}
	began := time.Now()
	setup, cancelSetup := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancelSetup()
	cl, err := openCluster(setup, target, &cfg)
	if err != nil {
		return nil, err
	}
	cleaned := false
	cleanup := func() error {
		if cleaned {
			return nil
		}
		cleaned = true
		// Long enough for the broker to drop a killed member at its session timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second+time.Duration(cfg.Membership.SessionTimeoutMs)*time.Millisecond)
		defer cancel()
		return cl.cleanup(ctx)
	}
	defer cleanup()
	if err := cl.createTopics(setup, &cfg); err != nil {
		return nil, err
	}
	for _, g := range cfg.Groups {
		if err := cl.setGroupConfigs(setup, g, cfg.Kafka, cfg.Membership); err != nil {
			return nil, err
		}
	}
	var hw *reports.HistoryWriter
	if historyOut != "" {
		if hw, err = reports.CreateHistory(historyOut); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &runner{cfg: cfg, seed: seed, cl: cl, meter: newMeter(&cfg, win), ctx: ctx, stopC: make(chan struct{}), logStart: map[string]int64{}}
	r.startAt = time.Now()
	r.rec = newRecorder(r.startAt, hw)
	r.probe = probe
	fmt.Fprintf(progress, "live: %s, topics and groups prefixed %s\n", describeTarget(target, cl, cfg.Kafka.RecordLockDurationMs), cl.prefix)

	// Consumers first; production starts once every share-partition is initialised, so
	// the offset reset sees the records as the simulator does.
	for _, g := range cfg.Groups {
		for _, sp := range g.Consumers {
			for k := 0; k < sp.Count; k++ {
				name := sp.Name
				if sp.Count > 1 {
					name = sp.Name + "-" + strconv.Itoa(k)
				}
				in := &instance{r: r, group: g, spec: sp, name: name}
				r.instances = append(r.instances, in)
				start := func() {
					if err := in.start(); err != nil {
						r.note(err.Error())
					}
				}
				if sp.StartMs <= 0 {
					start()
				} else {
					r.wg.Add(1)
					go func() {
						defer r.wg.Done()
						if r.untilMs(r.stopC, sp.StartMs) {
							start()
						}
					}()
				}
			}
		}
	}
	if late := r.waitInitialised(interrupt); late > 0 {
		r.note(fmt.Sprintf("production starts %d ms after the consumers: the share-partitions were initialised then", late))
		r.startAt = r.startAt.Add(time.Duration(late) * time.Millisecond)
	}
	offset := r.startAt.Sub(r.rec.start).Milliseconds()
	r.meter.setOffset(offset)
	fd := &feeder{rec: r.rec, meter: r.meter, offset: offset, main: main, shadow: shadow, share: map[string]bool{}}
	for _, g := range cfg.Groups {
		fd.share[g.Name] = g.Type == sim.ShareGroup
	}
	feedStop, feedDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(feedDone)
		fd.run(feedStop)
	}()

	stopProd := make(chan struct{})
	var prodWG sync.WaitGroup
	for i, p := range cfg.Producers {
		prodWG.Add(1)
		go func() {
			defer prodWG.Done()
			if err := r.producer(p, i, stopProd); err != nil {
				r.note(err.Error())
			}
		}()
	}
	var bgWG sync.WaitGroup
	bg := make(chan struct{})
	r.scheduleFaults(&bgWG, bg)
	bgWG.Add(1)
	go func() {
		defer bgWG.Done()
		r.watch(bg)
	}()

	interrupted := false
	select {
	case <-interrupt.Done():
		interrupted = true
	case <-time.After(time.Until(r.startAt.Add(time.Duration(cfg.DurationMs) * time.Millisecond))):
	}
	close(stopProd)
	prodWG.Wait()
	fmt.Fprintf(progress, "live: production ended at %.1f s, draining\n", time.Since(r.startAt).Seconds())
	r.meter.healing(r.groupFloors())

	// The drain: consumers go on until every share-partition's start offset reached the
	// log end, for the healing phase (at least two lock durations, so released and expired
	// records come back), shorter when interrupted.
	heal := time.Duration(max(cfg.HealMs, 2*cfg.Kafka.RecordLockDurationMs)) * time.Millisecond
	if interrupted {
		heal = min(heal, time.Duration(2*cfg.Kafka.RecordLockDurationMs)*time.Millisecond+time.Second)
	}
	drained := r.drain(heal)
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	close(r.stopC)
	close(bg)
	bgWG.Wait()
	var stopWG sync.WaitGroup
	for _, in := range r.instances {
		stopWG.Add(1)
		go func() {
			defer stopWG.Done()
			in.stop()
		}()
	}
	stopWG.Wait()
	r.meter.sample(r.rec.returnMs())
	cancel()
	r.wg.Wait()
	// Every client is closed: every request was answered or found lost. The last step
	// hands over the rest of the history.
	close(feedStop)
	<-feedDone
	a := &attempt{meter: r.meter, interrupted: interrupted, drained: drained, applied: cl.applied, offsetMs: offset}
	var ferr error
	a.accounting, a.final, a.undecided, ferr = r.finalAccounting()
	if hw != nil {
		if err := hw.Close(); err != nil {
			r.note(err.Error())
		}
	}
	a.ops, a.suspect = r.rec.counts()
	a.hv = main.Verdict()
	if shadow != nil {
		a.shadow = shadow.Verdict()
	}
	r.meter.mu.Lock()
	a.late = r.meter.late
	r.meter.mu.Unlock()
	a.notes, a.elapsed = r.notes, time.Since(began)
	if ferr != nil {
		a.notes = append(a.notes, "accounting: "+ferr.Error())
	}
	if a.late > 0 {
		a.notes = append(a.notes, fmt.Sprintf("%d processings of records the meter had already folded (their duplicates are not counted)", a.late))
	}
	for _, g := range cfg.Groups {
		if n := a.accounting[g.Name].Finished["committed-unprocessed"]; n > 0 {
			a.notes = append(a.notes, fmt.Sprintf("classic group %s committed past %d records no consumer of it processed successfully", g.Name, n))
		}
	}
	if err := cleanup(); err != nil {
		a.notes = append(a.notes, "cleanup: "+err.Error())
	}
	return a, nil
}

func describeTarget(t Target, c *cluster, lockMs int64) string {
	if t.Embedded() {
		return fmt.Sprintf("embedded kfake cluster at %s (lock sweep every %d ms)", strings.Join(c.seeds, ","), sweepMs(lockMs))
	}
	return "cluster at " + strings.Join(t.Bootstrap, ",")
}

// waitInitialised waits (at most 15 s) until every share group has a start offset for
// every partition of its topics; it returns how long that took, in ms.
func (r *runner) waitInitialised(interrupt context.Context) int64 {
	t0 := time.Now()
	deadline := t0.Add(15 * time.Second)
	for time.Now().Before(deadline) && interrupt.Err() == nil {
		ok := true
		for _, g := range r.cfg.Groups {
			if g.Type != sim.ShareGroup || !startsAtZero(g) {
				continue
			}
			ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
			so, err := r.cl.shareOffsets(ctx, g.Name)
			cancel()
			if err != nil || len(so) < r.partitions(g) {
				ok = false
				break
			}
		}
		if ok {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(t0).Milliseconds()
}

func startsAtZero(g sim.Group) bool {
	for _, c := range g.Consumers {
		if c.StartMs <= 0 && c.Count > 0 {
			return true
		}
	}
	return false
}

func (r *runner) partitions(g sim.Group) int {
	n := 0
	for _, tn := range g.Topics {
		for _, t := range r.cfg.Topics {
			if t.Name == tn {
				n += t.Partitions
			}
		}
	}
	return n
}

// drain waits until every group's offsets (share: start, classic: committed) reached the
// log end, or heal passed.
func (r *runner) drain(heal time.Duration) bool {
	deadline := time.Now().Add(heal)
	for {
		if r.isDrained() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *runner) isDrained() bool {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	ends := map[string]int64{}
	for _, t := range r.cfg.Topics {
		_, end, err := r.cl.offsets(ctx, t.Name)
		if err != nil {
			return false
		}
		for p, e := range end {
			ends[t.Name+"/"+strconv.Itoa(int(p))] = e
		}
	}
	for _, g := range r.cfg.Groups {
		so, err := r.cl.groupOffsets(ctx, g)
		if err != nil {
			return false
		}
		for _, tn := range g.Topics {
			for part, e := range ends {
				if topicOf(part) == tn && so[part] < e {
					return false
				}
			}
		}
	}
	return true
}

// scheduleFaults starts one goroutine per scenario fault.
func (r *runner) scheduleFaults(wg *sync.WaitGroup, stop chan struct{}) {
	frnd := rng.New(rng.Derive(r.seed, "live/faults", 0))
	var fmu sync.Mutex
	for _, f := range r.cfg.Faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := f.AtMs
			for {
				if !r.untilMs(stop, at) {
					return
				}
				fmu.Lock()
				fire := f.PerMillion == 0 || frnd.Int63n(1_000_000) < f.PerMillion
				fmu.Unlock()
				if fire {
					r.fire(f, frnd, &fmu)
				}
				if f.EveryMs <= 0 {
					return
				}
				at += f.EveryMs
				if (f.UntilMs > 0 && at > f.UntilMs) || at >= r.cfg.DurationMs {
					return
				}
			}
		}()
	}
}

// fire applies one occurrence of a fault.
func (r *runner) fire(f sim.Fault, frnd interface{ Intn(int) int }, fmu *sync.Mutex) {
	switch f.Kind {
	case sim.FaultDeleteRecords:
		r.deleteRecords(f)
		return
	case sim.FaultDownstreamOutage:
		r.mu.Lock()
		r.outageEnd = time.Now().Add(time.Duration(f.DurationMs) * time.Millisecond)
		r.mu.Unlock()
		return
	case sim.FaultRenewStall:
		r.mu.Lock()
		r.stallEnd = time.Now().Add(time.Duration(f.DurationMs) * time.Millisecond)
		r.mu.Unlock()
		return
	case sim.FaultConfigChange:
		r.configChange(f)
		return
	case sim.FaultAddPartitions:
		r.addPartitions(f)
		return
	}
	var cands []*instance
	for _, in := range r.instances {
		if f.Target == "" || in.name == f.Target || in.spec.Name == f.Target {
			cands = append(cands, in)
		}
	}
	if len(cands) == 0 {
		r.note(fmt.Sprintf("fault %s: no consumer named %q", f.Kind, f.Target))
		return
	}
	if f.Holding {
		if cands = r.waitHolding(cands); len(cands) == 0 {
			return // the run stopped first
		}
	}
	fmu.Lock()
	in := cands[frnd.Intn(len(cands))]
	fmu.Unlock()
	r.note(fmt.Sprintf("%.0f ms: %s %s", float64(time.Since(r.startAt).Milliseconds()), f.Kind, in.name))
	restart := f.RestartAfterMs
	if restart == 0 && (f.Kind == sim.FaultKill || f.Kind == sim.FaultClose || f.Kind == sim.FaultHang || f.Kind == sim.FaultHostLoss) {
		restart = in.spec.RestartAfterCrashMs
	}
	in.fault(f.Kind, restart, f.DurationMs)
}

// deleteRecords moves a partition's log start forward by f.ValueMs records (DeleteRecords)
// and records the move as a hidden event once the call returned.
func (r *runner) deleteRecords(f sim.Fault) {
	i := strings.LastIndexByte(f.Target, '/')
	topic := f.Target[:i]
	p, err := strconv.Atoi(f.Target[i+1:])
	if err != nil {
		r.note(fmt.Sprintf("delete-records: bad partition in %q", f.Target))
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	start, end, err := r.cl.offsets(ctx, topic)
	if err != nil {
		r.note("delete-records: " + err.Error())
		return
	}
	to := min(start[int32(p)]+f.ValueMs, end[int32(p)])
	if to <= start[int32(p)] {
		return
	}
	if err := r.cl.deleteRecords(ctx, topic, int32(p), to); err != nil {
		r.note(fmt.Sprintf("delete-records %s to %d: %v", f.Target, to, err))
		return
	}
	r.logStartMoved(topic+"/"+strconv.Itoa(p), to, r.rec.returnMs())
}

// logStartMoved records a log-start move seen at atMs for every share group reading the
// partition.
func (r *runner) logStartMoved(part string, to, atMs int64) {
	r.mu.Lock()
	if to <= r.logStart[part] {
		r.mu.Unlock()
		return
	}
	r.logStart[part] = to
	r.mu.Unlock()
	for _, g := range r.cfg.Groups {
		if g.Type != sim.ShareGroup {
			continue
		}
		for _, t := range g.Topics {
			if t == topicOf(part) {
				r.rec.hide(sim.HiddenEvent{TimeMs: atMs, Kind: sim.HiddenLogStart, Group: g.Name, Partition: part, Offset: to})
			}
		}
	}
}

// watch samples the metrics, follows the log start offsets (retention moves them too; on
// the embedded cluster, retention is applied at the topic's check interval) and reads the
// groups' offsets for the feeder.
func (r *runner) watch(stop chan struct{}) {
	every := time.Duration(max(min(r.cfg.MetricsIntervalMs, 250), 20)) * time.Millisecond
	t := time.NewTicker(every)
	defer t.Stop()
	lastRetention := time.Now()
	retentionEvery := time.Duration(1 << 62)
	for _, tp := range r.cfg.Topics {
		if tp.RetentionMs > 0 {
			iv := tp.RetentionCheckIntervalMs
			if iv <= 0 {
				iv = 300000
			}
			retentionEvery = min(retentionEvery, time.Duration(iv)*time.Millisecond)
		}
	}
	nextSample := int64(0)
	// Every markEvery the groups' offsets are read: the meter and the checks forget what
	// they passed (feed.go).
	const markEvery = 250 * time.Millisecond
	lastMark := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if now := time.Since(r.startAt).Milliseconds(); now >= nextSample {
			r.meter.sample(r.rec.returnMs())
			nextSample = now + r.cfg.MetricsIntervalMs
		}
		if r.cl.fake != nil && time.Since(lastRetention) >= retentionEvery {
			r.cl.fake.ApplyRetention()
			lastRetention = time.Now()
		}
		ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		// The groups' offsets first, then the log starts: a log start read after a start
		// offset is at least the one the broker archived below it by.
		var floors map[string]map[string]int64
		var floorsAt int64
		if time.Since(lastMark) >= markEvery {
			floors, floorsAt, lastMark = r.groupFloors(), r.rec.returnMs(), time.Now()
			if r.probe != nil {
				entries, window := r.meter.retained()
				r.rec.mu.Lock()
				ops := r.rec.ops
				r.rec.mu.Unlock()
				r.probe(time.Since(r.startAt).Milliseconds(), entries, window, ops)
			}
		}
		starts := map[string]int64{}
		for _, tp := range r.cfg.Topics {
			start, _, err := r.cl.offsets(ctx, tp.Name)
			if err != nil {
				continue
			}
			for p, o := range start {
				starts[tp.Name+"/"+strconv.Itoa(int(p))] = o
			}
			at := r.rec.returnMs()
			ps := make([]int32, 0, len(start))
			for p := range start {
				ps = append(ps, p)
			}
			sort.Slice(ps, func(a, b int) bool { return ps[a] < ps[b] })
			for _, p := range ps {
				if start[p] > 0 {
					r.logStartMoved(tp.Name+"/"+strconv.Itoa(int(p)), start[p], at)
				}
			}
		}
		cancel()
		for _, g := range r.cfg.Groups {
			fs, ok := floors[g.Name]
			if !ok {
				continue
			}
			parts := make([]string, 0, len(fs))
			for p := range fs {
				parts = append(parts, p)
			}
			sort.Strings(parts)
			for _, p := range parts {
				if ls, ok := starts[p]; ok {
					r.rec.observed(mark{group: g.Name, part: p, floor: fs[p], logStart: ls, atMs: floorsAt})
				}
			}
		}
	}
}

// finalAccounting classifies every offset of every group's partitions at the end
// (sim.Accounting's buckets) from what the meter holds and the broker's answers: the
// share groups' start offsets (DescribeShareGroupOffsets), the classic groups' committed
// offsets, log start and end offsets. It also returns the partitions' end states for
// liveness, and the partitions whose drain cannot be decided.
func (r *runner) finalAccounting() (map[string]sim.Accounting, []sim.FinalState, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	starts, ends := map[string]int64{}, map[string]int64{}
	for _, t := range r.cfg.Topics {
		s, e, err := r.cl.offsets(ctx, t.Name)
		if err != nil {
			return nil, nil, nil, err
		}
		for p := range e {
			k := t.Name + "/" + strconv.Itoa(int(p))
			starts[k], ends[k] = s[p], e[p]
		}
	}
	floors := map[string]map[string]int64{}
	topics := map[string][]string{}
	var errs []error
	for _, g := range r.cfg.Groups {
		so, err := r.cl.groupOffsets(ctx, g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		floors[g.Name], topics[g.Name] = so, g.Topics
	}
	acc, final, undecided := r.meter.final(floors, starts, ends, topics)
	return acc, final, undecided, errors.Join(errs...)
}

// groupFloors reads every group's offsets (start or committed), by group; a group whose
// offsets could not be read is left out.
func (r *runner) groupFloors() map[string]map[string]int64 {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	out := map[string]map[string]int64{}
	for _, g := range r.cfg.Groups {
		if so, err := r.cl.groupOffsets(ctx, g); err == nil {
			out[g.Name] = so
		}
	}
	return out
}
