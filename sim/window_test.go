package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// With a log read latency the busy world still runs deterministically, fetches read and
// acquire as two events, and other events on the same share-partition land in between
// (the read-then-acquire window Kafka has).
func TestLogReadLatencyOpensTheWindow(t *testing.T) {
	cfg := busyConfig()
	cfg.LogReadLatency = dist.Must(dist.Uniform(1, 40))
	run := func() *sim.Result {
		res, err := sim.Run(cfg, 7, sim.Options{KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if a.TraceSHA256 != b.TraceSHA256 {
		t.Fatalf("two runs differ: %s vs %s", a.TraceSHA256, b.TraceSHA256)
	}
	reads, windowed, between := 0, 0, 0
	open := map[string]int{} // partition → events on it since its read
	for _, line := range a.Trace {
		p := field(line, "p=")
		switch {
		case strings.Contains(line, " log-read "):
			reads++
			open[p] = 0
		case strings.Contains(line, " acquire ") && strings.Contains(line, "read_at="):
			if n, ok := open[p]; ok && n > 0 {
				windowed++
			}
			delete(open, p)
		default:
			if _, ok := open[p]; ok && p != "" {
				open[p]++
				between++
			}
		}
	}
	t.Logf("%d reads, %d acquisitions with other events on the partition in between (%d such events)", reads, windowed, between)
	if reads < 100 || windowed == 0 {
		t.Fatalf("%d log reads, %d windows with events in between: the window never opened", reads, windowed)
	}
}

// field returns the value of key (e.g. "p=") in a trace line, or "".
func field(line, key string) string {
	i := strings.Index(line, " "+key)
	if i < 0 {
		return ""
	}
	v := line[i+1+len(key):]
	if j := strings.IndexByte(v, ' '); j >= 0 {
		v = v[:j]
	}
	return v
}

// A write-fail fault naming GROUP_ID_NOT_FOUND: the acknowledging clients get that error
// (Kafka passes it through) and the leader discards the share-partition (a fencing error),
// which the next fetch reloads. With reads: true, a failover during the fault makes the
// state read fail: the share-partition is FAILED, the fetch that started the load gets
// COORDINATOR_NOT_AVAILABLE (mapped from COORDINATOR_LOAD_IN_PROGRESS), and the client's
// later fetches load it again once the fault is over. Nothing is lost.
func TestFaultWriteFailErrorsAndFailedLoads(t *testing.T) {
	cfg := ftWorld(1, 10, 30000, ftConsumer("c", 2, 200, 5))
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultWriteFail, AtMs: 3000, DurationMs: 2000, Error: model.ErrGroupIDNotFound},
		{Kind: sim.FaultWriteFail, AtMs: 10000, DurationMs: 3000, Error: model.ErrCoordinatorLoadInProgress, Reads: true},
		{Kind: sim.FaultLeaderFailover, Target: "t/0", AtMs: 10500},
	}
	cfg.DurationMs = 60000
	cfg.HealMs = 60000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	res, err := sim.Run(cfg, 3, sim.Options{KeepTrace: true, RecordHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	fenced, failedLoads := 0, 0
	for _, line := range res.Trace {
		switch {
		case strings.Contains(line, " evict ") && strings.Contains(line, "why=fenced-write"):
			fenced++
		case strings.Contains(line, " load-failed ") && strings.Contains(line, "code=COORDINATOR_LOAD_IN_PROGRESS") && strings.Contains(line, "answer=COORDINATOR_NOT_AVAILABLE"):
			failedLoads++
		}
	}
	ackGroup, fetchCNA := 0, 0
	for _, op := range res.History {
		switch {
		case op.Kind == "ack" && op.Code == "GROUP_ID_NOT_FOUND":
			ackGroup++
		case op.Kind == "fetch" && op.Code == "COORDINATOR_NOT_AVAILABLE":
			fetchCNA++
		}
	}
	t.Logf("%d fenced-write evictions, %d failed loads, %d GROUP_ID_NOT_FOUND acks, %d fetches answered COORDINATOR_NOT_AVAILABLE", fenced, failedLoads, ackGroup, fetchCNA)
	if fenced == 0 || failedLoads == 0 || ackGroup == 0 || fetchCNA == 0 {
		t.Fatalf("want each > 0")
	}
	for _, fs := range res.Final {
		if !fs.Drained {
			t.Errorf("final %+v: not drained", fs)
		}
	}
}
