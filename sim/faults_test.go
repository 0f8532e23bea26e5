package sim_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// ---------------------------------------------------------------------------------------
// Helpers shared by the simulator's tests.

// ftWorld builds a small world: one topic "t" with the given partitions, no retention, the
// group reading from the earliest offset, a constant-rate producer that stops at stopMs,
// and one share group "g" with the given consumer specs.
func ftWorld(parts int, rate float64, stopMs int64, consumers ...sim.ConsumerSpec) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: parts, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: rate, BatchRecords: 1, StopMs: stopMs}}
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"t"}, Consumers: consumers}}
	return cfg
}

// ftConsumer returns a spec of count instances with constant processing time procMs and
// max.poll.records maxPoll.
func ftConsumer(name string, count int, procMs int64, maxPoll int) sim.ConsumerSpec {
	c := sim.DefaultConsumer(name)
	c.Count = count
	c.Processing = dist.Must(dist.Constant(procMs))
	c.MaxPollRecords = maxPoll
	return c
}

// ftRun runs cfg with the trace and the client history kept.
func ftRun(t *testing.T, cfg sim.Config, seed uint64) *sim.Result {
	t.Helper()
	res, err := sim.Run(cfg, seed, sim.Options{KeepTrace: true, RecordHistory: true})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// ftEv is one parsed trace line.
type ftEv struct {
	ms   int64
	kind string
	kv   map[string]string
	raw  string
}

func (e ftEv) num(key string) int64 {
	v, err := strconv.ParseInt(e.kv[key], 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// client is the consumer instance name of the event's client (member id without "#n").
func (e ftEv) client() string {
	c, _, _ := strings.Cut(e.kv["client"], "#")
	return c
}

// ftParse splits trace lines into time, kind and key=value pairs.
func ftParse(t *testing.T, lines []string) []ftEv {
	t.Helper()
	out := make([]ftEv, 0, len(lines))
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Fatalf("bad trace line %q", l)
		}
		ms, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("bad trace time in %q", l)
		}
		e := ftEv{ms: ms, kind: f[1], kv: map[string]string{}, raw: l}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			e.kv[k] = v
		}
		out = append(out, e)
	}
	return out
}

// ftAcq is one offset of one acquire line.
type ftAcq struct {
	ms     int64
	member string // full member id, e.g. c-0#1
	client string // instance name, e.g. c-0
	p      string
	off    int64
	dc     int
}

// ftAcquisitions expands every acquire line into one entry per offset, in trace order.
func ftAcquisitions(t *testing.T, evs []ftEv) []ftAcq {
	t.Helper()
	var out []ftAcq
	for _, e := range evs {
		if e.kind != "acquire" {
			continue
		}
		for _, r := range strings.Split(e.kv["ranges"], ",") {
			span, dcs, ok := strings.Cut(r, "@")
			a, b, ok2 := strings.Cut(span, "-")
			if !ok || !ok2 {
				t.Fatalf("bad ranges in %q", e.raw)
			}
			first, _ := strconv.ParseInt(a, 10, 64)
			last, _ := strconv.ParseInt(b, 10, 64)
			dc, _ := strconv.Atoi(dcs)
			for off := first; off <= last; off++ {
				out = append(out, ftAcq{ms: e.ms, member: e.kv["client"], client: e.client(), p: e.kv["p"], off: off, dc: dc})
			}
		}
	}
	return out
}

// ftLastAcquired returns the offsets of client's last acquire line at or before ms, i.e.
// what its latest fetch gave it.
func ftLastAcquired(as []ftAcq, client string, ms int64) []ftAcq {
	var out []ftAcq
	var at int64 = -1
	for _, a := range as {
		if a.client != client || a.ms > ms {
			continue
		}
		if a.ms != at {
			out, at = out[:0], a.ms
		}
		out = append(out, a)
	}
	return out
}

// ftFind returns the first event of kind (and client, if not empty) at or after from.
func ftFind(evs []ftEv, kind, client string, from int64) (ftEv, bool) {
	for _, e := range evs {
		if e.kind == kind && e.ms >= from && (client == "" || e.client() == client) {
			return e, true
		}
	}
	return ftEv{}, false
}

// ftCount counts the events of kind (and client, if not empty).
func ftCount(evs []ftEv, kind, client string) int {
	n := 0
	for _, e := range evs {
		if e.kind == kind && (client == "" || e.client() == client) {
			n++
		}
	}
	return n
}

// ftMark returns the count of a coverage mark.
func ftMark(res *sim.Result, name string) int64 {
	for _, m := range res.Marks {
		if m.Name == name {
			return m.Count
		}
	}
	return 0
}

// ftDump logs the interesting trace lines if the test failed (or always, with the
// environment variable SIMTEST_TRACE set, to look at a scenario).
func ftDump(t *testing.T, res *sim.Result) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("SIMTEST_TRACE") == "" {
			return
		}
		var b strings.Builder
		for _, l := range res.Trace {
			if strings.Contains(l, " produce ") || strings.Contains(l, " assign ") {
				continue
			}
			b.WriteString(l)
			b.WriteByte('\n')
		}
		t.Logf("trace (without produce/assign lines):\n%s", b.String())
		t.Logf("metrics: %s", ftMetrics(res.Metrics))
		t.Logf("marks: %v", res.Marks)
		t.Logf("final: %+v", res.Final)
	})
}

// ftMetrics prints the metrics without the time series.
func ftMetrics(m sim.Metrics) string {
	m.Series = nil
	m.E2EBuckets = nil
	return fmt.Sprintf("%+v", m)
}

// ftDupBalance checks that every successful processing beyond the first is counted as a
// duplicate, in worlds where no processing fails and every record ends acknowledged
// ("restored" counts records a reloaded leader found already acknowledged).
func ftDupBalance(t *testing.T, res *sim.Result) {
	t.Helper()
	m := res.Metrics
	if m.Totals.FailedProcessing != 0 || m.Totals.Finished["accepted"]+m.Totals.Finished["restored"] != m.Produced {
		t.Fatalf("ftDupBalance needs a world where everything is accepted: %v of %d", m.Totals.Finished, m.Produced)
	}
	if extra := m.Totals.ProcessedOK - m.Produced; m.Totals.Duplicates != extra {
		t.Errorf("processed OK %d for %d records: %d extra processings, but DuplicatesTotal = %d (%v)", m.Totals.ProcessedOK, m.Produced, extra, m.Totals.Duplicates, m.Totals.DuplicatesByCause)
	}
}

// ftOnlyCause checks that every duplicate is attributed to cause (worlds with one fault).
func ftOnlyCause(t *testing.T, res *sim.Result, cause string) {
	t.Helper()
	m := res.Metrics
	if m.Totals.Duplicates == 0 || m.Totals.DuplicatesByCause[cause] != m.Totals.Duplicates {
		t.Errorf("duplicates %v: want all %d attributed to %s, and some", m.Totals.DuplicatesByCause, m.Totals.Duplicates, cause)
	}
}

// ftReacquired returns the first acquisition of (p, off) later than after by a client other
// than not, or false.
func ftReacquired(as []ftAcq, p string, off int64, after int64, not string) (ftAcq, bool) {
	for _, a := range as {
		if a.p == p && a.off == off && a.ms > after && a.client != not {
			return a, true
		}
	}
	return ftAcq{}, false
}

// ---------------------------------------------------------------------------------------
// Consumer deaths.

// Killed client: the OS closes its connections and each leader releases its records at once
// (T-LEAVE); in 4.2 the release keeps the delivery count, so the next delivery is dc 2.
func TestFaultKillReleasesAtOnce(t *testing.T) {
	const killAt = 3000
	cfg := ftWorld(1, 10, 2000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c-0", AtMs: killAt, RestartAfterMs: -1}}
	cfg.DurationMs = 60000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	ftOnlyCause(t, res, "crash")
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)

	held := ftLastAcquired(as, "c-0", killAt)
	if len(held) == 0 {
		t.Fatalf("setup: c-0 held nothing at the kill")
	}
	rel, ok := ftFind(evs, "release", "c-0", killAt)
	if !ok || rel.ms != killAt {
		t.Fatalf("want a release line for c-0 at the kill time %d, got %v (found=%v)", killAt, rel.raw, ok)
	}
	if got := rel.num("records"); got != int64(len(held)) {
		t.Errorf("release at kill: %d records, want the %d c-0 held", got, len(held))
	}
	for _, h := range held {
		a, ok := ftReacquired(as, h.p, h.off, killAt, "c-0")
		if !ok {
			t.Errorf("offset %d held by the killed consumer was never re-acquired", h.off)
			continue
		}
		if a.dc != h.dc+1 {
			t.Errorf("offset %d: re-acquired with dc %d, want %d (4.2: the crash consumes an attempt)", h.off, a.dc, h.dc+1)
		}
		// The lock would have expired at h.ms+30000; the release makes it available long before.
		if a.ms-h.ms >= cfg.Kafka.RecordLockDurationMs/2 {
			t.Errorf("offset %d re-acquired %d ms after its first acquisition: not promptly released", h.off, a.ms-h.ms)
		}
	}
	if res.Metrics.Totals.AcquisitionLockTimeouts != 0 {
		t.Errorf("AcquisitionLockTimeouts = %d, want 0: nothing should wait for a lock", res.Metrics.Totals.AcquisitionLockTimeouts)
	}
	if n := ftMark(res, "release-on-leave"); n == 0 {
		t.Errorf("mark release-on-leave not set")
	}
	if res.Metrics.Totals.DuplicatesByCause["crash"] == 0 {
		t.Errorf("duplicates by cause crash = 0: c-0 processed records it never acknowledged")
	}
}

// Hung client: connections stay open, so nothing is released; its records come back only
// when their locks expire, and the group coordinator fences it after the session timeout.
func TestFaultHangWaitsForLocks(t *testing.T) {
	const hangAt = 3000
	cfg := ftWorld(1, 10, 2000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultHang, Target: "c-0", AtMs: hangAt, RestartAfterMs: -1}}
	cfg.DurationMs = 90000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)

	held := ftLastAcquired(as, "c-0", hangAt)
	if len(held) == 0 {
		t.Fatalf("setup: c-0 held nothing when it hung")
	}
	if n := ftCount(evs, "release", "c-0"); n != 0 {
		t.Errorf("%d release lines for the hung consumer, want 0 (its connections stay open)", n)
	}
	for _, h := range held {
		a, ok := ftReacquired(as, h.p, h.off, h.ms, "c-0")
		if !ok {
			t.Errorf("offset %d held by the hung consumer was never redelivered", h.off)
			continue
		}
		if a.ms-h.ms < cfg.Kafka.RecordLockDurationMs {
			t.Errorf("offset %d redelivered %d ms after acquisition, want >= lock duration %d", h.off, a.ms-h.ms, cfg.Kafka.RecordLockDurationMs)
		}
	}
	if res.Metrics.Totals.AcquisitionLockTimeouts < int64(len(held)) {
		t.Errorf("AcquisitionLockTimeouts = %d, want >= %d", res.Metrics.Totals.AcquisitionLockTimeouts, len(held))
	}
	fence, ok := ftFind(evs, "fence-member", "c-0", 0)
	if !ok {
		t.Fatalf("hung member never fenced")
	}
	// Heartbeats run every 5 s from the start; the last one before the hang is at most one
	// interval earlier, and the fence comes a session timeout after it.
	lastHB := hangAt / cfg.Membership.HeartbeatIntervalMs * cfg.Membership.HeartbeatIntervalMs
	if want := lastHB + cfg.Membership.SessionTimeoutMs; fence.ms != want {
		t.Errorf("fence-member at %d, want %d (last heartbeat %d + session timeout)", fence.ms, want, lastHB)
	}
}

// Clean close: pending acks go out with the final session epoch, the leader releases the
// rest at once, the member leaves at once; in implicit mode the last poll's records are
// released, not accepted.
func TestFaultCloseReleasesAndLeaves(t *testing.T) {
	const closeAt = 3000
	cfg := ftWorld(1, 10, 2000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultClose, Target: "c-0", AtMs: closeAt, RestartAfterMs: -1}}
	cfg.DurationMs = 60000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	ftOnlyCause(t, res, "close")
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)

	held := ftLastAcquired(as, "c-0", closeAt)
	if len(held) == 0 {
		t.Fatalf("setup: c-0 held nothing at the close")
	}
	// "At once": within one network hop of the close.
	slack := int64(10)
	rel, ok := ftFind(evs, "release", "c-0", closeAt)
	if !ok || rel.ms > closeAt+slack {
		t.Fatalf("want a release line for c-0 within %d ms of the close, got %q", slack, rel.raw)
	}
	if got := rel.num("records"); got != int64(len(held)) {
		t.Errorf("release on close: %d records, want all %d of the last poll (implicit mode does not accept them)", got, len(held))
	}
	leave, ok := ftFind(evs, "leave", "c-0", 0)
	if !ok || leave.ms != closeAt {
		t.Errorf("want a leave line for c-0 at %d, got %q", closeAt, leave.raw)
	}
	if _, ok := ftFind(evs, "fence-member", "c-0", 0); ok {
		t.Errorf("closed member was fenced: it should have left")
	}
	for _, h := range held {
		a, ok := ftReacquired(as, h.p, h.off, closeAt, "c-0")
		if !ok {
			t.Errorf("offset %d of c-0's last poll was not redelivered: it was accepted on close?", h.off)
			continue
		}
		if a.ms-h.ms >= cfg.Kafka.RecordLockDurationMs/2 {
			t.Errorf("offset %d redelivered only after %d ms", h.off, a.ms-h.ms)
		}
	}
	if res.Metrics.Totals.DuplicatesByCause["close"] == 0 {
		t.Errorf("duplicates by cause close = 0: c-0 processed part of its last poll, which is reprocessed")
	}
}

// Network cut longer than the lock: the cut consumer's locks expire, its records go to the
// other consumer, its acknowledgements arrive too late (or never) and fail, and once the
// network is back it rejoins the group it was fenced from.
func TestFaultNetCutExpiresLocks(t *testing.T) {
	const cutAt, cutFor = 3000, 60000
	// slow takes 15 s a record and polls 5: its batch (75 s) outlives both its locks and the
	// cut, so its implicit acknowledgements reach the leader after the cut, far too late.
	slow := ftConsumer("slow", 1, 15000, 5)
	fast := ftConsumer("fast", 1, 100, 5)
	cfg := ftWorld(1, 1, 150000, slow, fast)
	// Bursts of 10 records every 10 s, so that both consumers get a full poll at once.
	cfg.Producers[0].Rate, cfg.Producers[0].BurstEveryMs, cfg.Producers[0].BurstRecords = sim.RateBursts, 10000, 10
	cfg.Faults = []sim.Fault{{Kind: sim.FaultNetCut, Target: "slow", AtMs: cutAt, DurationMs: cutFor}}
	cfg.DurationMs = 180000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	ftOnlyCause(t, res, "lock_expiry")
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)

	held := ftLastAcquired(as, "slow", cutAt)
	if len(held) == 0 {
		t.Fatalf("setup: slow held nothing at the cut")
	}
	for _, h := range held {
		a, ok := ftReacquired(as, h.p, h.off, h.ms, "slow")
		if !ok {
			t.Errorf("offset %d held by the cut consumer was never redelivered", h.off)
			continue
		}
		if a.ms-h.ms < cfg.Kafka.RecordLockDurationMs || a.ms > cutAt+cutFor {
			t.Errorf("offset %d redelivered at %d (acquired %d): want after lock expiry, during the cut", h.off, a.ms, h.ms)
		}
	}
	if res.Metrics.Totals.AcquisitionLockTimeouts < int64(len(held)) {
		t.Errorf("AcquisitionLockTimeouts = %d, want >= %d", res.Metrics.Totals.AcquisitionLockTimeouts, len(held))
	}
	if res.Metrics.Totals.AckErrors == 0 && res.Metrics.Totals.DuplicatesByCause["lock_expiry"] == 0 {
		t.Errorf("the cut consumer's late acknowledgements did not fail: ack errors 0 and no lock_expiry duplicates")
	}
	if res.Metrics.Totals.DuplicatesByCause["lock_expiry"] == 0 {
		t.Errorf("duplicates by cause lock_expiry = 0, want > 0 (slow finished records whose locks expired)")
	}
	if _, ok := ftFind(evs, "fence-member", "slow", cutAt); !ok {
		t.Errorf("the cut consumer was not fenced by the session timeout during the cut")
	}
	if j, ok := ftFind(evs, "join", "slow", cutAt+1); !ok || j.ms < cutAt+cutFor {
		t.Errorf("the cut consumer did not rejoin after the cut (join line %q)", j.raw)
	}
	if _, ok := ftFind(evs, "acquire", "slow", cutAt+cutFor); !ok {
		t.Errorf("the cut consumer never fetched again after the cut")
	}
}

// A GC pause longer than the lock: records finish after their lock expired, and the other
// consumer processes them again.
func TestFaultPauseLongerThanLock(t *testing.T) {
	const pauseAt, pauseFor = 3000, 40000
	cfg := ftWorld(1, 10, 2000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "c-0", AtMs: pauseAt, DurationMs: pauseFor}}
	cfg.DurationMs = 90000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	ftOnlyCause(t, res, "lock_expiry")
	m := res.Metrics
	if m.Totals.ProcessedAfterLockExpiry == 0 {
		t.Errorf("processed-after-lock-expiry = 0, want > 0 after a %d ms pause with a %d ms lock", pauseFor, cfg.Kafka.RecordLockDurationMs)
	}
	if m.Totals.DuplicatesByCause["lock_expiry"] == 0 {
		t.Errorf("duplicates by cause lock_expiry = 0, want > 0")
	}
	if m.Totals.AcquisitionLockTimeouts == 0 {
		t.Errorf("no lock expired during the pause")
	}
	if ftMark(res, "processed-after-lock-expiry") == 0 {
		t.Errorf("mark processed-after-lock-expiry not set")
	}
}

// ---------------------------------------------------------------------------------------
// Broker-side faults.

// ftAccepted returns, per partition and offset, the earliest time a client learnt that its
// ACCEPT of the offset committed (ack outcome NONE).
func ftAccepted(res *sim.Result) map[string]map[int64]int64 {
	out := map[string]map[int64]int64{}
	for _, op := range res.History {
		if op.Kind != "ack" || op.Code != "NONE" || op.ReturnMs < 0 {
			continue
		}
		for _, r := range op.Acks {
			for off := r.First; off <= r.Last; off++ {
				t := r.Types[0]
				if len(r.Types) > 1 {
					t = r.Types[off-r.First]
				}
				if t != model.AckAccept {
					continue
				}
				m := out[op.Partition]
				if m == nil {
					m = map[int64]int64{}
					out[op.Partition] = m
				}
				if at, ok := m[off]; !ok || op.ReturnMs < at {
					m[off] = op.ReturnMs
				}
			}
		}
	}
	return out
}

// Leader failover: the new leader rebuilds the share-partition from the share coordinator;
// what was acquired at the old leader reverts to its last written state (so the in-flight
// delivery is counted again under the same number), and a committed ACCEPT is final.
func TestFaultLeaderFailover(t *testing.T) {
	const firstAt = 3000
	cfg := ftWorld(1, 1, 60000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultLeaderFailover, Target: "t/0", AtMs: firstAt, EveryMs: 7000, UntilMs: 60000}}
	cfg.DurationMs = 90000
	cfg.HealMs = 60000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	ftOnlyCause(t, res, "failover")
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)

	f, ok := ftFind(evs, "fault", "", firstAt)
	if !ok || f.kv["fault"] != "leader-failover" || f.num("epoch") != 2 {
		t.Fatalf("want the first failover at %d with epoch 2, got %q", firstAt, f.raw)
	}
	load, ok := ftFind(evs, "load", "", f.ms)
	if !ok || load.kv["p"] != "t/0" {
		t.Fatalf("no load of t/0 after the failover")
	}
	if ftMark(res, "failover-reload") == 0 {
		t.Errorf("mark failover-reload not set")
	}
	if n := ftCount(evs, "fault", ""); int64(n) != ftMark(res, "fault-leader-failover") || n < 5 {
		t.Errorf("%d failover lines, %d marks: want equal and >= 5", n, ftMark(res, "fault-leader-failover"))
	}

	// Records acquired at the first failover and never written: the new leader does not
	// know the delivery, so the next one carries the same delivery count.
	held := append(ftLastAcquired(as, "c-0", firstAt), ftLastAcquired(as, "c-1", firstAt)...)
	accepted := ftAccepted(res)["t/0"]
	checked := 0
	for _, h := range held {
		if at, ok := accepted[h.off]; ok && at <= firstAt {
			continue // acknowledged before the failover
		}
		a, ok := ftReacquired(as, h.p, h.off, firstAt, "")
		if !ok {
			t.Errorf("offset %d held at the failover was never delivered again", h.off)
			continue
		}
		checked++
		if a.dc != h.dc {
			t.Errorf("offset %d: delivered with dc %d before the failover and dc %d after, want the same (acquisition is not persisted)", h.off, h.dc, a.dc)
		}
		if a.ms < load.ms {
			t.Errorf("offset %d re-acquired at %d, before the reload at %d", h.off, a.ms, load.ms)
		}
	}
	if checked == 0 {
		t.Fatalf("setup: no record was in flight at the failover")
	}

	// A committed ACCEPT is never undone: no later acquisition of such an offset.
	if len(accepted) == 0 {
		t.Fatalf("setup: nothing accepted")
	}
	for _, a := range as {
		if at, ok := accepted[a.off]; ok && a.ms > at {
			t.Errorf("offset %d acquired by %s at %d after its ACCEPT committed (%d ms)", a.off, a.member, a.ms, at)
		}
	}
	if res.Metrics.Totals.DuplicatesByCause["failover"] == 0 {
		t.Errorf("duplicates by cause failover = 0: processed-but-unacknowledged records were redelivered")
	}
	for _, fs := range res.Final {
		if !fs.Drained {
			t.Errorf("final %+v: not drained after healing", fs)
		}
	}
}

// Share coordinator write failures: acknowledgement writes fail, the acknowledged records
// roll back and are delivered again; the duplicates are attributed to lost acks.
func TestFaultWriteFailWindow(t *testing.T) {
	const from, dur = 3000, 5000
	cfg := ftWorld(1, 10, 30000, ftConsumer("c", 2, 200, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultWriteFail, AtMs: from, DurationMs: dur}}
	cfg.DurationMs = 60000
	cfg.HealMs = 60000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	ftDupBalance(t, res)
	ftOnlyCause(t, res, "lost_ack")
	evs := ftParse(t, res.Trace)
	m := res.Metrics

	failed := 0
	for _, e := range evs {
		if e.kind == "write" && e.kv["code"] != "NONE" {
			failed++
			if e.ms < from || e.ms > from+dur {
				t.Errorf("write failed outside the window: %q", e.raw)
			}
		}
	}
	if failed == 0 || m.StateWritesFailed != int64(failed) {
		t.Errorf("StateWritesFailed = %d, failed write lines = %d: want equal and > 0", m.StateWritesFailed, failed)
	}
	if m.Totals.AckErrors == 0 {
		t.Errorf("acknowledgement errors = 0, want > 0 (clients learn their ACCEPT failed)")
	}
	if ftMark(res, "ack-write-rolled-back") == 0 {
		t.Errorf("mark ack-write-rolled-back not set")
	}
	if m.Totals.DuplicatesByCause["lost_ack"] == 0 {
		t.Errorf("duplicates by cause lost_ack = 0, want > 0")
	}
	if m.Totals.Redeliveries == 0 {
		t.Errorf("no redeliveries after failed acknowledgement writes")
	}
	for _, fs := range res.Final {
		if !fs.Drained {
			t.Errorf("final %+v: not drained", fs)
		}
	}
}

// A slow share coordinator: every acknowledgement waits for its write, so the poll loop
// slows down and end-to-end latency rises, but nothing is lost.
func TestFaultCoordinatorSlow(t *testing.T) {
	build := func(slow bool) sim.Config {
		cfg := ftWorld(1, 50, 60000, ftConsumer("c", 1, 10, 10))
		if slow {
			cfg.Faults = []sim.Fault{{Kind: sim.FaultCoordinatorSlow, AtMs: 5000, DurationMs: 30000, ValueMs: 200}}
		}
		cfg.DurationMs = 60000
		cfg.HealMs = 60000
		return cfg
	}
	base := ftRun(t, build(false), 7)
	slow := ftRun(t, build(true), 7)
	ftDump(t, slow)
	ftDupBalance(t, base)
	ftDupBalance(t, slow)
	for name, r := range map[string]*sim.Result{"base": base, "slow": slow} {
		if r.Metrics.Totals.Finished["accepted"] != r.Metrics.Produced {
			t.Errorf("%s: accepted %d of %d produced records", name, r.Metrics.Totals.Finished["accepted"], r.Metrics.Produced)
		}
		for _, fs := range r.Final {
			if !fs.Drained {
				t.Errorf("%s: final %+v not drained", name, fs)
			}
		}
	}
	if slow.Metrics.E2EP50Ms <= base.Metrics.E2EP50Ms || slow.Metrics.E2EP99Ms <= base.Metrics.E2EP99Ms {
		t.Errorf("e2e p50/p99 with a slow coordinator %d/%d ms, without %d/%d ms: want higher", slow.Metrics.E2EP50Ms, slow.Metrics.E2EP99Ms, base.Metrics.E2EP50Ms, base.Metrics.E2EP99Ms)
	}
	peak := func(r *sim.Result) int64 {
		var mx int64
		for _, s := range r.Metrics.Series {
			for _, p := range s.Partitions {
				mx = max(mx, p.Backlog)
			}
		}
		return mx
	}
	if peak(slow) <= peak(base) {
		t.Errorf("peak backlog %d with a slow coordinator, %d without: want higher", peak(slow), peak(base))
	}
	t.Logf("e2e p50 %d -> %d ms, p99 %d -> %d ms, peak backlog %d -> %d", base.Metrics.E2EP50Ms, slow.Metrics.E2EP50Ms, base.Metrics.E2EP99Ms, slow.Metrics.E2EP99Ms, peak(base), peak(slow))
}

// DeleteRecords past the share-partition start: records never delivered are counted as
// deleted-undelivered, in-flight ones are finalized as log-start, none is delivered again.
func TestFaultDeleteRecords(t *testing.T) {
	const at, n = 10000, 50
	cfg := ftWorld(1, 1, 60000, ftConsumer("c", 1, 1000, 5))
	cfg.Producers[0].Rate, cfg.Producers[0].BurstEveryMs, cfg.Producers[0].BurstRecords = sim.RateBursts, 1000000, 100
	cfg.Faults = []sim.Fault{{Kind: sim.FaultDeleteRecords, Target: "t/0", AtMs: at, ValueMs: n}}
	cfg.DurationMs = 120000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)
	m := res.Metrics

	f, ok := ftFind(evs, "fault", "", at)
	if !ok || f.num("start") != n {
		t.Fatalf("want delete-records moving the log start to %d, got %q", n, f.raw)
	}
	delivered := map[int64]bool{}
	for _, a := range as {
		if a.ms <= at {
			delivered[a.off] = true
		}
		if a.ms > at && a.off < n {
			t.Errorf("offset %d below the new log start delivered at %d", a.off, a.ms)
		}
	}
	if m.Totals.DeletedUndelivered+m.Totals.Finished["log-start"] == 0 {
		t.Fatalf("nothing counted as deleted: DeletedUndelivered %d, finalized log-start %d", m.Totals.DeletedUndelivered, m.Totals.Finished["log-start"])
	}
	if want := int64(n - len(delivered)); m.Totals.DeletedUndelivered != want {
		t.Errorf("DeletedUndelivered = %d, want %d (%d deleted, %d of them delivered before)", m.Totals.DeletedUndelivered, want, n, len(delivered))
	}
	if got := m.Totals.Finished["accepted"] + m.Totals.Finished["log-start"] + m.Totals.DeletedUndelivered; got != m.Produced {
		t.Errorf("accepted %d + log-start %d + deleted-undelivered %d = %d, want every produced record (%d)", m.Totals.Finished["accepted"], m.Totals.Finished["log-start"], m.Totals.DeletedUndelivered, got, m.Produced)
	}
	if ftMark(res, "retention-deleted-undelivered") == 0 {
		t.Errorf("mark retention-deleted-undelivered not set")
	}
	fs := res.Final[0]
	if fs.StartOffset < fs.LogStart || !fs.Drained {
		t.Errorf("final %+v: want start offset >= log start and drained", fs)
	}
}

// Retention while every consumer is down for longer than retention.ms: the records expire
// unread and the share-partition resumes at (or past) the new log start.
func TestFaultRetentionWhileDown(t *testing.T) {
	cfg := ftWorld(1, 10, 200000, ftConsumer("c", 1, 10, 10))
	cfg.Topics[0].RetentionMs = 60000
	cfg.Topics[0].RetentionCheckIntervalMs = 10000
	cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c", AtMs: 20000, RestartAfterMs: 150000}}
	cfg.DurationMs = 240000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	m := res.Metrics
	fs := res.Final[0]

	if ftMark(res, "retention-deleted") == 0 || fs.LogStart == 0 {
		t.Fatalf("retention deleted nothing (log start %d)", fs.LogStart)
	}
	lost := m.Totals.DeletedUndelivered + m.Totals.Finished["log-start"]
	if lost == 0 {
		t.Errorf("no record counted as lost to retention")
	}
	if m.Totals.Finished["accepted"]+lost != m.Produced {
		t.Errorf("accepted %d + lost %d != produced %d", m.Totals.Finished["accepted"], lost, m.Produced)
	}
	if m.Totals.Finished["accepted"] >= m.Produced {
		t.Errorf("accepted every record although the consumer was down %d ms > retention", 150000)
	}
	if fs.StartOffset < fs.LogStart {
		t.Errorf("final start offset %d below the log start %d", fs.StartOffset, fs.LogStart)
	}
	t.Logf("produced %d, accepted %d, deleted undelivered %d, finalized log-start %d, log start %d", m.Produced, m.Totals.Finished["accepted"], m.Totals.DeletedUndelivered, m.Totals.Finished["log-start"], fs.LogStart)
}

// ---------------------------------------------------------------------------------------
// Application failures.

// poisonWorld: 200 records at 20/s, about 1.5% of them poison, two consumers.
func poisonWorld(mode sim.AckMode, onPoison sim.FailureAction) sim.Config {
	c := ftConsumer("c", 2, 50, 10)
	c.AckMode, c.OnPoison, c.RestartAfterCrashMs = mode, onPoison, 2000
	cfg := ftWorld(1, 20, 10000, c)
	cfg.Producers[0].PoisonPerMillion = 15000
	cfg.DurationMs = 120000
	cfg.HealMs = 60000
	return cfg
}

// Poison records with on_poison=crash (implicit mode): each delivery of a poison record
// kills the consumer, whose session release consumes an attempt (4.2), until the record is
// archived at the delivery limit; meanwhile it pins the start offset.
// With explicit mode and on_poison=reject, each poison record is rejected once instead.
func TestPoisonCrashVersusReject(t *testing.T) {
	crash := ftRun(t, poisonWorld(sim.AckImplicit, sim.FailCrash), 3)
	ftDump(t, crash)
	evs := ftParse(t, crash.Trace)
	as := ftAcquisitions(t, evs)
	poison := map[int64]bool{}
	for _, e := range evs {
		if e.kind == "crash" {
			poison[e.num("offset")] = true
		}
	}
	if len(poison) == 0 || ftMark(crash, "consumer-crash") == 0 {
		t.Fatalf("setup: no poison record crashed a consumer")
	}
	m := crash.Metrics
	// When both consumers have crashed the broker has no session of the group left and
	// evicts the share-partition (§7.5); a record archived just before is then loaded in
	// its terminal state and finalized as "restored" rather than "limit".
	if archived := m.Totals.Finished["limit"] + m.Totals.Finished["restored"]; archived < int64(len(poison)) {
		t.Errorf("finalized at the limit %d (+ restored %d), want >= %d poison records delivered", m.Totals.Finished["limit"], m.Totals.Finished["restored"], len(poison))
	}
	if m.Totals.Finished["limit"] == 0 {
		t.Errorf("no record finalized with cause limit")
	}
	if atLimit := m.DeliveryCountHist[5]; atLimit < int64(len(poison)) {
		t.Errorf("delivery count histogram at 5 = %d, want >= %d", atLimit, len(poison))
	}
	for off := range poison {
		maxDC := 0
		for _, a := range as {
			if a.off == off {
				maxDC = max(maxDC, a.dc)
			}
		}
		if maxDC != 5 {
			t.Errorf("poison offset %d: highest delivery count %d, want the limit 5", off, maxDC)
		}
	}
	if m.SPSOStuckMaxMs <= 0 {
		t.Errorf("SPSOStuckMaxMs = %d, want > 0 (the poison record pins the start offset)", m.SPSOStuckMaxMs)
	}
	if got := m.Totals.Finished["accepted"] + m.Totals.Finished["limit"] + m.Totals.Finished["restored"]; got != m.Produced {
		t.Errorf("finalized %v adds up to %d, want the %d produced", m.Totals.Finished, got, m.Produced)
	}

	reject := ftRun(t, poisonWorld(sim.AckExplicit, sim.FailReject), 3)
	ftDump(t, reject)
	r := reject.Metrics
	if n := ftMark(reject, "consumer-crash"); n != 0 {
		t.Errorf("reject mode: %d crashes, want 0", n)
	}
	if r.Totals.Finished["rejected"] != r.Totals.FailedProcessing || r.Totals.Finished["rejected"] == 0 {
		t.Errorf("reject mode: rejected %d, failed processings %d: want equal and > 0", r.Totals.Finished["rejected"], r.Totals.FailedProcessing)
	}
	// Same seed, same producer: the same offsets are poison in both runs.
	if r.Totals.Finished["rejected"] != int64(len(poison)) {
		t.Errorf("reject mode rejected %d records, crash mode found %d poison records", r.Totals.Finished["rejected"], len(poison))
	}
	if r.Totals.Finished["limit"] != 0 || r.Totals.Finished["accepted"]+r.Totals.Finished["rejected"] != r.Produced {
		t.Errorf("reject mode: limit %d, accepted %d + rejected %d vs produced %d", r.Totals.Finished["limit"], r.Totals.Finished["accepted"], r.Totals.Finished["rejected"], r.Produced)
	}
}

// A downstream outage with explicit RELEASE on failure: every delivery during the outage
// fails, is released and is redelivered at once, so good records burn their attempts and
// are archived at the limit. The count answers "how many good records are archived".
func TestDownstreamOutageArchivesGoodRecords(t *testing.T) {
	build := func(outage bool) sim.Config {
		// 2 consumers × 10 ms a record: 200 deliveries/s, far above the 5 × 10 records/s
		// that burning every attempt of every new record takes.
		c := ftConsumer("c", 2, 10, 10)
		c.AckMode, c.OnFailure = sim.AckExplicit, sim.FailRelease
		cfg := ftWorld(1, 10, 90000, c)
		if outage {
			cfg.Faults = []sim.Fault{{Kind: sim.FaultDownstreamOutage, AtMs: 20000, DurationMs: 40000}}
		}
		cfg.DurationMs = 90000
		cfg.HealMs = 30000
		return cfg
	}
	base := ftRun(t, build(false), 5)
	res := ftRun(t, build(true), 5)
	ftDump(t, res)
	m := res.Metrics
	if base.Metrics.Totals.Finished["limit"] != 0 {
		t.Errorf("without the outage %d records archived at the limit, want 0", base.Metrics.Totals.Finished["limit"])
	}
	archived := m.Totals.Finished["limit"]
	// Production during the outage: 40 s at 10 records/s. All of them are delivered five
	// times during the outage (a delivery cycle takes about 100 ms), except those produced
	// in the last half second or so; records in flight when it starts may be archived too.
	if archived < 380 || archived > 410 {
		t.Errorf("good records archived at the limit = %d, want about the 400 produced during the outage", archived)
	}
	if m.DeliveryCountHist[5] < archived {
		t.Errorf("delivery count histogram at 5 = %d, want >= %d archived", m.DeliveryCountHist[5], archived)
	}
	if m.Totals.Finished["accepted"]+archived != m.Produced {
		t.Errorf("accepted %d + archived %d != produced %d", m.Totals.Finished["accepted"], archived, m.Produced)
	}
	if m.Totals.RecordAcknowledgements["RELEASE"] < 4*archived {
		t.Errorf("RELEASE acknowledgements %d, want >= 4 per archived record (%d)", m.Totals.RecordAcknowledgements["RELEASE"], 4*archived)
	}
	t.Logf("good records archived at delivery limit 5 during a 40 s outage: %d of %d produced", archived, m.Produced)
}

// Kafka 4.1 versus 4.2 on repeated kills: in 4.1 the session release of a killed client
// gives the delivery attempt back, in 4.2 it keeps it, so one record delivered to a consumer
// that is killed again and again is archived in 4.2 and finally processed in 4.1.
func TestKillDeliveryCountByVersion(t *testing.T) {
	for _, v := range []model.Version{model.Kafka41, model.Kafka42} {
		t.Run(v.String(), func(t *testing.T) {
			cfg := ftWorld(1, 1, 500, ftConsumer("c", 1, 10000, 1)) // one record, at 0
			cfg.Kafka.Version = v
			cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c", AtMs: 1000, EveryMs: 3000, UntilMs: 20000, RestartAfterMs: 500}}
			cfg.DurationMs = 60000
			res := ftRun(t, cfg, 1)
			ftDump(t, res)
			evs := ftParse(t, res.Trace)
			as := ftAcquisitions(t, evs)
			m := res.Metrics
			if m.Produced != 1 {
				t.Fatalf("setup: produced %d records, want 1", m.Produced)
			}
			kills := ftCount(evs, "kill", "")
			maxDC := 0
			for _, a := range as {
				maxDC = max(maxDC, a.dc)
			}
			switch v {
			case model.Kafka41:
				if maxDC != 1 || m.Totals.Finished["accepted"] != 1 || m.Totals.Finished["limit"] != 0 {
					t.Errorf("4.1 after %d kills: max dc %d, accepted %d, archived %d; want dc 1 throughout and the record processed", kills, maxDC, m.Totals.Finished["accepted"], m.Totals.Finished["limit"])
				}
				if len(as) < 5 {
					t.Errorf("4.1: %d deliveries, want more than the limit", len(as))
				}
			case model.Kafka42:
				// The fifth kill archives the record. It is alone, so the eviction that
				// follows the last session's disconnect reloads it in its terminal state.
				archived := m.Totals.Finished["limit"] + m.Totals.Finished["restored"]
				if maxDC != 5 || len(as) != 5 || archived != 1 || m.Totals.Finished["accepted"] != 0 || m.DeliveryCountHist[5] != 1 {
					t.Errorf("4.2 after %d kills: %d deliveries, max dc %d, finalized %v, dc histogram %v; want 5 deliveries then archived with dc 5", kills, len(as), maxDC, m.Totals.Finished, m.DeliveryCountHist)
				}
				if m.Totals.Processed != 0 {
					t.Errorf("4.2: processed %d times, want never (each delivery is killed)", m.Totals.Processed)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// Classic groups and healing.

// A killed member of a classic group: its partition stalls (nobody reads it) until the
// session timeout, then the new owner resumes from the last committed offset and
// reprocesses what the dead member had processed since.
func TestClassicKillStallsUntilSessionTimeout(t *testing.T) {
	const killAt = 20000
	cfg := ftWorld(2, 20, 120000, ftConsumer("c", 2, 50, 10))
	cfg.Groups[0].Type = sim.ClassicGroup
	cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c-0", AtMs: killAt, RestartAfterMs: -1}}
	cfg.DurationMs = 120000
	cfg.HealMs = 30000
	cfg.MetricsIntervalMs = 1000
	res := ftRun(t, cfg, 1)
	ftDump(t, res)
	evs := ftParse(t, res.Trace)
	fence, ok := ftFind(evs, "fence-member", "c-0", killAt)
	if !ok {
		t.Fatalf("killed classic member never fenced")
	}
	if d := fence.ms - killAt; d > cfg.Membership.SessionTimeoutMs || d < cfg.Membership.SessionTimeoutMs-cfg.Membership.HeartbeatIntervalMs {
		t.Errorf("fenced %d ms after the kill, want within a heartbeat interval below the %d ms session timeout", d, cfg.Membership.SessionTimeoutMs)
	}
	// c-0 joined first and owns t/0 (range assignment).
	var stalled []int64
	var after int64 = -1
	for _, s := range res.Metrics.Series {
		for _, p := range s.Partitions {
			if p.Partition != "t/0" {
				continue
			}
			switch {
			case s.TimeMs > killAt+1000 && s.TimeMs < fence.ms:
				stalled = append(stalled, p.StartOffset)
			case s.TimeMs > fence.ms+5000 && after < 0:
				after = p.StartOffset
			}
		}
	}
	if len(stalled) < 10 {
		t.Fatalf("setup: %d samples between kill and fence", len(stalled))
	}
	for _, v := range stalled {
		if v != stalled[0] {
			t.Errorf("t/0's committed offset moved from %d to %d while its owner was dead and not yet fenced", stalled[0], v)
			break
		}
	}
	if after <= stalled[0] {
		t.Errorf("t/0's committed offset %d after the fence, %d before: the new owner did not resume", after, stalled[0])
	}
	if res.Metrics.Totals.ClassicReprocessed == 0 {
		t.Errorf("ClassicReprocessed = 0: the new owner should reprocess from the last commit")
	}
	for _, fs := range res.Final {
		if !fs.Drained {
			t.Errorf("final %+v not drained", fs)
		}
	}
}

// After a main phase full of kills and failovers, a long healing phase drains everything:
// no record stays acquired, every share-partition reaches the log end, and every offset is
// finalized exactly once (producer batches of 5 records, so evictions hit partly
// acknowledged batches).
func TestHealingDrains(t *testing.T) {
	cfg := ftWorld(2, 20, 0, ftConsumer("c", 3, 100, 10))
	cfg.Producers[0].BatchRecords = 5
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, Target: "c", AtMs: 5000, EveryMs: 10000, RestartAfterMs: 3000},
		{Kind: sim.FaultLeaderFailover, AtMs: 7000, EveryMs: 15000},
		{Kind: sim.FaultHang, Target: "c", AtMs: 22000, RestartAfterMs: -1},
	}
	cfg.DurationMs = 60000
	cfg.HealMs = 120000
	res := ftRun(t, cfg, 11)
	ftDump(t, res)
	ftDupBalance(t, res)
	if ftMark(res, "fault-kill") < 3 || ftMark(res, "fault-leader-failover") < 3 {
		t.Fatalf("setup: kills %d, failovers %d", ftMark(res, "fault-kill"), ftMark(res, "fault-leader-failover"))
	}
	var ends int64
	for _, fs := range res.Final {
		ends += fs.LogEnd
		if !fs.Drained || fs.Acquired != 0 || fs.StartOffset != fs.LogEnd {
			t.Errorf("final %+v: want drained, nothing acquired, start offset at the log end", fs)
		}
	}
	m := res.Metrics
	var finalized int64
	for _, n := range m.Totals.Finished {
		finalized += n
	}
	if finalized != ends {
		t.Errorf("finalized %d offsets (%v), the logs end at %d in total: want each offset once", finalized, m.Totals.Finished, ends)
	}
}

// Killed client whose connection reset the brokers see 5 s later (network.reset_delay): the
// records it held stay acquired until then, and are released at the reset.
func TestFaultKillResetDelay(t *testing.T) {
	const killAt, delay = 3000, 5000
	cfg := ftWorld(1, 10, 2000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c-0", AtMs: killAt, RestartAfterMs: -1}}
	cfg.Network.ResetDelayMs = delay
	cfg.DurationMs = 60000
	res := ftRun(t, cfg, 1)
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)
	held := ftLastAcquired(as, "c-0", killAt)
	if len(held) == 0 {
		t.Fatalf("setup: c-0 held nothing at the kill")
	}
	rel, ok := ftFind(evs, "release", "c-0", killAt)
	if !ok || rel.ms != killAt+delay {
		t.Fatalf("want the release of c-0's records at %d (kill + reset delay), got %q (found=%v)", killAt+delay, rel.raw, ok)
	}
	for _, h := range held {
		if a, ok := ftReacquired(as, h.p, h.off, killAt, "c-0"); !ok || a.ms < killAt+delay {
			t.Errorf("offset %d re-acquired at %d (found=%v), want after the reset at %d", h.off, a.ms, ok, killAt+delay)
		}
	}
}

// Host loss: no connection reset at all. The records the lost client held come back only
// when their locks expire (30 s), the member is fenced at the session timeout (45 s), and
// no release happens until the broker drops the idle connection (10 min).
func TestFaultHostLoss(t *testing.T) {
	const lossAt = 3000
	cfg := ftWorld(1, 10, 2000, ftConsumer("c", 2, 1000, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultHostLoss, Target: "c-0", AtMs: lossAt, RestartAfterMs: -1}}
	cfg.DurationMs = 120000
	res := ftRun(t, cfg, 1)
	evs := ftParse(t, res.Trace)
	as := ftAcquisitions(t, evs)
	held := ftLastAcquired(as, "c-0", lossAt)
	if len(held) == 0 {
		t.Fatalf("setup: c-0 held nothing at the loss")
	}
	if rel, ok := ftFind(evs, "release", "c-0", lossAt); ok {
		t.Errorf("a release for the lost client at %d: %q; want none (no connection reset)", rel.ms, rel.raw)
	}
	for _, h := range held {
		a, ok := ftReacquired(as, h.p, h.off, lossAt, "c-0")
		if !ok || a.ms < h.ms+cfg.Kafka.RecordLockDurationMs {
			t.Errorf("offset %d acquired at %d re-acquired at %d (found=%v), want after its lock expired at %d", h.off, h.ms, a.ms, ok, h.ms+cfg.Kafka.RecordLockDurationMs)
		}
	}
	fence, ok := ftFind(evs, "fence-member", "c-0", lossAt)
	if !ok || fence.ms < lossAt+cfg.Membership.SessionTimeoutMs-cfg.Membership.HeartbeatIntervalMs || fence.ms > lossAt+cfg.Membership.SessionTimeoutMs {
		t.Errorf("member fenced at %d (found=%v), want within a heartbeat interval before %d", fence.ms, ok, lossAt+cfg.Membership.SessionTimeoutMs)
	}
}
