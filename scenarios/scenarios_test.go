package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// base is a small valid workload the table tests extend.
const base = `kind: workload
name: t
topics:
  - name: orders
    partitions: 2
producers:
  - topic: orders
    rate: 10/s
groups:
  - name: g
    consumers:
      - name: c
`

func mustParse(t *testing.T, src string) *Scenario {
	t.Helper()
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return s
}

func mustConfig(t *testing.T, s *Scenario) sim.Config {
	t.Helper()
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatalf("SimConfig: %v", err)
	}
	return cfg
}

func TestParseGood(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		check func(t *testing.T, c sim.Config, s *Scenario)
	}{
		{"defaults", base, func(t *testing.T, c sim.Config, s *Scenario) {
			if c.DurationMs != 600000 || c.HealMs != 0 || c.Brokers != 3 || c.MetricsIntervalMs != 10000 {
				t.Errorf("top-level defaults: %+v", c)
			}
			if c.Kafka != model.DefaultConfig() {
				t.Errorf("kafka defaults: %+v", c.Kafka)
			}
			p := c.Producers[0]
			if p.Name != "p0" || p.RecordsPerSecond != 10 || p.BatchRecords != 10 || p.Rate != sim.RateConstant {
				t.Errorf("producer: %+v", p)
			}
			cs := c.Groups[0].Consumers[0]
			if !reflect.DeepEqual(cs, sim.DefaultConsumer("c")) {
				t.Errorf("consumer defaults: %+v", cs)
			}
			if !reflect.DeepEqual(c.Groups[0].Topics, []string{"orders"}) {
				t.Errorf("group topics default to all: %v", c.Groups[0].Topics)
			}
			if s.Seed() != 1 || !reflect.DeepEqual(s.Checks(), []string{"all"}) || s.Kind() != KindWorkload || s.Title() != "t" {
				t.Errorf("meta defaults: seed %d checks %v kind %s title %q", s.Seed(), s.Checks(), s.Kind(), s.Title())
			}
		}},
		{"kafka section and duration forms", base + `kafka:
  version: "4.1"
  share.record.lock.duration.ms: 45000
  group.share.min.record.lock.duration.ms: 10s
  group.share.max.record.lock.duration.ms: 1h
  group.share.delivery.count.limit: 10
  group.share.partition.max.record.locks: 100
  share.isolation.level: read_committed
  share.auto.offset.reset: by_duration:PT1H
duration: 2m30s
heal: 1.5s
metrics_interval: 500ms
seed: 18446744073709551615
checks: [inflight-within-cap, no-silent-loss]
questions: [1, 25]
`, func(t *testing.T, c sim.Config, s *Scenario) {
			k := c.Kafka
			if k.Version != model.Kafka41 || k.RecordLockDurationMs != 45000 || k.MinRecordLockDurationMs != 10000 ||
				k.MaxRecordLockDurationMs != 3600000 || k.DeliveryCountLimit != 10 || k.PartitionMaxRecordLocks != 100 ||
				k.IsolationLevel != model.ReadCommitted || k.AutoOffsetReset != (model.AutoOffsetReset{Kind: model.ResetByDuration, DurationMs: 3600000}) {
				t.Errorf("kafka: %+v", k)
			}
			if c.DurationMs != 150000 || c.HealMs != 1500 || c.MetricsIntervalMs != 500 {
				t.Errorf("durations: %d %d %d", c.DurationMs, c.HealMs, c.MetricsIntervalMs)
			}
			if s.Seed() != 18446744073709551615 || !reflect.DeepEqual(s.Questions(), []int{1, 25}) || len(s.Checks()) != 2 {
				t.Errorf("meta: %d %v %v", s.Seed(), s.Questions(), s.Checks())
			}
		}},
		{"broker form of the lock key", base + "kafka:\n  group.share.record.lock.duration.ms: 20s\n", func(t *testing.T, c sim.Config, _ *Scenario) {
			if c.Kafka.RecordLockDurationMs != 20000 {
				t.Errorf("lock %d", c.Kafka.RecordLockDurationMs)
			}
		}},
		{"rates, probabilities, producer options", `topics: [{name: a}, {name: b, partitions: 3, retention.ms: 1h, retention.records: 1000, log.retention.check.interval.ms: 30000}]
producers:
  - {name: x, topic: a, rate: 120/m, arrival: poisson, poison: 1/10000, compacted: 0.5%, keys: 7, start: 1s, stop: 1m}
  - {name: y, topic: b, rate: 3600/h, batch_records: 1, transactional: true, txn_batches: 4, abort: 0.25, txn_commit_delay: 60s}
  - {name: z, topic: b, arrival: bursts, burst_every: 10s, burst_records: 500}
`, func(t *testing.T, c sim.Config, _ *Scenario) {
			x, y, z := c.Producers[0], c.Producers[1], c.Producers[2]
			if x.RecordsPerSecond != 2 || x.Rate != sim.RatePoisson || x.PoisonPerMillion != 100 || x.CompactedPerMillion != 5000 || x.Keys != 7 || x.StartMs != 1000 || x.StopMs != 60000 {
				t.Errorf("x: %+v", x)
			}
			if y.RecordsPerSecond != 1 || !y.Transactional || y.TxnBatches != 4 || y.AbortPerMillion != 250000 || y.TxnCommitDelayMs != 60000 {
				t.Errorf("y: %+v", y)
			}
			if z.Rate != sim.RateBursts || z.BurstEveryMs != 10000 || z.BurstRecords != 500 || z.RecordsPerSecond != 50 {
				t.Errorf("z: %+v", z)
			}
			tb := c.Topics[1]
			if tb.Partitions != 3 || tb.RetentionMs != 3600000 || tb.RetentionRecords != 1000 || tb.RetentionCheckIntervalMs != 30000 {
				t.Errorf("topic: %+v", tb)
			}
			if c.Topics[0].RetentionMs != -1 || c.Topics[0].RetentionRecords != -1 {
				t.Errorf("retention defaults: %+v", c.Topics[0])
			}
		}},
		{"every consumer field and distributions", `topics: [{name: t}]
groups:
  - name: g
    consumers:
      - name: a
        count: 0
        start: 5s
        processing: {lognormal: {p50: 8s, p99: 40s}}
        slow_factor: 2.5
        share.acknowledgement.mode: explicit
        commit: sync
        max.poll.records: 7
        share.acquire.mode: record_limit
        fetch.max.wait.ms: 100
        failure: 1%
        on_failure: release
        on_poison: reject
        renew_every: 20s
        restart_after_crash: never
      - {name: b, processing: 15ms}
      - {name: c, processing: {uniform: {min: 1s, max: 5s}}}
      - {name: d, processing: {exponential: {mean: 20s}}}
      - {name: e, processing: {pareto: {scale: 1s, shape: 1.5}}}
      - {name: f, processing: {normal: {mean: 1s, stddev: 200ms}}}
      - {name: h, processing: {lognormal: {mu: 9, sigma: 0.5}}}
      - {name: i, processing: {bimodal: {a: {constant: 10ms}, b: {exponential: {mean: 5s}}, p_b: 10%}}}
  - {name: cl, type: classic, auto.commit.interval.ms: 1s, consumers: [{name: k, restart_after_crash: -1}]}
coordinator: {write_latency: {constant: 200ms}, read_latency: 1ms, write_failure: 1/1000}
network: {latency: {uniform: {min: 1ms, max: 3ms}}, response_loss: 0.001, request.timeout.ms: 10s}
membership: {group.share.session.timeout.ms: 45s, group.share.heartbeat.interval.ms: 5000}
`, func(t *testing.T, c sim.Config, _ *Scenario) {
			a := c.Groups[0].Consumers[0]
			want := sim.ConsumerSpec{Name: "a", Count: 0, StartMs: 5000, Processing: a.Processing, SlowFactor: 2.5,
				AckMode: sim.AckExplicit, Commit: sim.CommitSync, MaxPollRecords: 7, AcquireMode: model.RecordLimit, MaxWaitMs: 100,
				FailurePerMillion: 10000, OnFailure: sim.FailRelease, OnPoison: sim.FailReject, RenewEveryMs: 20000, RestartAfterCrashMs: -1}
			if !reflect.DeepEqual(a, want) {
				t.Errorf("consumer a:\n got  %+v\n want %+v", a, want)
			}
			dists := map[string]string{}
			for _, cs := range c.Groups[0].Consumers {
				dists[cs.Name] = cs.Processing.String()
			}
			wantD := map[string]string{
				"a": "lognormal{p50=8s,p99=40s}", "b": "constant{15ms}", "c": "uniform{min=1s,max=5s}",
				"d": "exponential{mean=20s}", "e": "pareto{scale=1s,shape=1.5}", "f": "normal{mean=1s,stddev=200ms,min=0}",
				"h": "lognormal{mu=9,sigma=0.5}", "i": "bimodal{a=constant{10ms},b=exponential{mean=5s},pB=0.1}",
			}
			if !reflect.DeepEqual(dists, wantD) {
				t.Errorf("distributions:\n got  %v\n want %v", dists, wantD)
			}
			cl := c.Groups[1]
			if cl.Type != sim.ClassicGroup || cl.AutoCommitIntervalMs != 1000 || cl.Consumers[0].RestartAfterCrashMs != -1 {
				t.Errorf("classic group: %+v", cl)
			}
			if c.Coordinator.WriteLatency.String() != "constant{200ms}" || c.Coordinator.ReadLatency.String() != "constant{1ms}" || c.Coordinator.WriteFailPerMillion != 1000 {
				t.Errorf("coordinator: %+v", c.Coordinator)
			}
			if c.Network.Latency.String() != "uniform{min=1ms,max=3ms}" || c.Network.ResponseLossPerMillion != 1000 || c.Network.RequestTimeoutMs != 10000 {
				t.Errorf("network: %+v", c.Network)
			}
			if c.Membership.SessionTimeoutMs != 45000 || c.Membership.HeartbeatIntervalMs != 5000 {
				t.Errorf("membership: %+v", c.Membership)
			}
		}},
		{"faults and swarm", base + `faults:
  - {kind: kill, target: c, at: 1m, every: 30s, until: 5m, probability: 50%, restart_after: 10s}
  - {kind: netcut, at: 2m, duration: 1m}
  - {kind: coordinator-slow, at: 3m, duration: 30s, value: 200ms}
  - {kind: delete-records, target: orders/1, value: 500}
  - {kind: leader-failover, target: orders}
  - {kind: hang, target: c}
swarm: {kinds: [kill, lock-expiry], count: 7}
`, func(t *testing.T, c sim.Config, _ *Scenario) {
			want := []sim.Fault{
				{Kind: sim.FaultKill, Target: "c", AtMs: 60000, EveryMs: 30000, UntilMs: 300000, PerMillion: 500000, RestartAfterMs: 10000},
				{Kind: sim.FaultNetCut, AtMs: 120000, DurationMs: 60000, RestartAfterMs: -1},
				{Kind: sim.FaultCoordinatorSlow, AtMs: 180000, DurationMs: 30000, ValueMs: 200, RestartAfterMs: -1},
				{Kind: sim.FaultDeleteRecords, Target: "orders/1", ValueMs: 500, RestartAfterMs: -1},
				{Kind: sim.FaultLeaderFailover, Target: "orders", RestartAfterMs: -1},
				{Kind: sim.FaultHang, Target: "c", RestartAfterMs: -1},
			}
			if !reflect.DeepEqual(c.Faults, want) {
				t.Errorf("faults:\n got  %+v\n want %+v", c.Faults, want)
			}
			if c.Swarm == nil || c.Swarm.Count != 7 || !reflect.DeepEqual(c.Swarm.Kinds, []sim.FaultKind{sim.FaultKill, sim.FaultLockExpiry}) {
				t.Errorf("swarm: %+v", c.Swarm)
			}
		}},
		{"a fault on a partition an add-partitions fault adds", base + `faults:
  - {kind: leader-failover, target: orders/3, at: 2m}
  - {kind: add-partitions, target: orders, count: 2, at: 1m}
  - {kind: delete-records, target: orders/2, at: 1m, value: 5}
`, func(t *testing.T, c sim.Config, _ *Scenario) {
			if len(c.Faults) != 3 || c.Faults[0].Target != "orders/3" || c.Faults[2].Target != "orders/2" {
				t.Errorf("faults %+v", c.Faults)
			}
			if n := c.PartitionsAt("orders", 60000, 2); n != 4 {
				t.Errorf("PartitionsAt(orders, 1m, after the add) = %d, want 4", n)
			}
			if n := c.PartitionsAt("orders", 60000, 0); n != 2 {
				t.Errorf("PartitionsAt(orders, 1m, before the add in file order) = %d, want 2", n)
			}
		}},
		{"a kill that waits for its target to hold records", base + "faults: [{kind: kill, target: c, at: 1m, holding: true}]\n", func(t *testing.T, c sim.Config, _ *Scenario) {
			if len(c.Faults) != 1 || !c.Faults[0].Holding {
				t.Errorf("faults %+v, want one holding kill", c.Faults)
			}
		}},
		{"checks none and an instance target", base[:len(base)-1] + "\n        count: 3\nchecks: none\nfaults: [{kind: kill, target: c-2}]\n", func(t *testing.T, c sim.Config, s *Scenario) {
			if len(s.Checks()) != 0 || c.Faults[0].Target != "c-2" {
				t.Errorf("checks %v target %q", s.Checks(), c.Faults[0].Target)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.src)
			tc.check(t, mustConfig(t, s), s)
		})
	}
}

// TestParseBad checks position and message of each kind of problem.
func TestParseBad(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		line, col int
		frags     []string
	}{
		{"unknown key with suggestion", "kafka:\n  share.record.lock.durations.ms: 30s\n", 2, 3,
			[]string{"x.yaml:2:3: kafka.share.record.lock.durations.ms: found an unknown key", `did you mean "share.record.lock.duration.ms"?`}},
		{"unknown top-level key", "kidn: workload\n", 1, 1, []string{"kidn", `did you mean "kind"?`}},
		{"unknown consumer key", base + "        max.pol.records: 5\n", 13, 9, []string{"groups[0].consumers[0].max.pol.records", `did you mean "max.poll.records"?`}},
		{"unknown key without a close match lists the keys", "network:\n  zzzzzzzz: 1\n", 2, 3, []string{"expected a key of network: latency, response_loss, request.timeout.ms"}},
		{"negative max.poll.records", base + "        max.poll.records: -3\n", 13, 27,
			[]string{"x.yaml:13:27: groups[0].consumers[0].max.poll.records: found -3, expected an integer in [1, 2147483647]"}},
		{"bad duration", base + "duration: 3 minutes\n", 13, 11, []string{"duration: found \"3 minutes\"", "expected a positive duration like 30s"}},
		{"duration without unit", base + "heal: 90\n", 13, 7, []string{"heal: found 90 without a unit"}},
		{"unknown duration unit", base + "duration: 5y\n", 13, 11, []string{"found 5y", "duration like"}},
		{"fractional milliseconds", base + "duration: 1.5ms\n", 13, 11, []string{"not a whole number of milliseconds"}},
		{"lock above the max", "kafka:\n  share.record.lock.duration.ms: 70s\n", 2, 34,
			[]string{"kafka.share.record.lock.duration.ms: found 70s (70000 ms), expected a value in [15000, 60000] ms", "group.share.max.record.lock.duration.ms"}},
		{"lock below the min as plain ms", "kafka:\n  share.record.lock.duration.ms: -5\n", 2, 34, []string{"found -5, expected a value in [15000, 60000]"}},
		{"delivery limit out of Kafka's range", "kafka:\n  group.share.delivery.count.limit: 11\n", 2, 37, []string{"found 11, expected a value in [2, 10]", "Kafka's range"}},
		{"cap out of range", "kafka:\n  group.share.partition.max.record.locks: 50\n", 2, 43, []string{"found 50, expected a value in [100, 10000]"}},
		{"min lock out of range", "kafka:\n  group.share.min.record.lock.duration.ms: 31s\n", 2, 44, []string{"group.share.min.record.lock.duration.ms: found 31s (31000 ms), expected a value in [1000, 30000] ms"}},
		{"bad version", "kafka:\n  version: 4.5\n", 2, 12, []string{`found 4.5, expected "4.1", "4.2", "4.3" or "4.4"`}},
		{"bad isolation with suggestion", "kafka:\n  share.isolation.level: read_comitted\n", 2, 26, []string{"read_uncommitted or read_committed", `did you mean "read_committed"?`}},
		{"bad offset reset", "kafka:\n  share.auto.offset.reset: earlist\n", 2, 28, []string{"found earlist", `did you mean "earliest"?`}},
		{"relax_ranges in a workload", "kafka:\n  relax_ranges: true\n", 2, 3, []string{"relax_ranges is allowed only in scripted scenarios"}},
		{"wrong type: list for a scalar", base + "brokers: [3]\n", 13, 10, []string{"brokers: found a list, expected an integer in [1, 1000]"}},
		{"wrong type: scalar for a mapping", "kafka: 4.2\n", 1, 8, []string{"kafka: found 4.2, expected a mapping"}},
		{"wrong type: scalar for a list", "topics: orders\n", 1, 9, []string{"topics: found orders, expected a list"}},
		{"bad fault kind", base + "faults:\n  - kind: kil\n", 14, 11, []string{"faults[0].kind: found kil, expected a fault kind: kill, close", `did you mean "kill"?`}},
		{"bad swarm kind", base + "swarm: {kinds: [kill, leader-failovr]}\n", 13, 23, []string{"swarm.kinds[1]", `did you mean "leader-failover"?`}},
		{"fault without kind", base + "faults:\n  - at: 1m\n", 14, 5, []string{"faults[0].kind: found no value"}},
		{"duration on a kill", base + "faults:\n  - {kind: kill, duration: 5s}\n", 14, 18, []string{"duration for a kill fault"}},
		{"netcut without duration", base + "faults:\n  - {kind: netcut}\n", 14, 5, []string{"faults[0].duration: found no value"}},
		{"unknown fault target", base + "faults:\n  - {kind: kill, target: d}\n", 14, 26, []string{"faults[0].target: found d, expected a consumer name (c)"}},
		{"bad partition target", base + "faults:\n  - {kind: leader-failover, target: orders/2}\n", 14, 37, []string{"orders/0..1"}},
		{"target on a cluster fault", base + "faults:\n  - {kind: write-fail, target: c, duration: 1s}\n", 14, 32, []string{"no target"}},
		{"until without every", base + "faults:\n  - {kind: kill, until: 5m}\n", 14, 18, []string{"until without every"}},
		{"zero fault probability", base + "faults:\n  - {kind: kill, probability: 0}\n", 14, 31, []string{"a probability > 0"}},
		{"bad probability", base + "coordinator: {write_failure: 150%}\n", 13, 30, []string{"coordinator.write_failure: found 150% (outside [0, 1])"}},
		{"probability below resolution", base + "network: {response_loss: 1/10000000}\n", 13, 26, []string{"below 1/1000000"}},
		{"bad rate", "topics: [{name: t}]\nproducers: [{rate: 5/d}]\n", 2, 20, []string{"producers[0].rate: found 5/d (unknown unit /d), expected a rate like 200/s"}},
		{"missing rate", "topics: [{name: t}]\nproducers: [{topic: t}]\n", 2, 13, []string{"producers[0].rate: found no value"}},
		{"unknown topic", "topics: [{name: orders}]\nproducers: [{topic: order, rate: 1/s}]\n", 2, 21, []string{"found order, expected one of the topics: orders", `did you mean "orders"?`}},
		{"ambiguous producer topic", "topics: [{name: a}, {name: b}]\nproducers: [{rate: 1/s}]\n", 2, 13, []string{"producers[0].topic: found no value"}},
		{"bursts without burst_every", "topics: [{name: t}]\nproducers: [{arrival: bursts, burst_records: 5}]\n", 2, 13, []string{"burst_every"}},
		{"txn fields without transactional", "topics: [{name: t}]\nproducers: [{rate: 1/s, abort: 1%}]\n", 2, 25, []string{"abort for a producer that is not transactional"}},
		{"bad distribution name", base + "        processing: {lognormel: {p50: 1s, p99: 2s}}\n", 13, 22, []string{"processing.lognormel", `did you mean "lognormal"?`}},
		{"two distributions", base + "        processing: {constant: 1s, exponential: {mean: 1s}}\n", 13, 21, []string{"found constant and exponential, expected exactly one of"}},
		{"lognormal p99 below p50", base + "        processing: {lognormal: {p50: 8s, p99: 4s}}\n", 13, 48, []string{"processing.lognormal.p99: found 4s, expected a duration > p50 (8s)"}},
		{"lognormal mixed parameters", base + "        processing: {lognormal: {p50: 8s, mu: 1}}\n", 13, 33, []string{"either {p50, p99} or {mu, sigma}"}},
		{"uniform missing max", base + "        processing: {uniform: {min: 1s}}\n", 13, 31, []string{"processing.uniform.max: found no value"}},
		{"pareto bad shape", base + "        processing: {pareto: {scale: 1s, shape: 0}}\n", 13, 49, []string{"shape: found 0, expected a number > 0"}},
		{"bimodal bad p_b", base + "        processing: {bimodal: {a: 1ms, b: 2ms, p_b: 2}}\n", 13, 53, []string{"p_b: found 2 (outside [0, 1])"}},
		{"release in implicit mode", base + "        on_poison: release\n", 13, 20, []string{"release with implicit acknowledgement", "explicit"}},
		{"renew in implicit mode", base + "        renew_every: 20s\n", 13, 22, []string{"renewing needs share.acknowledgement.mode: explicit"}},
		{"renew on 4.1", base + "        share.acknowledgement.mode: explicit\n        renew_every: 20s\nkafka: {version: \"4.1\"}\n", 14, 22, []string{"RENEW needs kafka.version 4.2"}},
		{"record_limit on 4.1", base + "        share.acquire.mode: record_limit\nkafka: {version: \"4.1\"}\n", 13, 29, []string{"record_limit needs kafka.version 4.2"}},
		{"bad enum with suggestion", base + "        share.acknowledgement.mode: explict\n", 13, 37, []string{"implicit or explicit", `did you mean "explicit"?`}},
		{"duplicate consumer name", base + "      - name: c\n", 13, 15, []string{"c a second time"}},
		{"duplicate key", "name: a\nname: b\n", 2, 1, []string{"name: found the key a second time"}},
		{"duplicate topic", "topics: [{name: t}, {name: t}]\n", 1, 28, []string{"a unique topic name"}},
		{"question out of range", base + "questions: [27]\n", 13, 13, []string{"questions[0]: found 27, expected an integer in [1, 26]"}},
		{"unknown check", base + "checks: [no-silent-los]\n", 13, 10, []string{`did you mean "no-silent-loss"?`}},
		{"config-change unknown key", base + "faults: [{kind: config-change, at: 1m, set: {share.delivery.limit: 3}}]\n", 13, 46,
			[]string{"faults[0].set.share.delivery.limit: found key share.delivery.limit", `did you mean "share.delivery.count.limit"?`}},
		{"config-change value out of range", base + "faults: [{kind: config-change, at: 1m, set: {share.delivery.count.limit: 1}}]\n", 13, 74,
			[]string{"faults[0].set.share.delivery.count.limit: found 1, expected a value in [2, "}},
		{"config-change every", base + "faults: [{kind: config-change, at: 1m, every: 1m, set: {share.delivery.count.limit: 3}}]\n", 13, 40,
			[]string{"every for a config-change fault", "happens once"}},
		{"config-change without set", base + "faults: [{kind: config-change, at: 1m}]\n", 13, 10, []string{"faults[0].set: found no settings"}},
		{"config-change unknown group", base + "faults: [{kind: config-change, at: 1m, group: h, set: {share.delivery.count.limit: 3}}]\n", 13, 47,
			[]string{"faults[0].group: found group h, expected the name of a share group"}},
		{"set on a kill fault", base + "faults: [{kind: kill, at: 1m, set: {share.delivery.count.limit: 3}}]\n", 13, 31, []string{"set for a kill fault"}},
		{"add-partitions without count", base + "faults: [{kind: add-partitions, target: orders, at: 1m}]\n", 13, 10, []string{"faults[0].count: found no value", "the number of partitions to add"}},
		{"add-partitions unknown topic", base + "faults: [{kind: add-partitions, target: order, at: 1m, count: 2}]\n", 13, 41,
			[]string{"faults[0].target: found order, expected a topic name (orders)", `did you mean "orders"?`}},
		{"add-partitions zero count", base + "faults: [{kind: add-partitions, target: orders, at: 1m, count: 0}]\n", 13, 64, []string{"faults[0].count: found 0, expected an integer in [1, 10000]"}},
		{"add-partitions too many", base + "faults: [{kind: add-partitions, target: orders, at: 1m, count: 9999}]\n", 13, 64, []string{"10001 partitions for topic orders", "at most 10000"}},
		{"add-partitions every", base + "faults: [{kind: add-partitions, target: orders, at: 1m, every: 1m, count: 1}]\n", 13, 57, []string{"every for an add-partitions fault", "added once"}},
		{"add-partitions without target", base + "faults: [{kind: add-partitions, at: 1m, count: 1}]\n", 13, 10, []string{"faults[0].target: found no value", "the topic"}},
		{"count on a kill fault", base + "faults: [{kind: kill, at: 1m, count: 3}]\n", 13, 31, []string{"count for a kill fault", "only add-partitions"}},
		{"fault on an added partition before it exists", base + "faults:\n  - {kind: add-partitions, target: orders, at: 1m, count: 2}\n  - {kind: lock-expiry, target: orders/3, at: 30s}\n", 15, 33,
			[]string{"faults[1].target: found orders/3, expected a partition that exists at 30s, when the fault first fires (orders/0..1, orders/2..3 from 1m (faults[0]))"}},
		{"fault on an added partition in the same millisecond, listed first", base + "faults:\n  - {kind: lock-expiry, target: orders/2, at: 1m}\n  - {kind: add-partitions, target: orders, at: 1m, count: 2}\n", 14, 33,
			[]string{"expected a partition that exists at 1m"}},
		{"fault on a partition no add-partitions fault adds", base + "faults:\n  - {kind: add-partitions, target: orders, at: 1m, count: 2}\n  - {kind: add-partitions, target: orders, at: 30s, count: 1}\n  - {kind: leader-failover, target: orders/5, at: 2m}\n", 16, 37,
			[]string{"expected a partition as topic/number (orders/0..1, orders/2..2 from 30s (faults[1]), orders/3..4 from 1m (faults[0]))"}},
		{"holding on a netcut fault", base + "faults: [{kind: netcut, at: 1m, duration: 5s, holding: true}]\n", 13, 47, []string{"faults[0].holding: found holding for a netcut fault", "only kill, close, hang and host-loss"}},
		{"holding not a boolean", base + "faults: [{kind: kill, at: 1m, holding: often}]\n", 13, 40, []string{"faults[0].holding: found often"}},
		{"add-partitions in a swarm", base + "swarm: {kinds: [kill, add-partitions]}\n", 13, 23, []string{"swarm.kinds[1]: found add-partitions in a swarm", "schedule it under faults"}},
		{"bad name", "name: a b\n", 1, 7, []string{`name: found "a b", expected a name of letters`}},
		{"bad kind", "kind: worklaod\n", 1, 7, []string{"kind: found worklaod, expected workload or scripted", `did you mean "workload"?`}},
		{"heartbeat not below session", base + "membership: {group.share.heartbeat.interval.ms: 45s}\n", 13, 49, []string{"less than group.share.session.timeout.ms (45s)"}},
		{"stop before start", "topics: [{name: t}]\nproducers: [{rate: 1/s, start: 1m, stop: 30s}]\n", 2, 42, []string{"a time after start (1m)"}},
		{"scripted key in a workload", "steps: []\n", 1, 1, []string{"steps: found a key of scripted scenarios"}},
		{"workload key in a scripted scenario", "kind: scripted\nsteps: [{produce: [1]}]\ntopics: []\n", 3, 1, []string{"topics: found a key of workload scenarios"}},
		{"alias", "name: &n a\ntitle: *n\n", 2, 8, []string{"an alias (*n)", "not supported"}},
		{"merge key", "kafka: {version: \"4.2\"}\nnetwork:\n  <<: {latency: 1ms}\n", 3, 3, []string{"merge key"}},
		{"not a mapping", "- a\n", 1, 1, []string{"found a list, expected a mapping with the scenario's keys"}},
		{"invalid YAML", "name: [a\n", 1, 1, []string{"x.yaml:1:1: found invalid YAML"}},
		{"tab indentation", "name: x\nkafka:\n\tversion: 4.2\n", 3, 1, []string{"x.yaml:3:1: found a tab in the indentation"}},
		{"tab after spaces", "name: x\nduration: 1m\n  \tfoo: 1\n", 3, 3, []string{"x.yaml:3:3: found a tab"}},
		{"not UTF-8", "name: x\nduration: \xff1m\n", 2, 11, []string{"x.yaml:2:11: found the byte 0xff, which is not UTF-8"}},
		{"NUL byte", "name: x\n\x00\n", 2, 1, []string{"x.yaml:2:1: found the control character U+0000"}},
		{"brackets too deep", "a: " + strings.Repeat("[", 20000) + "\n", 1, 204, []string{"x.yaml:1:204: found brackets nested deeper than 200 levels"}},
		{"empty file", "", 0, 0, []string{"x.yaml: found an empty file"}},
		{"comments only", "# nothing\n", 0, 0, []string{"x.yaml: found an empty"}},
		{"two documents", "name: a\n---\nname: b\n", 2, 1, []string{"a second YAML document"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error for\n%s", tc.src)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if e.File != "x.yaml" || e.Line != tc.line || e.Column != tc.col {
				t.Errorf("position %s:%d:%d, want x.yaml:%d:%d (%v)", e.File, e.Line, e.Column, tc.line, tc.col, err)
			}
			msg := e.First().Error()
			for _, f := range tc.frags {
				if !strings.Contains(msg, f) {
					t.Errorf("message %q lacks %q", msg, f)
				}
			}
		})
	}
}

func TestSeveralProblemsReportedInOrder(t *testing.T) {
	src := base + "duration: 1x\nkafka:\n  version: \"5\"\nbrokers: 0\n"
	_, err := Parse("x.yaml", []byte(src))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v", err)
	}
	all := e.All()
	if len(all) != 3 {
		t.Fatalf("got %d problems: %v", len(all), err)
	}
	for i, want := range []int{13, 15, 16} {
		if all[i].Line != want {
			t.Errorf("problem %d at line %d, want %d", i, all[i].Line, want)
		}
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "x.yaml:15:12: kafka.version") {
		t.Errorf("Error():\n%s", err)
	}
}

func TestSetOverrides(t *testing.T) {
	good := []struct {
		path, value string
		check       func(c sim.Config, s *Scenario) bool
	}{
		{"kafka.share.record.lock.duration.ms", "60s", func(c sim.Config, _ *Scenario) bool { return c.Kafka.RecordLockDurationMs == 60000 }},
		{"kafka.share.record.lock.duration.ms", "45000", func(c sim.Config, _ *Scenario) bool { return c.Kafka.RecordLockDurationMs == 45000 }},
		{"kafka.version", "4.1", func(c sim.Config, _ *Scenario) bool { return c.Kafka.Version == model.Kafka41 }},
		{"kafka.share.isolation.level", "read_committed", func(c sim.Config, _ *Scenario) bool { return c.Kafka.IsolationLevel == model.ReadCommitted }},
		{"groups.0.consumers.0.count", "8", func(c sim.Config, _ *Scenario) bool { return c.Groups[0].Consumers[0].Count == 8 }},
		{"groups[0].consumers[0].max.poll.records", "20", func(c sim.Config, _ *Scenario) bool { return c.Groups[0].Consumers[0].MaxPollRecords == 20 }},
		{"groups.0.consumers.0.processing", "{lognormal: {p50: 8s, p99: 40s}}", func(c sim.Config, _ *Scenario) bool {
			return c.Groups[0].Consumers[0].Processing.String() == "lognormal{p50=8s,p99=40s}"
		}},
		{"groups.0.consumers.0.processing", "25ms", func(c sim.Config, _ *Scenario) bool {
			return c.Groups[0].Consumers[0].Processing.String() == "constant{25ms}"
		}},
		{"groups.0.type", "classic", func(c sim.Config, _ *Scenario) bool { return c.Groups[0].Type == sim.ClassicGroup }},
		{"duration", "10m", func(c sim.Config, _ *Scenario) bool { return c.DurationMs == 600000 }},
		{"faults.1.at", "2m", func(c sim.Config, _ *Scenario) bool { return c.Faults[1].AtMs == 120000 }},
		{"faults.2.kind", "lock-expiry", func(c sim.Config, _ *Scenario) bool {
			return len(c.Faults) == 3 && c.Faults[2].Kind == sim.FaultLockExpiry
		}},
		{"groups.0.consumers.1.name", "extra", func(c sim.Config, _ *Scenario) bool { return c.Groups[0].Consumers[1].Name == "extra" }},
		{"swarm.kinds", "[kill, hang]", func(c sim.Config, _ *Scenario) bool { return c.Swarm != nil && len(c.Swarm.Kinds) == 2 }},
		{"network.latency.uniform.max", "10ms", func(c sim.Config, _ *Scenario) bool { return c.Network.Latency.String() == "uniform{min=1ms,max=10ms}" }},
		{"membership.group.share.session.timeout.ms", "60s", func(c sim.Config, _ *Scenario) bool { return c.Membership.SessionTimeoutMs == 60000 }},
		{"seed", "42", func(_ sim.Config, s *Scenario) bool { return s.Seed() == 42 }},
		{"name", "renamed", func(_ sim.Config, s *Scenario) bool { return s.Name() == "renamed" }},
		{"topics.0.retention.ms", "1h", func(c sim.Config, _ *Scenario) bool { return c.Topics[0].RetentionMs == 3600000 }},
	}
	src := base + "network: {latency: {uniform: {min: 1ms, max: 2ms}}}\nfaults:\n  - {kind: kill, target: c}\n  - {kind: hang, at: 1m}\n"
	for _, tc := range good {
		t.Run(tc.path+"="+tc.value, func(t *testing.T) {
			s := mustParse(t, src)
			if err := s.Set(tc.path, tc.value); err != nil {
				t.Fatalf("Set: %v", err)
			}
			if !tc.check(mustConfig(t, s), s) {
				t.Errorf("override not applied: %+v", mustConfig(t, s))
			}
		})
	}

	bad := []struct {
		path, value string
		frags       []string
	}{
		{"kafka.share.record.lock.duration.ms", "5s", []string{"--set kafka.share.record.lock.duration.ms=5s: kafka.share.record.lock.duration.ms: found 5s (5000 ms), expected a value in [15000, 60000]"}},
		{"kafka.share.record.lock.durations.ms", "30s", []string{"kafka.share.record.lock.durations.ms: found an unknown key", `did you mean "share.record.lock.duration.ms"?`}},
		{"groups.0.consumers.0.count", "-3", []string{"groups[0].consumers[0].count: found -3, expected an integer in [0, 100000]"}},
		{"groups.0.consumers.0.max.poll.records", "many", []string{"found many, expected an integer"}},
		{"groups.5.name", "x", []string{"groups[5]: found an index past the end of a list of 1"}},
		{"groups.x.name", "x", []string{"expected a list index"}},
		{"duration", "forever", []string{"--set duration=forever: duration: found forever, expected a positive duration"}},
		{"duration.x", "1", []string{"duration.x: found a path below 10m"}},
		{"faults.0.kind", "explode", []string{"faults[0].kind: found explode", "expected a fault kind"}},
		{"", "1", []string{"expected a dotted key path"}},
		{"a..b", "1", []string{"expected a dotted key path"}},
		{"groups.0.consumers.0.processing.lognormal.p50", "1s", []string{"processing"}},
		{"kafka.version", "4.0", []string{`found 4.0, expected "4.1", "4.2", "4.3" or "4.4"`}},
	}
	for _, tc := range bad {
		t.Run("bad "+tc.path+"="+tc.value, func(t *testing.T) {
			s := mustParse(t, src+"duration: 10m\n")
			before, _ := s.Canonical()
			err := s.Set(tc.path, tc.value)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Override != tc.path+"="+tc.value && !strings.Contains(err.Error(), "x.yaml:") {
				t.Errorf("error names neither the override nor a file position: %v", err)
			}
			for _, f := range tc.frags {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("message %q lacks %q", err.Error(), f)
				}
			}
			after, _ := s.Canonical()
			if string(before) != string(after) {
				t.Errorf("a failed Set changed the scenario")
			}
		})
	}
}

func TestSetOnScripted(t *testing.T) {
	s, err := Builtin("cap-counts-window")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("steps.1.expect.in_flight", "3"); err != nil {
		t.Fatal(err)
	}
	r, err := RunScript(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pass || len(r.Failures) != 1 || r.Failures[0].What != "in_flight" || r.Failures[0].Step != 2 {
		t.Errorf("result after override: %v", r)
	}
	if err := s.Set("kafka.relax_ranges", "false"); err == nil || !strings.Contains(err.Error(), "group.share.partition.max.record.locks: found 4") {
		t.Errorf("removing relax_ranges: %v", err)
	}
	if err := s.Set("seed", "5"); err != nil || s.Seed() != 5 {
		t.Errorf("seed on a scripted scenario: %v", err)
	}
}

// Canonical then Parse gives the same configuration, for every built-in and with overrides.
func TestCanonicalRoundTrip(t *testing.T) {
	for _, in := range List() {
		t.Run(in.Name, func(t *testing.T) {
			s, err := Builtin(in.Name)
			if err != nil {
				t.Fatal(err)
			}
			if in.Kind == KindWorkload {
				if err := s.SetAll(shortRun(t, s, "30s", "kafka.share.record.lock.duration.ms=45s", "seed=7", "groups.0.consumers.0.count=3")); err != nil {
					t.Fatalf("Set: %v", err)
				}
			}
			out, err := s.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse("canonical.yaml", out)
			if err != nil {
				t.Fatalf("re-parse: %v\n%s", err, out)
			}
			if r.Name() != s.Name() || r.Seed() != s.Seed() || r.Kind() != s.Kind() || r.Title() != s.Title() ||
				r.Description() != s.Description() || !reflect.DeepEqual(r.Questions(), s.Questions()) || !reflect.DeepEqual(r.Checks(), s.Checks()) {
				t.Errorf("metadata differs after round trip")
			}
			if in.Kind == KindWorkload {
				a, b := mustConfig(t, s), mustConfig(t, r)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("SimConfig differs after round trip:\n%+v\n%+v", a, b)
				}
			} else {
				a, _ := s.Script()
				b, _ := r.Script()
				clearPos(a)
				clearPos(b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("Script differs after round trip")
				}
			}
			again, _ := r.Canonical()
			if string(again) != string(out) {
				t.Errorf("Canonical is not stable:\n%s\n---\n%s", out, again)
			}
		})
	}
}

func clearPos(s *Script) {
	for i := range s.Steps {
		st := &s.Steps[i]
		st.Line, st.Column = 0, 0
		if e := st.Expect; e != nil {
			e.Line, e.Column = 0, 0
			for j := range e.States {
				e.States[j].Line, e.States[j].Column = 0, 0
			}
			for j := range e.Stored {
				e.Stored[j].Line, e.Stored[j].Column = 0, 0
			}
			for j := range e.Held {
				e.Held[j].Line, e.Held[j].Column = 0, 0
			}
		}
	}
}

func TestBuiltinLibrary(t *testing.T) {
	list := List()
	workloads, scripted := 0, 0
	answered := map[int]bool{}
	names := map[string]bool{}
	hasQuickstart := false
	for _, in := range list {
		if names[in.Name] {
			t.Errorf("duplicate built-in name %s", in.Name)
		}
		names[in.Name] = true
		s, err := Builtin(in.Name)
		if err != nil {
			t.Errorf("%s: %v", in.Name, err)
			continue
		}
		if len(s.Questions()) == 0 || s.Description() == "" || s.Title() == s.Name() {
			t.Errorf("%s: needs questions, a title and a description", in.Name)
		}
		if !reflect.DeepEqual(in.Questions, s.Questions()) || in.Title != s.Title() || in.Kind != s.Kind() {
			t.Errorf("%s: Info %+v does not match the scenario", in.Name, in)
		}
		for _, q := range s.Questions() {
			answered[q] = true
		}
		switch s.Kind() {
		case KindWorkload:
			workloads++
			if in.Name == "quickstart" {
				hasQuickstart = true
			}
			cfg := mustConfig(t, s)
			if err := cfg.Validate(); err != nil {
				t.Errorf("%s: sim.Config.Validate: %v", in.Name, err)
			}
			if !strings.HasSuffix(s.File(), "library/"+in.Name+".yaml") {
				t.Errorf("%s: file %s should be named after the scenario", in.Name, s.File())
			}
		case KindScripted:
			scripted++
			if !strings.HasSuffix(s.File(), "library/scripted/"+in.Name+".yaml") {
				t.Errorf("%s: file %s should be named after the scenario", in.Name, s.File())
			}
		}
	}
	if !hasQuickstart || workloads < 13 || scripted < 5 {
		t.Errorf("library has quickstart=%v, %d workload and %d scripted scenarios", hasQuickstart, workloads, scripted)
	}
	for q := 1; q <= maxQuestion; q++ {
		if !answered[q] {
			t.Errorf("no built-in scenario answers question %d", q)
		}
	}
	entries, _ := library.ReadDir("library")
	files := 0
	for _, e := range entries {
		if !e.IsDir() {
			files++
		}
	}
	sub, _ := library.ReadDir("library/scripted")
	if files+len(sub) != len(list) {
		t.Errorf("%d library files but %d built-ins: a file failed to load", files+len(sub), len(list))
	}
	if list[0].Kind != KindWorkload || list[len(list)-1].Kind != KindScripted {
		t.Errorf("List order: workloads first")
	}
}

// Every workload built-in builds a world and runs briefly.
func TestBuiltinWorkloadsRun(t *testing.T) {
	for _, in := range List() {
		if in.Kind != KindWorkload {
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			s, err := Builtin(in.Name)
			if err != nil {
				t.Fatal(err)
			}
			if in.Name != "quickstart" {
				if err := s.SetAll(shortRun(t, s, "5s", "heal=2s")); err != nil {
					t.Fatal(err)
				}
			}
			res, err := sim.Run(mustConfig(t, s), s.Seed(), sim.Options{})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if in.Name == "quickstart" && res.Metrics.Totals.Redeliveries == 0 {
				t.Errorf("quickstart should show some redelivery")
			}
		})
	}
}

func TestBuiltinScriptsPass(t *testing.T) {
	for _, in := range List() {
		if in.Kind != KindScripted {
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			s, err := Builtin(in.Name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := RunScript(s)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Pass {
				t.Errorf("%v\n%s", r, strings.Join(r.Log, "\n"))
			}
			if r.Steps != len(mustScript(t, s).Steps) || len(r.Log) != r.Steps {
				t.Errorf("ran %d steps, logged %d", r.Steps, len(r.Log))
			}
		})
	}
}

func mustScript(t *testing.T, s *Scenario) *Script {
	t.Helper()
	sc, err := s.Script()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestBuiltinAndLoadAny(t *testing.T) {
	if _, err := Builtin("quickstrat"); err == nil || !strings.Contains(err.Error(), `did you mean "quickstart"?`) {
		t.Errorf("unknown built-in: %v", err)
	}
	s, err := LoadAny("quickstart")
	if err != nil || s.Name() != "quickstart" {
		t.Fatalf("LoadAny built-in: %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(p, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = LoadAny(p)
	if err != nil || s.Name() != "t" || s.File() != p {
		t.Fatalf("LoadAny file: %v", err)
	}
	_, err = LoadAny(filepath.Join(dir, "missing.yaml"))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "unreadable file") || e.Line != 0 {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadAny("no-such-scenario"); err == nil || !strings.Contains(err.Error(), "neither a file nor a built-in") {
		t.Errorf("unknown name: %v", err)
	}
	// A file without a name key is named after the file.
	s = mustParse(t, strings.Replace(base, "name: t\n", "", 1))
	if s.Name() != "x" {
		t.Errorf("default name %q", s.Name())
	}
	if _, err := s.Script(); err == nil {
		t.Errorf("Script on a workload should fail")
	}
	sc, _ := Builtin("cap-counts-window")
	if _, err := sc.SimConfig(); err == nil {
		t.Errorf("SimConfig on a scripted scenario should fail")
	}
	if _, err := RunScript(s); err == nil {
		t.Errorf("RunScript on a workload should fail")
	}
}

// Every key of the schema, every fault kind and every check is documented.
func TestDocsCoverEveryKey(t *testing.T) {
	data, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Skipf("docs not found: %v", err)
	}
	doc := string(data)
	seen := map[*shape]bool{}
	var walk func(sh *shape, path string)
	walk = func(sh *shape, path string) {
		if sh == nil || seen[sh] {
			return
		}
		seen[sh] = true
		for _, f := range sh.fields {
			if !strings.Contains(doc, "`"+f.key+"`") && !strings.Contains(doc, f.key+":") {
				t.Errorf("docs/scenarios.md does not mention key %s", joinPath(path, f.key))
			}
			walk(f.sh, joinPath(path, f.key))
		}
		walk(sh.elem, path)
	}
	walk(workloadShape, "")
	walk(scriptedShape, "")
	for _, k := range append(faultKindNames(), KnownChecks...) {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/scenarios.md does not mention %s", k)
		}
	}
	for _, in := range List() {
		if !strings.Contains(doc, "`"+in.Name+"`") {
			t.Errorf("docs/scenarios.md does not list built-in %s", in.Name)
		}
	}
}

// An override that makes another value of the file invalid is named in that problem.
func TestSetBlamesTheOverride(t *testing.T) {
	s, err := Builtin("renew-every-20s")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Set("kafka.version", "4.1")
	var e *Error
	if !errors.As(err, &e) || len(e.All()) != 2 {
		t.Fatalf("got %v", err)
	}
	if e.Line == 0 || e.After != "kafka.version=4.1" || !strings.HasSuffix(e.First().Error(), "(after --set kafka.version=4.1)") ||
		!strings.Contains(e.First().Error(), "renew-every-20s.yaml:") {
		t.Errorf("got %v", e.First())
	}
}

// shortRun is the overrides that shorten a workload scenario to duration d, with more: a
// producer that would start after d starts at 0 instead (the loader refuses a producer
// that never writes).
func shortRun(t *testing.T, s *Scenario, d string, more ...string) [][2]string {
	t.Helper()
	out := [][2]string{{"duration", d}}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range cfg.Producers {
		if p.StartMs >= ms {
			out = append(out, [2]string{fmt.Sprintf("producers.%d.start", i), "0"}, [2]string{fmt.Sprintf("producers.%d.stop", i), "0"})
		}
	}
	for _, kv := range more {
		k, v, _ := strings.Cut(kv, "=")
		out = append(out, [2]string{k, v})
	}
	return out
}
