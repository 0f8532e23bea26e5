package deviation

import (
	"context"
	"testing"
	"time"

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

// alterConfigs sets configs (key, value, key, value, ...) on a resource with
// IncrementalAlterConfigs, as a client does, and fails the test unless the broker accepted
// them.
func (p *pinCluster) alterConfigs(typ kmsg.ConfigResourceType, name string, kv ...string) {
	p.t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = typ, name
	for i := 0; i+1 < len(kv); i += 2 {
		cf := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cf.Op, cf.Name, cf.Value = kmsg.IncrementalAlterConfigOpSet, kv[i], kmsg.StringPtr(kv[i+1])
		res.Configs = append(res.Configs, cf)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(context.Background(), p.cl)
	if err != nil {
		p.t.Fatal(err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			p.t.Fatalf("IncrementalAlterConfigs on %s: %v", name, kerr.ErrorForCode(r.ErrorCode))
		}
	}
}

// heartbeat sends one ShareGroupHeartbeat for member (epoch 0 joins) and returns the answer.
func (p *pinCluster) heartbeat(member string, epoch int32) *kmsg.ShareGroupHeartbeatResponse {
	p.t.Helper()
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID, req.MemberID, req.MemberEpoch = p.group, member, epoch
	if epoch == 0 {
		req.SubscribedTopicNames = []string{p.topic}
	}
	resp, err := req.RequestWith(context.Background(), p.cl)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp
}

// TestPinGroupConfigsIgnored: with the broker's lock at 60 s and session timeout at 60 s,
// the group's own share.record.lock.duration.ms of 100 ms, share.session.timeout.ms of
// 200 ms and share.heartbeat.interval.ms of 1234 ms are accepted (and described back), but
// an acquired record is not released after 100 ms (Kafka: the group's lock applies, and
// the record is delivered again), answers announce the broker's lock, the heartbeat
// interval is the broker's, and a member silent for 600 ms keeps its membership.
func TestPinGroupConfigsIgnored(t *testing.T) {
	p := newPinCluster(t, 1)
	p.alterConfigs(kmsg.ConfigResourceTypeGroupConfig, p.group,
		"share.record.lock.duration.ms", "100", "share.session.timeout.ms", "200", "share.heartbeat.interval.ms", "1234")
	dreq := kmsg.NewPtrDescribeConfigsRequest()
	dr := kmsg.NewDescribeConfigsRequestResource()
	dr.ResourceType, dr.ResourceName = kmsg.ConfigResourceTypeGroupConfig, p.group
	dreq.Resources = append(dreq.Resources, dr)
	dresp, err := dreq.RequestWith(context.Background(), p.cl)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, r := range dresp.Resources {
		for _, c := range r.Configs {
			if c.Value != nil {
				stored[c.Name] = *c.Value
			}
		}
	}
	if stored["share.record.lock.duration.ms"] != "100" || stored["share.session.timeout.ms"] != "200" {
		t.Fatalf("the group's configs are not described back as set: %v", stored)
	}

	hb := p.heartbeat("member-a", 0)
	if hb.ErrorCode != 0 {
		t.Fatalf("ShareGroupHeartbeat: %v", kerr.ErrorForCode(hb.ErrorCode))
	}
	if hb.HeartbeatIntervalMillis == 1234 {
		t.Fatalf("the heartbeat interval is the group's 1234 ms: kfake honours share.heartbeat.interval.ms now; update the catalogue (group-configs-ignored)")
	}

	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr(p.group), kmsg.StringPtr("member-a")
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.MaxRecords, req.BatchSize = 0, 1, 1<<20, 1, 1
	tp := kmsg.NewShareFetchRequestTopic()
	tp.TopicID = p.id
	tp.Partitions = append(tp.Partitions, kmsg.NewShareFetchRequestTopicPartition())
	req.Topics = append(req.Topics, tp)
	resp, err := req.RequestWith(context.Background(), p.cl)
	if err != nil {
		t.Fatal(err)
	}
	if resp.AcquisitionLockTimeoutMillis == 100 {
		t.Fatalf("ShareFetch announces the group's 100 ms lock: kfake honours share.record.lock.duration.ms now; update the catalogue (group-configs-ignored)")
	}
	var got int
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			got += len(rp.AcquiredRecords)
		}
	}
	if got != 1 {
		t.Fatalf("member-a acquired %d ranges, want offset 0", got)
	}

	// Well past the group's lock (and the 10 ms sweep) and its session timeout.
	time.Sleep(600 * time.Millisecond)
	if again := p.fetch("member-b", 0, 1, 0); len(again.AcquiredRecords) != 0 {
		t.Fatalf("offset 0 was released after the group's 100 ms lock (%v): kfake honours share.record.lock.duration.ms now; update the catalogue (group-configs-ignored)", again.AcquiredRecords)
	}
	if hb := p.heartbeat("member-a", hb.MemberEpoch); hb.ErrorCode != 0 {
		t.Fatalf("member-a silent for 600 ms was dropped (%v): kfake honours share.session.timeout.ms now; update the catalogue (group-configs-ignored)", kerr.ErrorForCode(hb.ErrorCode))
	}

	// The control: the same 100 ms as the broker's lock releases the record within the
	// same wait, so the wait above was long enough to see a release.
	p.alterConfigs(kmsg.ConfigResourceTypeBroker, "", "group.share.record.lock.duration.ms", "100")
	time.Sleep(600 * time.Millisecond)
	if again := p.fetch("member-b", 1, 1, 0); len(again.AcquiredRecords) != 1 || again.AcquiredRecords[0].DeliveryCount != 2 {
		t.Fatalf("with the broker's lock at 100 ms, member-b got %v; want offset 0 again, delivery count 2", again.AcquiredRecords)
	}
}
