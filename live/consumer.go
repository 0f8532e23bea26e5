package live

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/rng"
)

// instance is one consumer instance of the scenario ("worker-1"): a run of incarnations,
// each a kgo client with its own member identity, connections and processing loop.
type instance struct {
	r     *runner
	group sim.Group
	spec  sim.ConsumerSpec
	name  string

	mu   sync.Mutex
	gen  int
	inc  *incarnation
	down bool // stopped for good (end of run, or a fault without restart)
}

// incarnation is one life of an instance.
type incarnation struct {
	in     *instance
	m      member
	cl     *kgo.Client
	conns  *connSet
	taps   []*tapConn
	tapsMu sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the loop returned
	// hold, when not nil, stops the loop from polling until it is closed (hang, pause).
	holdMu sync.Mutex
	hold   chan struct{}
	ended  sync.Once
	// held counts the records of the current poll not finished yet, heldUntil is when
	// their locks run out as the client knows it (the poll's time + the lock duration in
	// force): a holding fault waits for both (holds).
	heldMu    sync.Mutex
	held      int
	heldUntil time.Time
}

// holds reports whether the incarnation holds records it has not finished, their locks
// still running as far as it knows (sim's holdsRecords; a classic consumer has no locks).
func (inc *incarnation) holds() bool {
	inc.heldMu.Lock()
	defer inc.heldMu.Unlock()
	return inc.held > 0 && (inc.in.group.Type != sim.ShareGroup || time.Now().Before(inc.heldUntil))
}

// setHeld notes that n records of the current poll are unfinished (n < 0: one more finished).
func (inc *incarnation) setHeld(n int, until time.Time) {
	inc.heldMu.Lock()
	defer inc.heldMu.Unlock()
	if n < 0 {
		inc.held = max(inc.held+n, 0)
		return
	}
	inc.held, inc.heldUntil = n, until
}

func (in *instance) start() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.down || in.r.stopping() {
		return nil
	}
	in.gen++
	inc := &incarnation{in: in, m: member{client: in.name + "#" + strconv.Itoa(in.gen), group: in.group.Name}, conns: newConnSet(), done: make(chan struct{})}
	seen := &partSet{m: map[string]bool{}}
	if in.group.Type == sim.ShareGroup {
		in.r.rec.joined(inc.m) // before kgo can dial: the horizon waits for its heartbeats
	}
	opts := in.r.cl.baseOpts(func(c net.Conn) net.Conn {
		mc, err := inc.conns.wrap(c)
		if err != nil {
			return deadConn{c}
		}
		if in.group.Type != sim.ShareGroup {
			return mc
		}
		t := newTap(mc, in.r.rec, inc.m, in.r.cl.name, seen)
		inc.tapsMu.Lock()
		inc.taps = append(inc.taps, t)
		inc.tapsMu.Unlock()
		return t
	})
	topics := make([]string, len(in.group.Topics))
	for i, t := range in.group.Topics {
		topics[i] = in.r.cl.topic(t)
	}
	sp := in.spec
	opts = append(opts, kgo.ClientID("sharesim-"+inc.m.client), kgo.ConsumeTopics(topics...),
		kgo.FetchMaxWait(time.Duration(max(sp.MaxWaitMs, 1))*time.Millisecond))
	if in.group.Type == sim.ShareGroup {
		// One fetch per poll, no buffering ahead: a record kgo fetched ahead would sit in its
		// buffer with its lock running, which the scenario's client does not do.
		opts = append(opts, kgo.ShareGroup(in.r.cl.group(in.group.Name)), kgo.ShareMaxRecords(int32(sp.MaxPollRecords)), kgo.MaxConcurrentFetches(0))
		if sp.AcquireMode == 1 { // model.RecordLimit
			opts = append(opts, kgo.ShareMaxRecordsStrict())
		}
	} else {
		opts = append(opts, kgo.ConsumerGroup(in.r.cl.group(in.group.Name)), kgo.FetchMinBytes(int32(max(sp.FetchMinBytes, 1))),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if ms := in.group.AutoCommitIntervalMs; ms > 0 {
			opts = append(opts, kgo.AutoCommitInterval(time.Duration(ms)*time.Millisecond))
		}
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		in.r.rec.clientEnded(inc.m.group, inc.m.client) // it never ran: it holds nothing
		return fmt.Errorf("consumer %s: %w", inc.m.client, err)
	}
	inc.cl = cl
	inc.ctx, inc.cancel = context.WithCancel(in.r.ctx)
	in.inc = inc
	if !in.r.spawn(func() {
		defer close(inc.done)
		inc.loop()
	}) {
		close(inc.done)
		cl.Close()
	}
	return nil
}

// deadConn is what a refused dial hands kgo: every call fails.
type deadConn struct{ net.Conn }

func (deadConn) Read([]byte) (int, error)  { return 0, errNetDown{"dial refused"} }
func (deadConn) Write([]byte) (int, error) { return 0, errNetDown{"dial refused"} }

// rand returns a processing stream for worker k of the incarnation, seeded from the run's
// seed, the instance and the incarnation.
func (inc *incarnation) rand(k int) *rng.Rand {
	return rng.New(rng.Derive(inc.in.r.seed, "live/process/"+inc.in.name, uint64(inc.in.gen)<<16|uint64(k)))
}

func (inc *incarnation) waitHold() bool {
	for {
		inc.holdMu.Lock()
		h := inc.hold
		inc.holdMu.Unlock()
		if h == nil {
			return inc.ctx.Err() == nil
		}
		select {
		case <-h:
		case <-inc.ctx.Done():
			return false
		}
	}
}

func (inc *incarnation) setHold(on bool) {
	inc.holdMu.Lock()
	defer inc.holdMu.Unlock()
	if on && inc.hold == nil {
		inc.hold = make(chan struct{})
	}
	if !on && inc.hold != nil {
		close(inc.hold)
		inc.hold = nil
	}
}

// outcome is what the application does with one record.
type outcome uint8

const (
	outOK outcome = iota
	outRelease
	outReject
	outCrash
	outSkip
)

func actionOutcome(a sim.FailureAction) outcome {
	switch a {
	case sim.FailRelease:
		return outRelease
	case sim.FailReject:
		return outReject
	case sim.FailCrash:
		return outCrash
	}
	return outSkip
}

// loop polls, processes and acknowledges until the incarnation ends.
func (inc *incarnation) loop() {
	in, r, sp := inc.in, inc.in.r, inc.in.spec
	threads := max(sp.Threads, 1)
	rands := make([]*rng.Rand, threads)
	for k := range rands {
		rands[k] = inc.rand(k)
	}
	failRand := inc.rand(1 << 15)
	explicit := sp.AckMode == sim.AckExplicit
	share := in.group.Type == sim.ShareGroup
	for inc.waitHold() {
		fs := inc.cl.PollRecords(inc.ctx, sp.MaxPollRecords)
		if inc.ctx.Err() != nil {
			return
		}
		var recs []*kgo.Record
		fs.EachRecord(func(rec *kgo.Record) { recs = append(recs, rec) })
		if len(recs) == 0 {
			continue
		}
		// The application holds what the poll returned until each record is done: the
		// meter folds no offset a consumer may still process (a duplicate).
		for _, rec := range recs {
			r.meter.polled(in.group.Name, inc.m.client, partOf(r.cl, rec), rec.Offset)
		}
		lockMs := r.meter.inForce[r.cfg.GroupIndex(in.group.Name)].At(r.meter.scen(r.rec.returnMs())).RecordLockDurationMs
		inc.setHeld(len(recs), time.Now().Add(time.Duration(lockMs)*time.Millisecond))
		// Outcomes are drawn in poll order from one stream, so they do not depend on the
		// threads' timing.
		outs := make([]outcome, len(recs))
		for i, rec := range recs {
			switch {
			case isPoison(rec):
				outs[i] = actionOutcome(sp.OnPoison)
			case r.outage() || (sp.FailurePerMillion > 0 && failRand.Int63n(1_000_000) < sp.FailurePerMillion):
				outs[i] = actionOutcome(sp.OnFailure)
			}
		}
		finished := make([]bool, len(recs))
		var fmu sync.Mutex
		stopRenew := make(chan struct{})
		if share && explicit && sp.RenewEveryMs > 0 {
			go inc.renew(recs, finished, &fmu, stopRenew)
		}
		crashed := false
		var wg sync.WaitGroup
		next := 0
		var nmu sync.Mutex
		for k := 0; k < threads; k++ {
			wg.Add(1)
			go func(rnd *rng.Rand) {
				defer wg.Done()
				var pace pacer
				for {
					nmu.Lock()
					i := next
					next++
					stop := crashed
					nmu.Unlock()
					if i >= len(recs) || stop {
						return
					}
					rec := recs[i]
					wait := time.Duration(float64(SampleDuration(sp.Processing, rnd)) * sp.SlowFactor)
					if !pace.wait(inc.ctx.Done(), wait) {
						return
					}
					part := partOf(r.cl, rec)
					switch outs[i] {
					case outOK:
						r.meter.processed(in.group.Name, part, rec.Offset, r.rec.returnMs())
						if share && explicit {
							rec.Ack(kgo.AckAccept)
						}
					case outSkip:
						if share && explicit {
							rec.Ack(kgo.AckAccept)
						}
					case outRelease:
						if share && explicit {
							rec.Ack(kgo.AckRelease)
						}
					case outReject:
						if share && explicit {
							rec.Ack(kgo.AckReject)
						}
					case outCrash:
						nmu.Lock()
						crashed = true
						nmu.Unlock()
						return
					}
					r.meter.done(in.group.Name, inc.m.client, part, rec.Offset)
					inc.setHeld(-1, time.Time{})
					fmu.Lock()
					finished[i] = true
					fmu.Unlock()
				}
			}(rands[k])
		}
		wg.Wait()
		close(stopRenew)
		if !crashed {
			inc.setHeld(0, time.Time{})
		}
		if crashed {
			r.note(fmt.Sprintf("%s crashed processing a record (on_failure/on_poison: crash)", inc.m.client))
			if !r.spawn(func() { in.fault(sim.FaultKill, sp.RestartAfterCrashMs, 0) }) {
				inc.conns.kill()
			}
			<-inc.ctx.Done()
			return
		}
		if inc.ctx.Err() != nil {
			return
		}
		if share && explicit && sp.Commit == sim.CommitSync {
			_ = inc.cl.FlushAcks(inc.ctx)
		}
	}
}

// pacer waits processing times below the timer's resolution without rounding each one
// up: it owes the waits it has not slept yet and sleeps once it owes a millisecond, so
// the mean processing time is the scenario's even when each is 0.5 ms.
type pacer struct{ owed time.Duration }

func (p *pacer) wait(done <-chan struct{}, d time.Duration) bool {
	p.owed += d
	if p.owed < time.Millisecond {
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
	t0 := time.Now()
	ok := sleepCtx(done, p.owed)
	p.owed -= time.Since(t0)
	return ok
}

// renew renews the locks of the poll's records still in processing every RenewEveryMs.
func (inc *incarnation) renew(recs []*kgo.Record, finished []bool, mu *sync.Mutex, stop chan struct{}) {
	every := time.Duration(inc.in.spec.RenewEveryMs) * time.Millisecond
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-inc.ctx.Done():
			return
		case <-t.C:
		}
		if inc.in.r.renewStalled() {
			continue
		}
		mu.Lock()
		for i, rec := range recs {
			if !finished[i] {
				rec.Ack(kgo.AckRenew)
			}
		}
		mu.Unlock()
	}
}

func isPoison(rec *kgo.Record) bool {
	for _, h := range rec.Headers {
		if h.Key == hdrPoison {
			return true
		}
	}
	return false
}

func partOf(c *cluster, rec *kgo.Record) string {
	t := rec.Topic
	if len(t) > len(c.prefix) && t[:len(c.prefix)] == c.prefix {
		t = t[len(c.prefix):]
	}
	return t + "/" + strconv.Itoa(int(rec.Partition))
}

// memberGone records that an incarnation's session ends (or may) now: from then on the
// broker may release what it held, unseen.
func (inc *incarnation) memberGone() { inc.in.r.rec.gone(inc.m) }

// end stops the incarnation: clean (close: the client acknowledges and leaves) or not
// (kill: connections dropped first, nothing more gets out).
func (inc *incarnation) end(clean bool) { inc.ended.Do(func() { inc.stop(clean) }) }

func (inc *incarnation) stop(clean bool) {
	inc.memberGone()
	if !clean {
		inc.conns.kill()
	}
	inc.cancel()
	<-inc.done
	if clean && inc.in.group.Type == sim.ShareGroup && inc.in.spec.AckMode == sim.AckExplicit {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = inc.cl.FlushAcks(ctx)
		cancel()
	}
	closed := make(chan struct{})
	go func() {
		inc.cl.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		inc.conns.kill()
		<-closed
	}
	inc.conns.kill()
	// Every connection is closed and its requests recorded: the incarnation holds nothing.
	inc.in.r.rec.clientEnded(inc.m.group, inc.m.client)
}

// fault applies a client fault to the instance's current incarnation; restartMs < 0 means
// the instance stays down, durMs is the length of pause and netcut.
func (in *instance) fault(kind sim.FaultKind, restartMs, durMs int64) {
	in.mu.Lock()
	inc := in.inc
	in.mu.Unlock()
	if inc == nil {
		return
	}
	r := in.r
	start := func() {
		if err := in.start(); err != nil {
			r.note(fmt.Sprintf("restarting %s: %v", in.name, err))
		}
	}
	// restart starts a new process restartMs after a process that ended (kill, close).
	restart := func() {
		if restartMs < 0 {
			in.mu.Lock()
			in.down = true
			in.mu.Unlock()
			return
		}
		if sleepCtx(r.stopC, time.Duration(restartMs)*time.Millisecond) {
			start()
		}
	}
	// replaceHeld ends a held process (hang, host-loss) restartMs after the fault and starts
	// its successor at once, as the simulator's restartHung and hostLoss do: one wait, not two.
	replaceHeld := func() {
		if restartMs < 0 || !sleepCtx(r.stopC, time.Duration(restartMs)*time.Millisecond) {
			return
		}
		inc.end(false)
		start()
	}
	switch kind {
	case sim.FaultKill:
		inc.end(false)
		restart()
	case sim.FaultClose:
		inc.end(true)
		restart()
	case sim.FaultHang:
		inc.setHold(true)
		replaceHeld()
	case sim.FaultHostLoss:
		inc.setHold(true)
		inc.conns.blackhole()
		inc.memberGone()
		replaceHeld()
	case sim.FaultPause:
		inc.setHold(true)
		sleepCtx(r.stopC, time.Duration(durMs)*time.Millisecond)
		inc.setHold(false)
	case sim.FaultNetCut:
		inc.conns.blackhole()
		inc.memberGone()
		sleepCtx(r.stopC, time.Duration(durMs)*time.Millisecond)
		inc.conns.heal()
	}
}

// stop ends the instance at the end of the run: a clean close of a live incarnation, a
// kill of one that is hung or cut off.
func (in *instance) stop() {
	in.mu.Lock()
	in.down = true
	inc := in.inc
	in.mu.Unlock()
	if inc == nil {
		return
	}
	mode, _ := inc.conns.current()
	inc.holdMu.Lock()
	held := inc.hold != nil
	inc.holdMu.Unlock()
	inc.end(mode == netUp && !held)
}
