package peer

// Self-contained reproductions of the two deviations this test found, using only kfake, kgo
// and kmsg (no sharesim package), so that they can be copied into kfake's own tests. Each
// passes while kfake deviates from Kafka 4.2 and says what Kafka answers.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type repro struct {
	t      *testing.T
	ctx    context.Context
	c      *kfake.Cluster
	cl     *kgo.Client
	topic  string
	id     [16]byte
	epochs map[string]int32
}

func newRepro(t *testing.T, brokerConfigs map[string]string) *repro {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(brokerConfigs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ManualFlushing(),
		kgo.DisableIdempotentWrite(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	r := &repro{t: t, ctx: ctx, c: c, cl: cl, topic: "t", epochs: map[string]int32{}}
	if err := c.CreateTopic(r.topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	r.id = c.TopicInfo(r.topic).TopicID
	c.SetGroupConfigs("g", map[string]string{"share.auto.offset.reset": "earliest"})
	return r
}

// produceBatch writes n records as one producer batch.
func (r *repro) produceBatch(n int) {
	for i := 0; i < n; i++ {
		r.cl.Produce(r.ctx, &kgo.Record{Topic: r.topic, Value: []byte("v")}, nil)
	}
	if err := r.cl.Flush(r.ctx); err != nil {
		r.t.Fatal(err)
	}
}

// fetch sends ShareFetch for member and returns the acquired ranges as "first-last@dc".
func (r *repro) fetch(member string, maxRecords int32, mode int8) []string {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr("g"), kmsg.StringPtr(member)
	req.ShareSessionEpoch = r.epochs[member]
	req.MaxBytes, req.MaxRecords, req.BatchSize, req.ShareAcquireMode = 1<<20, maxRecords, maxRecords, mode
	t := kmsg.NewShareFetchRequestTopic()
	t.TopicID = r.id
	p := kmsg.NewShareFetchRequestTopicPartition()
	p.PartitionMaxBytes = 1 << 20
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(r.ctx, r.cl)
	if err != nil || resp.ErrorCode != 0 {
		r.t.Fatalf("ShareFetch: %v %v", err, resp)
	}
	r.epochs[member]++
	var out []string
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			for _, a := range rp.AcquiredRecords {
				out = append(out, fmt.Sprintf("%d-%d@%d", a.FirstOffset, a.LastOffset, a.DeliveryCount))
			}
		}
	}
	return out
}

// ack sends ShareAcknowledge batches (first, last, types...) and returns the partition's
// error code.
func (r *repro) ack(member string, renew bool, batches ...kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch) int16 {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr("g"), kmsg.StringPtr(member)
	req.ShareSessionEpoch, req.IsRenewAck = r.epochs[member], renew
	t := kmsg.NewShareAcknowledgeRequestTopic()
	t.TopicID = r.id
	p := kmsg.NewShareAcknowledgeRequestTopicPartition()
	p.AcknowledgementBatches = batches
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(r.ctx, r.cl)
	if err != nil || resp.ErrorCode != 0 {
		r.t.Fatalf("ShareAcknowledge: %v %v", err, resp)
	}
	r.epochs[member]++
	return resp.Topics[0].Partitions[0].ErrorCode
}

func ackBatch(first, last int64, types ...int8) kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch {
	b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = first, last, types
	return b
}

// TestKfakeReproCapBudget: with group.share.partition.max.record.locks = 4 and records 0–2
// released, Kafka 4.2 lets the next fetch take min(4, 4 − 3) = 1 record
// (SharePartition.lastOffsetAndMaxRecordsToAcquire; redeliveries count against it). kfake's
// sharePartition.acquireRecords hands out all three.
func TestKfakeReproCapBudget(t *testing.T) {
	r := newRepro(t, map[string]string{"group.share.partition.max.record.locks": "4"})
	r.produceBatch(3)
	if got := r.fetch("m1", 4, 0); len(got) != 1 || got[0] != "0-2@1" {
		t.Fatalf("first fetch: %v", got)
	}
	// m1 releases 0–2 (RELEASE = 2).
	if ec := r.ack("m1", false, ackBatch(0, 2, 2)); ec != 0 {
		t.Fatalf("release: error %d", ec)
	}
	got := r.fetch("m2", 4, 1) // record_limit
	if len(got) != 1 || got[0] != "0-2@2" {
		t.Errorf("kfake acquired %v; it used to hand out 0-2@2 (Kafka 4.2: 0@2)", got)
	}
}

// TestKfakeReproTouchingBatches: acknowledgement batches [0–1: ACCEPT, RENEW] and
// [1–2: ACCEPT]. Kafka's KafkaApis.validateAcknowledgementBatches refuses only a batch whose
// first offset is below the previous batch's last offset, so Kafka renews and then accepts
// offset 1 and answers NONE; kfake's validateOneAckBatch refuses first ≤ previous last with
// INVALID_REQUEST.
func TestKfakeReproTouchingBatches(t *testing.T) {
	r := newRepro(t, nil)
	r.produceBatch(3)
	if got := r.fetch("m1", 3, 1); len(got) != 1 || got[0] != "0-2@1" {
		t.Fatalf("fetch: %v", got)
	}
	ec := r.ack("m1", true, ackBatch(0, 1, 1, 4), ackBatch(1, 2, 1))
	if ec != 42 { // INVALID_REQUEST
		t.Errorf("kfake answered error code %d; it used to answer INVALID_REQUEST (42) (Kafka 4.2: NONE)", ec)
	}
}
