package scenarios

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// Scenario keys of issue 12: KafkaProducer batching, and their refusals.

const prodBase = "topics: [{name: t, partitions: 2}]\nproducers:\n  - rate: 1000/s\n"

func TestProducerKeys(t *testing.T) {
	s := mustParse(t, prodBase+"    batch.size: 32768\n    linger.ms: 20\n    record_size: {lognormal: {p50: 200, p99: 4000}}\n    max.in.flight.requests.per.connection: 1\n    buffer.memory: 1000000\n    max.request.size: 65536\n")
	p := mustConfig(t, s).Producers[0]
	if p.BatchRecords != 0 || p.BatchBytes != 32768 || p.LingerMs != 20 || p.MaxInFlight != 1 || p.BufferMemory != 1_000_000 || p.MaxRequestBytes != 65536 {
		t.Errorf("producer %+v", p)
	}
	if p.RecordSize == nil || p.RecordSize.Quantile(0.5) < 199 || p.RecordSize.Quantile(0.5) > 201 {
		t.Errorf("record_size %v, want lognormal with median 200 bytes", p.RecordSize)
	}
	// Any accumulator key alone selects the mode with Kafka 4's defaults.
	p = mustConfig(t, mustParse(t, prodBase+"    record_size: 500\n")).Producers[0]
	if p.BatchBytes != sim.DefaultBatchBytes || p.LingerMs != sim.DefaultLingerMs || p.RecordSize.Mean() != 500 {
		t.Errorf("defaults: %+v", p)
	}
	// Without them: fixed batches of 10.
	if p = mustConfig(t, mustParse(t, prodBase)).Producers[0]; p.BatchRecords != 10 || p.BatchBytes != 0 {
		t.Errorf("fixed default: %+v", p)
	}
}

func TestProducerKeysRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{prodBase + "    batch_records: 5\n    batch.size: 16384\n", "producers[0].batch_records: found batch_records with batch.size"},
		{prodBase + "    record_size: 5ms\n", "producers[0].record_size: found 5ms, expected an integer number of bytes"},
		{prodBase + "    batch.size: 10\n", "producers[0].batch.size: found 10"},
		{prodBase + "    linger.ms: 5\n    transactional: true\n", "linger.ms for a transactional producer"},
		{prodBase + "    batch.size: 2000000\n", "max.request.size"},
		{prodBase + "    max.in.flight.requests.per.connection: 0\n", "max.in.flight.requests.per.connection: found 0"},
	} {
		_, err := Parse("x.yaml", []byte(tc.src))
		if err == nil {
			if s, e := Parse("x.yaml", []byte(tc.src)); e == nil {
				_, err = s.SimConfig()
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

const classicBase = "topics: [{name: t}]\nproducers: [{rate: 10/s}]\ngroups:\n  - name: g\n    type: classic\n    consumers:\n      - name: c\n        threads: 8\n"

func TestClientKeys(t *testing.T) {
	c := mustConfig(t, mustParse(t, classicBase+"        style: continuous\n        held_records: 40\n        max.poll.interval.ms: 1m\n        fetch.min.bytes: 4096\n")).Groups[0].Consumers[0]
	if c.Style != sim.StyleContinuous || c.HeldRecords != 40 || c.MaxPollIntervalMs != 60_000 || c.FetchMinBytes != 4096 || c.Threads != 8 {
		t.Errorf("consumer %+v", c)
	}
	for _, tc := range []struct{ src, want string }{
		{classicBase + "        held_records: 40\n", "held_records without style: continuous"},
		{strings.Replace(classicBase, "type: classic", "type: share", 1) + "        style: continuous\n", "style: continuous is simulated for classic groups only"},
		{strings.Replace(classicBase, "type: classic", "type: share", 1) + "        fetch.min.bytes: 10\n", "fetch.min.bytes"},
		{classicBase + "        style: parallel\n", "blocking or continuous"},
	} {
		s, err := Parse("x.yaml", []byte(tc.src))
		if err == nil {
			_, err = s.SimConfig()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestDeathKeys(t *testing.T) {
	cfg := mustConfig(t, mustParse(t, base+"network: {reset_delay: 3s}\nfaults:\n  - {kind: host-loss, target: c, at: 1m, restart_after: 30s}\n"))
	if cfg.Network.ResetDelayMs != 3000 || len(cfg.Faults) != 1 || cfg.Faults[0].Kind != sim.FaultHostLoss || cfg.Faults[0].RestartAfterMs != 30_000 {
		t.Errorf("network %+v faults %+v", cfg.Network, cfg.Faults)
	}
}

func TestSegmentKeys(t *testing.T) {
	cfg := mustConfig(t, mustParse(t, "topics: [{name: t, log.segment.bytes: 1048576, log.roll.ms: 1h, retention.bytes: 10485760, retention.ms: 1h}]\n"))
	tp := cfg.Topics[0]
	if !tp.Segments || tp.SegmentBytes != 1<<20 || tp.SegmentMs != 3_600_000 || tp.RetentionBytes != 10<<20 || tp.RetentionMs != 3_600_000 {
		t.Errorf("topic %+v", tp)
	}
	if tp = mustConfig(t, mustParse(t, "topics: [{name: t, log.roll.ms: 1h}]\n")).Topics[0]; !tp.Segments || tp.RetentionBytes != -1 {
		t.Errorf("topic %+v", tp)
	}
	_, err := Parse("x.yaml", []byte("topics: [{name: t, retention.records: 10, retention.bytes: 100}]\n"))
	if err == nil || !strings.Contains(err.Error(), "retention.records with") {
		t.Errorf("error %v", err)
	}
}

func TestBrokerCostKeys(t *testing.T) {
	cfg := mustConfig(t, mustParse(t, base+"broker_cost: {num.io.threads: 2, share_fetch_request_us: 250, acknowledge_record_us: 5, bandwidth: 1000000}\n"))
	bc := cfg.BrokerCost
	if bc == nil || bc.IOThreads != 2 || bc.ShareFetchRequestMs != 0.25 || bc.AcknowledgeRecordMs != 0.005 || bc.BandwidthBytesPerSec != 1e6 {
		t.Errorf("broker cost %+v", bc)
	}
	if mustConfig(t, mustParse(t, base)).BrokerCost != nil {
		t.Errorf("broker cost on by default")
	}
}
