package live

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Target says which cluster a live run talks to: the embedded kfake cluster (no
// Bootstrap) or a real one.
type Target struct {
	// Bootstrap lists HOST:PORT seed brokers; empty starts an embedded kfake cluster.
	Bootstrap []string
	// TLS, when set, wraps every connection (the dialer does the handshake, so the wire
	// tap reads plaintext).
	TLS *tls.Config
	// SASL, when set, authenticates every connection.
	SASL sasl.Mechanism
}

// Embedded reports whether the run starts its own kfake cluster.
func (t Target) Embedded() bool { return len(t.Bootstrap) == 0 }

// Broker names the implementation behind the target for the deviation catalogue.
func (t Target) Broker() string {
	if t.Embedded() {
		return "kfake"
	}
	return "kafka"
}

// FloorsFor returns the minimums the target puts on the settings a run scales. kfake has
// none; a real Kafka 4.2 cluster has its brokers' defaults unless they were changed
// (group.share.min.record.lock.duration.ms 15 s, group.share.min.session.timeout.ms 45 s,
// group.share.min.heartbeat.interval.ms 5 s), which a client cannot change.
func (t Target) FloorsFor() Floors {
	if t.Embedded() {
		return Floors{}
	}
	return Floors{
		LockMs:           Floor{15000, "group.share.min.record.lock.duration.ms (Kafka's default; a broker setting)"},
		SessionTimeoutMs: Floor{45000, "group.share.min.session.timeout.ms (Kafka's default; a broker setting)"},
		HeartbeatMs:      Floor{5000, "group.share.min.heartbeat.interval.ms (Kafka's default; a broker setting)"},
	}
}

// cluster is the run's connection to its brokers and everything it created there.
type cluster struct {
	target Target
	fake   *kfake.Cluster
	seeds  []string
	prefix string
	admin  *kadm.Client
	adm    *kgo.Client

	mu      sync.Mutex
	ids     map[[16]byte]string // topic ID → scenario topic name
	topics  []string            // real names created
	groups  []string            // real names used
	configs map[string][]string // real group name → the group configs the run set
	applied []string            // settings applied, for the report
}

// sweepMs is the embedded cluster's lock sweep interval for a lock of lockMs: a twentieth
// of the lock, between 5 ms and 100 ms, so an expired lock is found within 5 % of its time.
func sweepMs(lockMs int64) int64 { return min(max(lockMs/20, 5), 100) }

// openCluster starts the embedded cluster (with cfg's share settings as broker configs) or
// connects to the target, and makes the run's unique prefix.
func openCluster(ctx context.Context, t Target, cfg *sim.Config) (*cluster, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("drawing the run's prefix: %w", err)
	}
	c := &cluster{target: t, prefix: "sharesim-live-" + hex.EncodeToString(b[:]) + "-", ids: map[[16]byte]string{}, configs: map[string][]string{}}
	if t.Embedded() {
		bc := map[string]string{
			"group.share.record.lock.duration.ms":    strconv.FormatInt(cfg.Kafka.RecordLockDurationMs, 10),
			"share.record.lock.sweep.interval.ms":    strconv.FormatInt(sweepMs(cfg.Kafka.RecordLockDurationMs), 10),
			"group.share.delivery.count.limit":       strconv.Itoa(cfg.Kafka.DeliveryCountLimit),
			"group.share.partition.max.record.locks": strconv.Itoa(cfg.Kafka.PartitionMaxRecordLocks),
			"group.share.session.timeout.ms":         strconv.FormatInt(cfg.Membership.SessionTimeoutMs, 10),
			"group.share.heartbeat.interval.ms":      strconv.FormatInt(cfg.Membership.HeartbeatIntervalMs, 10),
		}
		keys := make([]string, 0, len(bc))
		for k := range bc {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c.applied = append(c.applied, "broker "+k+"="+bc[k])
		}
		fake, err := kfake.NewCluster(kfake.NumBrokers(max(1, cfg.Brokers)), kfake.BrokerConfigs(bc),
			kfake.GroupMinSessionTimeout(10*time.Millisecond))
		if err != nil {
			return nil, fmt.Errorf("starting the embedded kfake cluster: %w", err)
		}
		c.fake, c.seeds = fake, fake.ListenAddrs()
	} else {
		c.seeds = t.Bootstrap
	}
	adm, err := kgo.NewClient(c.baseOpts(nil)...)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("connecting to %s: %w", strings.Join(c.seeds, ","), err)
	}
	c.adm, c.admin = adm, kadm.NewClient(adm)
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := adm.Ping(pctx); err != nil {
		c.close()
		return nil, fmt.Errorf("connecting to %s: %w", strings.Join(c.seeds, ","), err)
	}
	return c, nil
}

// baseOpts are the options every client of the run uses; dial wraps each connection. No
// client sends KIP-714 telemetry (docs/live.md, "The workload").
func (c *cluster) baseOpts(dial func(net.Conn) net.Conn) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(c.seeds...), kgo.DisableClientMetrics()}
	if c.target.SASL != nil {
		opts = append(opts, kgo.SASL(c.target.SASL))
	}
	tlsCfg := c.target.TLS
	if dial == nil && tlsCfg != nil {
		return append(opts, kgo.DialTLSConfig(tlsCfg.Clone()))
	}
	if dial != nil {
		opts = append(opts, kgo.Dialer(func(ctx context.Context, network, host string) (net.Conn, error) {
			d := &net.Dialer{Timeout: 10 * time.Second}
			conn, err := d.DialContext(ctx, network, host)
			if err != nil {
				return nil, err
			}
			if tlsCfg != nil {
				tc := tlsCfg.Clone()
				if tc.ServerName == "" {
					tc.ServerName, _, _ = net.SplitHostPort(host)
				}
				tconn := tls.Client(conn, tc)
				if err := tconn.HandshakeContext(ctx); err != nil {
					conn.Close()
					return nil, err
				}
				conn = tconn
			}
			return dial(conn), nil
		}))
	}
	return opts
}

func (c *cluster) topic(name string) string { return c.prefix + name }
func (c *cluster) group(name string) string { return c.prefix + name }

// name maps a topic ID to the scenario's topic name.
func (c *cluster) name(id [16]byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

// createTopics creates the scenario's topics under the run's prefix and learns their IDs.
func (c *cluster) createTopics(ctx context.Context, cfg *sim.Config) error {
	for _, t := range cfg.Topics {
		conf := map[string]*string{}
		if t.RetentionMs > 0 {
			v := strconv.FormatInt(t.RetentionMs, 10)
			conf["retention.ms"] = &v
		}
		resp, err := c.admin.CreateTopic(ctx, int32(t.Partitions), -1, conf, c.topic(t.Name))
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			return fmt.Errorf("creating topic %s: %w", c.topic(t.Name), err)
		}
		c.mu.Lock()
		c.topics = append(c.topics, c.topic(t.Name))
		c.ids[resp.ID] = t.Name
		c.mu.Unlock()
	}
	return nil
}

// setGroupConfigs sets a share group's configs (IncrementalAlterConfigs on the GROUP
// resource) before any member joins.
func (c *cluster) setGroupConfigs(ctx context.Context, g sim.Group, k model.Config, m sim.Membership) error {
	real := c.group(g.Name)
	if err := c.unused(ctx, real); err != nil {
		return err
	}
	c.mu.Lock()
	c.groups = append(c.groups, real)
	c.mu.Unlock()
	if g.Type != sim.ShareGroup {
		return nil
	}
	conf := [][2]string{
		{"share.auto.offset.reset", k.AutoOffsetReset.String()},
		{"share.isolation.level", k.IsolationLevel.String()},
	}
	if !c.target.Embedded() {
		conf = append(conf,
			[2]string{"share.record.lock.duration.ms", strconv.FormatInt(k.RecordLockDurationMs, 10)},
			[2]string{"share.session.timeout.ms", strconv.FormatInt(m.SessionTimeoutMs, 10)},
			[2]string{"share.heartbeat.interval.ms", strconv.FormatInt(m.HeartbeatIntervalMs, 10)})
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = real
	for _, kv := range conf {
		cf := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cf.Name, cf.Value = kv[0], kmsg.StringPtr(kv[1])
		res.Configs = append(res.Configs, cf)
		c.applied = append(c.applied, "group "+g.Name+" "+kv[0]+"="+kv[1])
		c.mu.Lock()
		c.configs[real] = append(c.configs[real], kv[0])
		c.mu.Unlock()
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, c.adm)
	if err != nil {
		return fmt.Errorf("setting group %s's configs: %w", real, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return fmt.Errorf("setting group %s's configs: %w%s", real, err, msg)
		}
	}
	return nil
}

// unused fails when a group of that name already exists: the run's prefix is drawn at
// random, but a group it did not create is never joined, configured or deleted.
func (c *cluster) unused(ctx context.Context, group string) error {
	ls, err := c.admin.ListGroups(ctx)
	if err != nil {
		return fmt.Errorf("listing the cluster's groups: %w", err)
	}
	for _, g := range ls.Groups() {
		if g == group {
			return fmt.Errorf("group %s already exists: live mode uses only groups it creates", group)
		}
	}
	return nil
}

// offsets lists a topic's start and end offsets per partition.
func (c *cluster) offsets(ctx context.Context, topic string) (start, end map[int32]int64, err error) {
	real := c.topic(topic)
	s, err := c.admin.ListStartOffsets(ctx, real)
	if err != nil {
		return nil, nil, fmt.Errorf("listing %s's start offsets: %w", real, err)
	}
	e, err := c.admin.ListEndOffsets(ctx, real)
	if err != nil {
		return nil, nil, fmt.Errorf("listing %s's end offsets: %w", real, err)
	}
	start, end = map[int32]int64{}, map[int32]int64{}
	s.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			start[o.Partition] = o.Offset
		}
	})
	e.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			end[o.Partition] = o.Offset
		}
	})
	return start, end, nil
}

// deleteRecords moves a partition's log start to offset.
func (c *cluster) deleteRecords(ctx context.Context, topic string, part int32, offset int64) error {
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: c.topic(topic), Partition: part, At: offset})
	resps, err := c.admin.DeleteRecords(ctx, os)
	if err != nil {
		return err
	}
	return resps.Error()
}

// shareOffsets returns a share group's start offset per "topic/partition".
func (c *cluster) shareOffsets(ctx context.Context, group string) (map[string]int64, error) {
	real := c.group(group)
	ds, err := c.admin.DescribeShareGroupOffsets(ctx, real)
	if err != nil {
		return nil, fmt.Errorf("DescribeShareGroupOffsets %s: %w", real, err)
	}
	d, ok := ds[real]
	if !ok {
		return nil, fmt.Errorf("DescribeShareGroupOffsets %s: no answer for the group", real)
	}
	if d.Err != nil {
		return nil, fmt.Errorf("DescribeShareGroupOffsets %s: %w", real, d.Err)
	}
	out := map[string]int64{}
	for t, ps := range d.Offsets {
		if !strings.HasPrefix(t, c.prefix) {
			continue
		}
		for p, o := range ps {
			if o.Err == nil && o.StartOffset >= 0 {
				out[strings.TrimPrefix(t, c.prefix)+"/"+strconv.Itoa(int(p))] = o.StartOffset
			}
		}
	}
	return out, nil
}

// committed returns a classic group's committed offset per "topic/partition" (partitions
// it never committed are left out).
func (c *cluster) committed(ctx context.Context, group string) (map[string]int64, error) {
	real := c.group(group)
	os, err := c.admin.FetchOffsets(ctx, real)
	if err != nil {
		return nil, fmt.Errorf("OffsetFetch %s: %w", real, err)
	}
	out := map[string]int64{}
	os.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 && strings.HasPrefix(o.Topic, c.prefix) {
			out[strings.TrimPrefix(o.Topic, c.prefix)+"/"+strconv.Itoa(int(o.Partition))] = o.At
		}
	})
	return out, nil
}

// groupOffsets returns a group's progress per "topic/partition": the share group's start
// offsets or the classic group's committed offsets.
func (c *cluster) groupOffsets(ctx context.Context, g sim.Group) (map[string]int64, error) {
	if g.Type == sim.ShareGroup {
		return c.shareOffsets(ctx, g.Name)
	}
	return c.committed(ctx, g.Name)
}

// cleanup deletes the groups, their configs and the topics the run created, and nothing
// else (every name carries the run's prefix and was recorded when the run made it), then
// closes the admin client and the embedded cluster. A share group a killed or cut-off
// member still belongs to cannot be deleted (NON_EMPTY_GROUP) until the broker's session
// timeout drops that member; cleanup retries until ctx ends, then names what it left.
func (c *cluster) cleanup(ctx context.Context) error {
	var errs []error
	c.mu.Lock()
	groups, topics := append([]string(nil), c.groups...), append([]string(nil), c.topics...)
	configs := map[string][]string{}
	for g, ks := range c.configs {
		configs[g] = append([]string(nil), ks...)
	}
	c.mu.Unlock()
	if c.admin != nil && !c.target.Embedded() {
		for _, g := range groups {
			if !strings.HasPrefix(g, c.prefix) {
				continue
			}
			if err := c.deleteGroupConfigs(ctx, g, configs[g]); err != nil {
				errs = append(errs, err)
			}
			if err := c.deleteGroup(ctx, g); err != nil {
				errs = append(errs, err)
			}
		}
		for _, t := range topics {
			if !strings.HasPrefix(t, c.prefix) {
				continue
			}
			resp, err := c.admin.DeleteTopics(ctx, t)
			if err == nil {
				err = resp.Error()
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("deleting topic %s: %w", t, err))
			}
		}
	}
	c.close()
	return errors.Join(errs...)
}

// deleteGroup deletes one of the run's groups, retrying while the broker still counts a
// member (one that was killed, hung or cut off leaves at the session timeout).
func (c *cluster) deleteGroup(ctx context.Context, g string) error {
	for {
		_, err := c.admin.DeleteGroup(ctx, g)
		switch {
		case err == nil, errors.Is(err, kerr.GroupIDNotFound):
			return nil
		case errors.Is(err, kerr.NonEmptyGroup):
			select {
			case <-ctx.Done():
				return fmt.Errorf("deleting group %s: it still had members when the cleanup's time ran out (%w); delete it once the broker's session timeout dropped them", g, err)
			case <-time.After(time.Second):
			}
		default:
			return fmt.Errorf("deleting group %s: %w", g, err)
		}
	}
}

// deleteGroupConfigs removes the group configs the run set on one of its groups (Kafka
// keeps a group's configs when the group is deleted).
func (c *cluster) deleteGroupConfigs(ctx context.Context, g string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, g
	for _, k := range keys {
		cf := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cf.Name, cf.Op = k, kmsg.IncrementalAlterConfigOpDelete
		res.Configs = append(res.Configs, cf)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, c.adm)
	if err != nil {
		return fmt.Errorf("removing group %s's configs: %w", g, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			return fmt.Errorf("removing group %s's configs: %w", g, err)
		}
	}
	return nil
}

func (c *cluster) close() {
	if c.adm != nil {
		c.adm.Close()
		c.adm = nil
	}
	if c.fake != nil {
		c.fake.Close()
		c.fake = nil
	}
}
