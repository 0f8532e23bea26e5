package deviation

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The pins: each test shows one catalogue entry on kfake over the protocol (raw ShareFetch
// and ShareAcknowledge requests, as a client sends them), so an entry that stops being true
// fails its test. They double as the reproductions in docs/findings.md.

// pinCluster is a one-broker kfake cluster with a topic of n records (one per batch) and
// a share group that reads from the earliest offset.
type pinCluster struct {
	t     *testing.T
	c     *kfake.Cluster
	cl    *kgo.Client
	topic string
	id    [16]byte
	group string
}

func newPinCluster(t *testing.T, n int) *pinCluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "pin"),
		kfake.BrokerConfigs(map[string]string{"share.record.lock.sweep.interval.ms": "10", "group.share.record.lock.duration.ms": "60000"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("pin"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte{byte(i)}}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	p := &pinCluster{t: t, c: c, cl: cl, topic: "pin", id: c.TopicInfo("pin").TopicID, group: "pin-group"}
	c.SetGroupConfigs(p.group, map[string]string{"share.auto.offset.reset": "earliest"})
	return p
}

// fetch sends one ShareFetch for partition 0 (with acks piggy-backed when given).
func (p *pinCluster) fetch(member string, epoch int32, maxRecords int32, waitMs int32, acks ...kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) kmsg.ShareFetchResponseTopicPartition {
	p.t.Helper()
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr(p.group), kmsg.StringPtr(member)
	req.ShareSessionEpoch, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = epoch, waitMs, 1, 1<<20
	req.MaxRecords, req.BatchSize = maxRecords, maxRecords
	tp := kmsg.NewShareFetchRequestTopic()
	tp.TopicID = p.id
	part := kmsg.NewShareFetchRequestTopicPartition()
	part.AcknowledgementBatches = acks
	tp.Partitions = append(tp.Partitions, part)
	req.Topics = append(req.Topics, tp)
	resp, err := req.RequestWith(context.Background(), p.cl)
	if err != nil {
		p.t.Fatal(err)
	}
	if resp.ErrorCode != 0 {
		p.t.Fatalf("ShareFetch: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	var out kmsg.ShareFetchResponseTopicPartition
	for _, t := range resp.Topics {
		for _, rp := range t.Partitions {
			out.AcquiredRecords = append(out.AcquiredRecords, rp.AcquiredRecords...)
			if rp.AcknowledgeErrorCode != 0 {
				out.AcknowledgeErrorCode = rp.AcknowledgeErrorCode
			}
			if rp.ErrorCode != 0 {
				out.ErrorCode = rp.ErrorCode
			}
		}
	}
	return out
}

func ackBatch(first, last int64, ty int8) kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch {
	b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = first, last, []int8{ty}
	return b
}

// TestPinPiggybackedAckErrorDropped: a ShareFetch whose piggy-backed acknowledgement fails
// (the member does not hold the record) and that then waits for records answers
// AcknowledgeErrorCode 0; the same acknowledgement in a ShareAcknowledge gets
// INVALID_RECORD_STATE, as Kafka answers both.
func TestPinPiggybackedAckErrorDropped(t *testing.T) {
	p := newPinCluster(t, 1)
	if got := p.fetch("member-a", 0, 1, 0); len(got.AcquiredRecords) != 1 {
		t.Fatalf("member-a acquired %v, want offset 0", got.AcquiredRecords)
	}
	p.fetch("member-b", 0, 1, 0) // opens member-b's session; nothing to acquire
	got := p.fetch("member-b", 1, 1, 100, ackBatch(0, 0, 1))
	if got.AcknowledgeErrorCode != 0 {
		t.Fatalf("the piggy-backed ACCEPT of a record member-b does not hold answered %v: the deviation piggybacked-ack-error-dropped is gone; update the catalogue", kerr.ErrorForCode(got.AcknowledgeErrorCode))
	}
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch = kmsg.StringPtr(p.group), kmsg.StringPtr("member-b"), 2
	tp := kmsg.NewShareAcknowledgeRequestTopic()
	tp.TopicID = p.id
	part := kmsg.NewShareAcknowledgeRequestTopicPartition()
	b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = 0, 0, []int8{1}
	part.AcknowledgementBatches = append(part.AcknowledgementBatches, b)
	tp.Partitions = append(tp.Partitions, part)
	req.Topics = append(req.Topics, tp)
	resp, err := req.RequestWith(context.Background(), p.cl)
	if err != nil {
		t.Fatal(err)
	}
	code := resp.ErrorCode
	for _, t := range resp.Topics {
		for _, rp := range t.Partitions {
			if rp.ErrorCode != 0 {
				code = rp.ErrorCode
			}
		}
	}
	if code != kerr.InvalidRecordState.Code {
		t.Fatalf("the same ACCEPT in a ShareAcknowledge answered %v, want INVALID_RECORD_STATE", kerr.ErrorForCode(code))
	}
}
