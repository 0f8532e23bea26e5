package peer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharesim/sharesim/model"
)

// Broker configs the driver holds between steps: a one-hour lock and no sweep, so that no
// lock can fire except when a wait asks for it.
const (
	heldLockDurationMs = "3600000"
	heldSweepMs        = "0"
	// sweepConfirmTimeout bounds how long a wait may take to see its canary released.
	sweepConfirmTimeout = 10 * time.Second
	canaryTopic         = "peer-canary"
	canaryGroup         = "peer-canary"
	canaryMember        = "canary"
	initMember          = "init"
	fetchMaxBytes       = 1 << 20
)

// NewCluster starts an in-process kfake cluster of one broker set up for the driver: lock
// duration one hour, sweep ticker off, share member sessions that outlive any test.
func NewCluster() (*kfake.Cluster, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.BrokerConfigs(map[string]string{
			"group.share.record.lock.duration.ms": heldLockDurationMs,
			"share.record.lock.sweep.interval.ms": heldSweepMs,
			"group.share.session.timeout.ms":      "3600000",
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("starting kfake: %w", err)
	}
	return c, nil
}

// Broker drives share-partitions of one kfake cluster over the protocol. It is not safe for
// concurrent use: one goroutine runs one sequence at a time on it, so that a wait's sweep
// (which covers every group of the cluster) cannot touch another sequence's locks.
type Broker struct {
	cluster *kfake.Cluster
	cl      *kgo.Client
	br      *kgo.Broker
	ctx     context.Context
	seq     int // sequences begun, for unique names

	// The current sequence's share-partition.
	topic    string
	topicID  [16]byte
	group    string
	sessions map[string]int32 // member → next share session epoch; absent: no session
	// acquireEnd is one past the highest offset the broker ever handed out on the current
	// share-partition, as seen in fetch responses.
	acquireEnd int64

	canaryID     [16]byte
	canaryEpochs map[string]int32 // the canary member's share session
}

// NewBroker connects a client to the cluster and creates the canary topic the waits use.
func NewBroker(ctx context.Context, c *kfake.Cluster) (*Broker, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(c.ListenAddrs()...),
		kgo.ManualFlushing(),
		kgo.DisableIdempotentWrite(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ConnIdleTimeout(15*time.Minute), // a dropped connection would end its share sessions
		kgo.RequestRetries(0),
	)
	if err != nil {
		return nil, fmt.Errorf("kgo client: %w", err)
	}
	b := &Broker{cluster: c, cl: cl, ctx: ctx, canaryEpochs: map[string]int32{}}
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("reaching kfake: %w", err)
	}
	b.br = cl.Broker(0)
	if b.canaryID, err = b.createTopic(canaryTopic); err != nil {
		cl.Close()
		return nil, err
	}
	if err := b.alterConfigs(kmsg.ConfigResourceTypeGroupConfig, canaryGroup, "share.auto.offset.reset", "earliest"); err != nil {
		cl.Close()
		return nil, err
	}
	return b, nil
}

// Close closes the client (not the cluster).
func (b *Broker) Close() { b.cl.Close() }

// Cluster returns the cluster the broker drives.
func (b *Broker) Cluster() *kfake.Cluster { return b.cluster }

func (b *Broker) createTopic(name string) ([16]byte, error) {
	if err := b.cluster.CreateTopic(name, 1, nil); err != nil {
		return [16]byte{}, fmt.Errorf("creating topic %s: %w", name, err)
	}
	info := b.cluster.TopicInfo(name)
	if info == nil {
		return [16]byte{}, fmt.Errorf("topic %s missing after create", name)
	}
	return info.TopicID, nil
}

// Begin starts a sequence: a fresh topic and group, the setup's broker configs, and the
// share-partition initialised at offset 0 (one empty fetch by a member that then leaves).
func (b *Broker) Begin(s Setup) error {
	if b.topic != "" {
		// Close the last sequence's share sessions: kfake caps the sessions of a cluster
		// (group.share.max.share.sessions).
		for m := range b.sessions {
			if err := b.leave(m, false); err != nil {
				return err
			}
		}
		if err := b.cluster.DeleteTopic(b.topic); err != nil {
			return fmt.Errorf("deleting %s: %w", b.topic, err)
		}
	}
	b.seq++
	b.topic = "peer-" + strconv.Itoa(b.seq)
	b.group = b.topic
	b.sessions = make(map[string]int32)
	b.acquireEnd = 0
	var err error
	if b.topicID, err = b.createTopic(b.topic); err != nil {
		return err
	}
	if err := b.alterConfigs(kmsg.ConfigResourceTypeBroker, "",
		"group.share.delivery.count.limit", strconv.Itoa(s.DeliveryCountLimit),
		"group.share.partition.max.record.locks", strconv.Itoa(s.PartitionMaxRecordLocks)); err != nil {
		return err
	}
	if err := b.alterConfigs(kmsg.ConfigResourceTypeGroupConfig, b.group, "share.auto.offset.reset", "earliest"); err != nil {
		return err
	}
	if _, err := b.fetch(initMember, 1, model.RecordLimit); err != nil {
		return fmt.Errorf("initialising the share-partition: %w", err)
	}
	if err := b.leave(initMember, false); err != nil {
		return err
	}
	return nil
}

// AcquireEnd is one past the highest offset the broker has handed out on the current
// share-partition (kfake's in-flight window end, as far as fetch responses show it).
func (b *Broker) AcquireEnd() int64 { return b.acquireEnd }

// Do applies one step and returns the outcome, with the SPSO and lag read afterwards.
func (b *Broker) Do(s Step) (Outcome, error) {
	var o Outcome
	var err error
	switch s.Kind {
	case Produce:
		err = b.produce(b.topic, s.Records)
	case Fetch:
		o.Acquired, err = b.fetch(s.Member, s.MaxRecords, s.Mode)
	case Ack:
		o.AckCode, err = b.ack(s.Member, s.Ranges)
	case Wait:
		err = b.Wait()
	case Leave:
		err = b.leave(s.Member, s.ViaAcknowledge)
	default:
		err = fmt.Errorf("unknown step kind %d", s.Kind)
	}
	if err != nil {
		return o, fmt.Errorf("kfake %s: %w", s, err)
	}
	o.SPSO, o.Lag, err = b.describe(b.group, b.topic)
	return o, err
}

func (b *Broker) produce(topic string, n int) error {
	var errs []error
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Partition: 0, Value: []byte("v" + strconv.Itoa(i))}
		b.cl.Produce(b.ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	// Manual flushing: the n records were buffered together, so they go out as one batch.
	if err := b.cl.Flush(b.ctx); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return errors.Join(errs...)
}

func (b *Broker) request(req kmsg.Request) (kmsg.Response, error) {
	resp, err := b.br.Request(b.ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", kmsg.NameForKey(req.Key()), err)
	}
	return resp, nil
}

func codeName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	var ke *kerr.Error
	if errors.As(kerr.ErrorForCode(code), &ke) {
		return ke.Message
	}
	return fmt.Sprintf("error code %d", code)
}

// shareFetch sends one ShareFetch for member on the given topic and returns the acquired
// ranges, handling the member's share session epoch.
func (b *Broker) shareFetch(group, member string, topicID [16]byte, epochs map[string]int32, maxRecords int, mode model.AcquireMode, maxWaitMs int32) ([]Range, error) {
	rs, err := b.shareFetchRaw(group, member, topicID, epochs, maxRecords, maxRecords, mode, maxWaitMs)
	return coalesce(rs), err
}

// FetchRanges is a Fetch step with its own batch size that returns the acquired ranges as
// the broker cut them, not coalesced.
func (b *Broker) FetchRanges(member string, maxRecords, batchSize int, mode model.AcquireMode) ([]Range, error) {
	rs, err := b.shareFetchRaw(b.group, member, b.topicID, b.sessions, maxRecords, batchSize, mode, 0)
	for _, r := range rs {
		b.acquireEnd = max(b.acquireEnd, r.Last+1)
	}
	return rs, err
}

func (b *Broker) shareFetchRaw(group, member string, topicID [16]byte, epochs map[string]int32, maxRecords, batchSize int, mode model.AcquireMode, maxWaitMs int32) ([]Range, error) {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID = kmsg.StringPtr(group)
	req.MemberID = kmsg.StringPtr(member)
	req.ShareSessionEpoch = epochs[member]
	req.MaxWaitMillis = maxWaitMs
	req.MaxBytes = fetchMaxBytes
	req.MaxRecords = int32(maxRecords)
	req.BatchSize = int32(batchSize)
	req.ShareAcquireMode = int8(mode)
	t := kmsg.NewShareFetchRequestTopic()
	t.TopicID = topicID
	p := kmsg.NewShareFetchRequestTopicPartition()
	p.Partition = 0
	p.PartitionMaxBytes = fetchMaxBytes
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	kresp, err := b.request(req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.ShareFetchResponse)
	if resp.ErrorCode != 0 {
		return nil, fmt.Errorf("ShareFetch as %s at epoch %d: %s", member, req.ShareSessionEpoch, codeName(resp.ErrorCode))
	}
	epochs[member] = req.ShareSessionEpoch + 1
	var rs []Range
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rt.TopicID != topicID || rp.Partition != 0 {
				continue
			}
			if rp.ErrorCode != 0 {
				return nil, fmt.Errorf("ShareFetch as %s: partition error %s", member, codeName(rp.ErrorCode))
			}
			for _, ar := range rp.AcquiredRecords {
				rs = append(rs, Range{First: ar.FirstOffset, Last: ar.LastOffset, DeliveryCount: int(ar.DeliveryCount)})
			}
		}
	}
	return rs, nil
}

func (b *Broker) fetch(member string, maxRecords int, mode model.AcquireMode) ([]Range, error) {
	rs, err := b.shareFetch(b.group, member, b.topicID, b.sessions, maxRecords, mode, 0)
	for _, r := range rs {
		b.acquireEnd = max(b.acquireEnd, r.Last+1)
	}
	return rs, err
}

// ack sends one ShareAcknowledge. A member without a share session first opens an empty one
// (a ShareFetch at epoch 0 naming no partition), as a client cannot acknowledge outside a
// session; that fetch acquires nothing.
func (b *Broker) ack(member string, ranges []model.AckRange) (string, error) {
	if _, ok := b.sessions[member]; !ok {
		if err := b.openEmptySession(member); err != nil {
			return "", err
		}
	}
	code, err := b.shareAcknowledge(b.group, member, b.topicID, b.sessions, ranges)
	if err != nil {
		return "", err
	}
	return codeName(code), nil
}

func (b *Broker) openEmptySession(member string) error {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID = kmsg.StringPtr(b.group)
	req.MemberID = kmsg.StringPtr(member)
	req.MaxBytes = fetchMaxBytes
	req.MaxRecords = 1
	req.BatchSize = 1
	kresp, err := b.request(req)
	if err != nil {
		return err
	}
	if resp := kresp.(*kmsg.ShareFetchResponse); resp.ErrorCode != 0 {
		return fmt.Errorf("opening a share session for %s: %s", member, codeName(resp.ErrorCode))
	}
	b.sessions[member] = 1
	return nil
}

// shareAcknowledge sends the ranges for partition 0 of topicID and returns the partition's
// error code. IsRenewAck is set when a RENEW is among the types, as Kafka requires.
func (b *Broker) shareAcknowledge(group, member string, topicID [16]byte, epochs map[string]int32, ranges []model.AckRange) (int16, error) {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID = kmsg.StringPtr(group)
	req.MemberID = kmsg.StringPtr(member)
	req.ShareSessionEpoch = epochs[member]
	t := kmsg.NewShareAcknowledgeRequestTopic()
	t.TopicID = topicID
	p := kmsg.NewShareAcknowledgeRequestTopicPartition()
	p.Partition = 0
	for _, r := range ranges {
		ab := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
		ab.FirstOffset, ab.LastOffset = r.First, r.Last
		for _, ty := range r.Types {
			ab.AcknowledgeTypes = append(ab.AcknowledgeTypes, int8(ty))
			if ty == model.AckRenew {
				req.IsRenewAck = true
			}
		}
		p.AcknowledgementBatches = append(p.AcknowledgementBatches, ab)
	}
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	kresp, err := b.request(req)
	if err != nil {
		return 0, err
	}
	resp := kresp.(*kmsg.ShareAcknowledgeResponse)
	if resp.ErrorCode != 0 {
		return 0, fmt.Errorf("ShareAcknowledge as %s at epoch %d: %s", member, req.ShareSessionEpoch, codeName(resp.ErrorCode))
	}
	epochs[member] = req.ShareSessionEpoch + 1
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rt.TopicID == topicID && rp.Partition == 0 {
				return rp.ErrorCode, nil
			}
		}
	}
	return 0, fmt.Errorf("ShareAcknowledge response has no entry for the partition")
}

// leave closes member's share session (ShareFetch or ShareAcknowledge at epoch −1), which
// releases the records it holds. Without a session there is nothing to close.
func (b *Broker) leave(member string, viaAcknowledge bool) error {
	if _, ok := b.sessions[member]; !ok {
		return nil
	}
	var code int16
	if viaAcknowledge {
		req := kmsg.NewPtrShareAcknowledgeRequest()
		req.GroupID = kmsg.StringPtr(b.group)
		req.MemberID = kmsg.StringPtr(member)
		req.ShareSessionEpoch = -1
		kresp, err := b.request(req)
		if err != nil {
			return err
		}
		code = kresp.(*kmsg.ShareAcknowledgeResponse).ErrorCode
	} else {
		req := kmsg.NewPtrShareFetchRequest()
		req.GroupID = kmsg.StringPtr(b.group)
		req.MemberID = kmsg.StringPtr(member)
		req.ShareSessionEpoch = -1
		kresp, err := b.request(req)
		if err != nil {
			return err
		}
		code = kresp.(*kmsg.ShareFetchResponse).ErrorCode
	}
	if code != 0 {
		return fmt.Errorf("closing the share session of %s: %s", member, codeName(code))
	}
	delete(b.sessions, member)
	return nil
}

// describe reads the share-partition start offset and lag with DescribeShareGroupOffsets.
func (b *Broker) describe(group, topic string) (spso, lag int64, err error) {
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	g := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
	g.GroupID = group
	t := kmsg.NewDescribeShareGroupOffsetsRequestGroupTopic()
	t.Topic = topic
	t.Partitions = []int32{0}
	g.Topics = append(g.Topics, t)
	req.Groups = append(req.Groups, g)
	kresp, err := b.request(req)
	if err != nil {
		return 0, 0, err
	}
	resp := kresp.(*kmsg.DescribeShareGroupOffsetsResponse)
	for _, rg := range resp.Groups {
		if rg.ErrorCode != 0 {
			return 0, 0, fmt.Errorf("DescribeShareGroupOffsets: %s", codeName(rg.ErrorCode))
		}
		for _, rt := range rg.Topics {
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != 0 {
					return 0, 0, fmt.Errorf("DescribeShareGroupOffsets partition: %s", codeName(rp.ErrorCode))
				}
				return rp.StartOffset, rp.Lag, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("DescribeShareGroupOffsets: no entry for %s/%s", group, topic)
}

// alterConfigs sets key/value pairs on one config resource with IncrementalAlterConfigs.
func (b *Broker) alterConfigs(typ kmsg.ConfigResourceType, name string, kv ...string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType = typ
	r.ResourceName = name
	for i := 0; i+1 < len(kv); i += 2 {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = kv[i]
		c.Op = kmsg.IncrementalAlterConfigOpSet
		c.Value = kmsg.StringPtr(kv[i+1])
		r.Configs = append(r.Configs, c)
	}
	req.Resources = append(req.Resources, r)
	kresp, err := b.request(req)
	if err != nil {
		return err
	}
	for _, rr := range kresp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
		if rr.ErrorCode != 0 {
			return fmt.Errorf("IncrementalAlterConfigs %v: %s", kv, codeName(rr.ErrorCode))
		}
	}
	return nil
}

// Wait expires every acquisition lock of the cluster, deterministically:
//
//  1. a canary record is produced to the driver's own topic and acquired by the canary
//     member (a lock of one hour, like every other);
//  2. the lock duration is set to 0 ms and the sweep interval to 1 ms;
//  3. the canary member fetches, long-polling, until it acquires the canary record again.
//     Only a sweep can have released it, and kfake's sweep goes through every share group
//     in one pass with the lock duration then current (0), so every lock acquired before
//     step 2 has been released (or archived at the delivery limit);
//  4. lock duration and sweep interval are restored; the canary records are accepted.
//
// Nothing else runs on the cluster meanwhile (see Broker), so no lock is acquired between
// steps 2 and 4.
func (b *Broker) Wait() error {
	canaryEpochs := b.canaryEpochs
	info := b.cluster.PartitionInfo(canaryTopic, 0)
	if info == nil {
		return fmt.Errorf("canary partition missing")
	}
	k := info.HighWatermark
	if err := b.produce(canaryTopic, 1); err != nil {
		return fmt.Errorf("canary produce: %w", err)
	}
	held, err := b.shareFetch(canaryGroup, canaryMember, b.canaryID, canaryEpochs, 500, model.RecordLimit, 0)
	if err != nil {
		return fmt.Errorf("canary fetch: %w", err)
	}
	if !contains(held, k) {
		return fmt.Errorf("canary record %d not acquired (got %s)", k, FormatRanges(held))
	}
	if err := b.alterConfigs(kmsg.ConfigResourceTypeBroker, "",
		"group.share.record.lock.duration.ms", "0", "share.record.lock.sweep.interval.ms", "1"); err != nil {
		return err
	}
	deadline := time.Now().Add(sweepConfirmTimeout)
	var again []Range
	for !contains(again, k) {
		if time.Now().After(deadline) {
			return fmt.Errorf("no lock sweep seen within %s", sweepConfirmTimeout)
		}
		rs, err := b.shareFetch(canaryGroup, canaryMember, b.canaryID, canaryEpochs, 500, model.RecordLimit, 1000)
		if err != nil {
			return fmt.Errorf("canary refetch: %w", err)
		}
		again = append(again, rs...)
	}
	if err := b.alterConfigs(kmsg.ConfigResourceTypeBroker, "",
		"group.share.record.lock.duration.ms", heldLockDurationMs, "share.record.lock.sweep.interval.ms", heldSweepMs); err != nil {
		return err
	}
	// Accept what the canary holds so its window stays small. A sweep between the refetch
	// and the restore may have released some again: the ack then fails, and the next wait's
	// canary fetch takes them up.
	var acc []model.AckRange
	for _, r := range coalesce(again) {
		if len(acc) > 0 && acc[len(acc)-1].Last >= r.First {
			continue
		}
		acc = append(acc, model.AckRange{First: r.First, Last: r.Last, Types: []model.AckType{model.AckAccept}})
	}
	if _, err := b.shareAcknowledge(canaryGroup, canaryMember, b.canaryID, canaryEpochs, acc); err != nil {
		return fmt.Errorf("canary ack: %w", err)
	}
	return nil
}

func contains(rs []Range, off int64) bool {
	for _, r := range rs {
		if r.First <= off && off <= r.Last {
			return true
		}
	}
	return false
}

// Topic returns the current sequence's topic.
func (b *Broker) Topic() string { return b.topic }

// Describe reads the current share-partition's SPSO and lag.
func (b *Broker) Describe() (spso, lag int64, err error) { return b.describe(b.group, b.topic) }

// Request sends a raw request to the broker.
func (b *Broker) Request(req kmsg.Request) (kmsg.Response, error) { return b.request(req) }

// AlterBrokerConfigs sets broker configs with IncrementalAlterConfigs.
func (b *Broker) AlterBrokerConfigs(kv ...string) error {
	return b.alterConfigs(kmsg.ConfigResourceTypeBroker, "", kv...)
}
