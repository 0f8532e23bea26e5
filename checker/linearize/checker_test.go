package linearize_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

func world() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs, cfg.HealMs = 60_000, 120_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Network.ResponseLossPerMillion = 5_000
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 2, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: 40, BatchRecords: 4}}
	c := sim.DefaultConsumer("c")
	c.Count = 3
	c.AckMode = sim.AckExplicit
	c.Processing = dist.Must(dist.Exponential(50))
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{c}}}
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, AtMs: 10_000, EveryMs: 20_000, RestartAfterMs: 3_000},
		{Kind: sim.FaultLeaderFailover, AtMs: 15_000, EveryMs: 25_000},
	}
	return cfg
}

// The checker runs "linearizable" by default, reports a broken history as violations that
// name the share-partition and offsets, and writes porcupine's visualisation.
func TestCheckerRunsLinearizable(t *testing.T) {
	cfg := world()
	if !slices.Contains(checker.DefaultChecks, "linearizable") {
		t.Fatal(`"linearizable" is not a default check`)
	}
	run := func(mutate func(*sim.Result)) (*checker.Checker, []checker.Violation) {
		ck, err := checker.New(cfg, []string{"linearizable"})
		if err != nil {
			t.Fatal(err)
		}
		if !ck.NeedsHistory() {
			t.Fatal("the linearizable check must ask for the history")
		}
		var last *sim.World
		res, err := sim.Run(cfg, 3, sim.Options{RecordHistory: true, Observer: func(w *sim.World) {
			last = w
			ck.Observe(w)
		}})
		if err != nil {
			t.Fatal(err)
		}
		mutate(res)
		return ck, ck.Finish(last, res)
	}

	ck, vs := run(func(*sim.Result) {})
	if len(vs) != 0 || ck.Linearizability() == nil || ck.Linearizability().Verdict != "Ok" {
		t.Fatalf("clean run: %v, %v", vs, ck.Linearizability())
	}
	path := filepath.Join(t.TempDir(), "linearizability.html")
	if wrote, err := ck.WriteLinearizabilityHTML(path); wrote || err != nil {
		t.Errorf("clean run wrote a visualisation (%v, %v)", wrote, err)
	}

	// Deliver the first accepted record again, to another client, long after.
	var victim sim.Op
	var off int64
	ck, vs = run(func(res *sim.Result) {
		for _, op := range res.History {
			if op.Kind == "ack" && op.Code == "NONE" && op.Acks[0].Types[0] == model.AckAccept {
				victim = op
				break
			}
		}
		off = victim.Acks[0].First
		res.History = append(res.History, sim.Op{Client: "intruder#1", Group: victim.Group, Partition: victim.Partition, Kind: "fetch",
			CallMs: victim.ReturnMs + 100_000, ReturnMs: victim.ReturnMs + 100_001, Code: "NONE",
			Acquired: []model.AcquiredRange{{First: off, Last: off, DeliveryCount: 2}}})
	})
	if len(vs) == 0 {
		t.Fatal("the redelivery after an accepted acknowledgement was not reported")
	}
	v := vs[0]
	if v.Check != "linearizable" || v.Group != victim.Group || v.Partition != victim.Partition || v.Member != "intruder#1" ||
		v.Offsets != strconv.FormatInt(off, 10) || !strings.Contains(v.String(), "offsets "+v.Offsets) {
		t.Errorf("violation %+v", v)
	}
	wrote, err := ck.WriteLinearizabilityHTML(path)
	if !wrote || err != nil {
		t.Fatalf("visualisation not written: %v", err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "intruder#1") {
		t.Errorf("the visualisation does not show the offending operation")
	}
}
