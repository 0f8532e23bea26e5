package sim

import (
	"errors"
	"fmt"
	"io"

	"github.com/sharesim/sharesim/sim/eventq"
	"github.com/sharesim/sharesim/sim/rng"
)

// The engine: one virtual clock, one event queue ordered by (time, sequence number), one root
// seed split into named PRNG streams. Everything runs on the caller's goroutine; concurrency
// exists only as the order in which events are queued.

// Options are the caller's choices that do not change the simulated behaviour.
type Options struct {
	// TraceWriter receives the event trace, one line per event.
	TraceWriter io.Writer
	// KeepTrace keeps the trace lines in Result.Trace (for tests).
	KeepTrace bool
	// RecordHistory keeps the client-visible history in Result.History and the hidden
	// events in Result.HiddenEvents (for tests and small runs: they grow with the run).
	RecordHistory bool
	// OnHistory, when set, receives every operation of the client-visible history as it is
	// recorded (in history order: by return time, a lost response when it is known lost),
	// and OnHidden every hidden event; Result.History and Result.HiddenEvents then stay
	// empty, so memory does not grow with the length of the run (checker.Checker checks
	// them as they come). Callbacks must not change the world.
	OnHistory func(*Op)
	OnHidden  func(*HiddenEvent)
	// Observer is called after every event (invariant checkers).
	Observer func(w *World)
	// OnSample, when set, receives every point of the metrics time series as it is taken,
	// and Result.Metrics.Series stays empty: memory then does not grow with the length of
	// the run (reports.SeriesFiles writes the points to a result folder).
	OnSample func(*Sample)
	// SampleRecords follows the life of up to this many records of share groups, most of
	// them eventful (redelivered, expired, released, not accepted), in Result.Sample; 0
	// disables. It does not change the run.
	SampleRecords int
	// Stop, when set, is asked every StopStride events whether to end the run there (the
	// user interrupted it). The run then ends with ErrInterrupted and the result so far.
	Stop func() bool
	// StopAfterEvents, when > 0, ends the run with ErrInterrupted after that many events:
	// a replay of a run that was cut short there gives the same trace as far as it went.
	StopAfterEvents int64
	// IgnoreConfigChanges is fault injection for the checkers' tests: accepted config
	// changes are traced and reported but never reach the share-partitions, a leader
	// that keeps the values it was built with. The checks must then fail.
	IgnoreConfigChanges bool
	// IgnoreNewPartitionStart is fault injection for the checkers' tests: a share-partition
	// an add-partitions fault creates is stored with start offset -1 on every version, as
	// if model.InitialStartOffset were not applied. From Kafka 4.4 the checks must then fail.
	IgnoreNewPartitionStart bool
}

// StopStride is how many events pass between two calls of Options.Stop.
const StopStride = 1024

// ErrInterrupted is wrapped by the error Run returns when Options.Stop or
// Options.StopAfterEvents ended the run; Run's result then holds what the run did so far.
var ErrInterrupted = errors.New("interrupted")

// World is one simulated cluster with its clients.
type World struct {
	engine
	topology

	// The actors (docs/simulator.md has the map of who sends what to whom).
	logs    *logs
	prod    *producerClients
	leaders *leaders
	coord   *shareCoordinator
	net     *network
	procs   *processes
	share   *shareClients
	classic *classicClients
	gcoord  *groupCoordinator
	faults  *faultInjector
	dlq     *dlqManager
	configs *groupConfigs
	// The observers.
	history *history
	metrics *metrics
}

// Result is what a run leaves behind.
type Result struct {
	Seed uint64
	// TraceSHA256 is the SHA-256 of the whole event trace; one seed gives one hash.
	TraceSHA256 string
	Events      int64
	EndMs       int64
	Trace       []string
	History     []Op
	Metrics     Metrics
	// Marks counts coverage marks: interesting things that happened.
	Marks []Mark
	// Final describes each share-partition at the end of the run.
	Final []FinalState
	// Sample holds the sampled record lives (Options.SampleRecords), else nil.
	Sample *RecordSample

	// HiddenEvents are the events the history does not show but a history checker needs
	// (failovers, member deaths, ...); recorded with Options.RecordHistory (unless
	// Options.OnHidden takes them).
	HiddenEvents []HiddenEvent
	// ConfigChanges are the config-change faults as they fired, accepted or refused.
	ConfigChanges []ConfigChange
}

// Mark is a named coverage counter.
type Mark struct {
	Name  string
	Count int64
}

// Run builds a world from cfg, runs it with seed and returns what happened.
func Run(cfg Config, seed uint64, opts Options) (*Result, error) {
	w, err := New(cfg, seed, opts)
	if err != nil {
		return nil, err
	}
	return w.Run()
}

// New builds a world without running it.
func New(cfg Config, seed uint64, opts Options) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := rng.NewStreams(seed)
	w := &World{engine: engine{
		cfg: cfg, opts: opts, seed: seed, streams: s,
		rWork: s.Stream(streamWorkload), rProc: s.Stream(streamProcessing), rFault: s.Stream(streamFaults),
		rNet: s.Stream(streamNetwork), rSchedule: s.Stream(streamScheduler), rProd: s.Stream(streamProducer),
		q:     eventq.New[event](1024),
		endMs: cfg.DurationMs + cfg.HealMs,
		marks: map[string]int64{},
	}}
	w.rProc.BatchNormals() // log-normal processing times: the same values, computed ahead
	wire(w)
	w.trace.init(opts)
	if opts.SampleRecords > 0 {
		w.metrics.sample = newSampler(opts.SampleRecords)
		w.trace.tap = w.metrics.sample.tap
	}
	if err := w.build(); err != nil {
		return nil, err
	}
	return w, nil
}

// NowMs is the virtual time.
func (w *World) NowMs() int64 { return w.now }

// Config returns the configuration the world was built from.
func (w *World) Config() Config { return w.cfg }

// ErrMaxEvents is wrapped by the error Run returns when the run reached Config.MaxEvents:
// it was cut short, so no check can say it passed.
var ErrMaxEvents = errors.New("max_events reached")

// Run processes events until the end of the healing phase.
func (w *World) Run() (*Result, error) {
	var e event
	maxEvents, endMs, win := w.cfg.MaxEvents, w.endMs, &w.metrics.win
	watched := w.opts.Observer != nil || w.opts.Stop != nil || w.opts.StopAfterEvents > 0
	for {
		if w.events >= maxEvents {
			if at, ok := w.q.PeekAt(); ok && at <= endMs {
				return w.cut(), fmt.Errorf("run exceeded %d events at %d ms: %w", maxEvents, at, ErrMaxEvents)
			}
		}
		at, ok := w.q.PopUntil(endMs, &e)
		if !ok {
			break
		}
		if at >= win.nextMs {
			w.metrics.takeSnapshotsBefore(at)
		}
		w.now = at
		w.events++
		w.dispatch(e)
		if w.err != nil {
			return nil, w.err
		}
		if !watched {
			continue
		}
		if w.opts.Observer != nil {
			w.opts.Observer(w)
		}
		if n := w.opts.StopAfterEvents; n > 0 && w.events >= n ||
			w.opts.Stop != nil && w.events%StopStride == 0 && w.opts.Stop() {
			return w.cut(), fmt.Errorf("run stopped after %d events at %d ms: %w", w.events, w.now, ErrInterrupted)
		}
	}
	w.now = max(w.now, w.endMs)
	w.metrics.takeSnapshotsBefore(w.now + 1)
	w.metrics.sampleMetrics() // the last point (no tick is queued for the end time)
	w.history.recordUnanswered()
	return w.result(), nil
}

// handlers is the dispatch table: each event kind is addressed to one actor, which handles
// it. A static table of plain functions: no closure and no allocation per event.
var handlers = [...]func(w *World, e event){
	// Producers (producer.go, kproducer.go).
	evProduce:         func(w *World, e event) { w.prod.produce(e) },
	evTxnCommit:       func(w *World, e event) { w.prod.txnCommit(e) },
	evProduceArrive:   func(w *World, e event) { w.prod.produceArrive(e) },
	evProduceResponse: func(w *World, e event) { w.prod.produceResponse(e) },
	// Logs (log.go); the metrics tick lets them forget what no reader needs.
	evRetention:  func(w *World, e event) { w.logs.retention(e.a) },
	evCompaction: func(w *World, e event) { w.logs.compaction(e) },
	// Network (network.go).
	evRequestArrive: func(w *World, e event) { w.net.requestArrive(e.ref) },
	evConnReset:     func(w *World, e event) { w.net.connReset(e) },
	// Partition leaders (leader.go, leaderstate.go).
	evMaxWait:  func(w *World, e event) { w.leaders.maxWait(e.ref) },
	evLoadDone: func(w *World, e event) { w.leaders.loadDone(e.a) },
	evLogRead:  func(w *World, e event) { w.leaders.logReadDone(e) },
	evExpire:   func(w *World, e event) { w.leaders.expire(e.a) },
	// Share coordinator (coordinator.go) and the leaders' DLQ manager (dlq.go).
	evWriteApply: func(w *World, e event) { w.coord.writeApply(e.ref) },
	evDLQAttempt: func(w *World, e event) { w.dlq.attemptDone(e.ref) },
	// Consumer processes (consumer.go) and share clients (shareclient.go).
	evConsumerStart:  func(w *World, e event) { w.procs.start(e.a) },
	evHeartbeat:      func(w *World, e event) { w.procs.heartbeat(e) },
	evResponseArrive: func(w *World, e event) { w.share.responseArrive(e.ref) },
	evRequestTimeout: func(w *World, e event) { w.share.requestTimeout(e.ref) },
	evProcessDone:    func(w *World, e event) { w.share.processDone(e) },
	evRenew:          func(w *World, e event) { w.share.renew(e) },
	// Classic clients and their groups (classic.go, classicgroup.go).
	evClassicPoll:             func(w *World, e event) { w.classic.step(e) },
	evClassicFetch:            func(w *World, e event) { w.classic.fetchArrive(e) },
	evClassicFetchWait:        func(w *World, e event) { w.classic.fetchWait(e) },
	evClassicFetchDone:        func(w *World, e event) { w.classic.fetchDone(e) },
	evClassicDone:             func(w *World, e event) { w.classic.processDone(e) },
	evClassicCommit:           func(w *World, e event) { w.classic.commitArrived(w.groups[e.a], e.b, e.x) },
	evClassicPollTimeout:      func(w *World, e event) { w.classic.pollTimeout(e) },
	evClassicRebalanceTimeout: func(w *World, e event) { w.classic.rebalanceTimeout(e) },
	// Group coordinator (membership.go).
	evSessionCheck: func(w *World, e event) { w.gcoord.sessionCheck(e) },
	// Fault injector (faults.go).
	evFault:    func(w *World, e event) { w.faults.fault(e) },
	evFaultEnd: func(w *World, e event) { w.faults.faultEnd(e) },
	evHeal:     func(w *World, e event) { w.faults.heal() },
	// Metrics (metrics_series.go).
	evMetrics: func(w *World, e event) { w.metrics.tick(); w.logs.forgetAll() },
}

// dispatch hands the event to the actor it is addressed to, through handlers. A record's
// processing ending, most of a run's events, is called directly before the table: that
// saves an indirect, often mispredicted, call on the hot path.
func (w *World) dispatch(e event) {
	if e.kind == evProcessDone {
		w.share.processDone(e)
		return
	}
	if int(e.kind) < len(handlers) {
		if h := handlers[e.kind]; h != nil {
			h(w, e)
			return
		}
	}
	w.err = fmt.Errorf("internal: unknown event kind %d", e.kind)
}

// cut is the result of a run that ends before its time, with the metrics so far: the
// same figures a run of that length would show, taken at the last event's time.
func (w *World) cut() *Result {
	w.metrics.takeSnapshotsBefore(w.now + 1)
	w.metrics.sampleMetrics()
	return w.result()
}

func (w *World) result() *Result {
	r := &Result{
		Seed:        w.seed,
		TraceSHA256: w.trace.sum(),
		Events:      w.events,
		EndMs:       w.now,
		Trace:       w.trace.kept,
		History:     w.history.ops,
		Metrics:     w.metrics.export(),
		Final:       w.metrics.finalStates(),
		Sample:      w.metrics.sampleResult(),
	}
	r.HiddenEvents = w.history.hidden
	r.ConfigChanges = w.configs.configChanges
	names := make([]string, 0, len(w.marks))
	for n := range w.marks {
		names = append(names, n)
	}
	sortStrings(names)
	for _, n := range names {
		r.Marks = append(r.Marks, Mark{Name: n, Count: w.marks[n]})
	}
	return r
}
