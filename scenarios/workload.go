package scenarios

import (
	"errors"
	"fmt"
	"github.com/sharesim/sharesim/checker"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// KnownChecks are the check names a scenario's checks key accepts, besides "all". The
// checker (package checker) gives them their meaning; a scenario only selects them.
var KnownChecks = checker.Names()

// maxQuestion is the number of user questions (Questions, docs/questions.md).
const maxQuestion = 26

// scenario decodes the whole file.
func (d *decoder) scenario(root *yaml.Node, defName string) (meta, sim.Config, *Script) {
	m := meta{kind: KindWorkload, name: defName, seed: 1, checks: []string{"all"}}
	if root.Kind != yaml.MappingNode {
		d.fail(root, "", describe(root), "a mapping with the scenario's keys (kind, name, kafka, ...)")
		return m, sim.Config{}, nil
	}
	// The kind decides which keys are allowed, so read it first.
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "kind" {
			if k, ok := d.enum(root.Content[i+1], "kind", string(KindWorkload), string(KindScripted)); ok {
				m.kind = Kind(k)
			}
		}
	}
	top := d.mapping(root, "", topShape(m.kind))
	if top == nil {
		return m, sim.Config{}, nil
	}
	// Keys valid only for the other kind get a clearer message than "unknown key".
	d.retagKindErrors(m.kind)
	d.meta(top, &m)
	kafka := d.kafka(top, m.kind)
	if m.kind == KindScripted {
		return m, sim.Config{}, d.script(top, kafka)
	}
	return m, d.workload(top, kafka), nil
}

// retagKindErrors rewrites unknown-key problems for top-level keys of the other kind.
func (d *decoder) retagKindErrors(k Kind) {
	other := scriptedShape
	if k == KindScripted {
		other = workloadShape
	}
	for _, e := range d.errs {
		if e.Found == "an unknown key" && !strings.Contains(e.Path, ".") && !strings.Contains(e.Path, "[") && other.lookup(e.Path) != nil {
			e.Found = "a key of " + otherKind(k) + " scenarios"
			e.Expected = "a key of " + string(k) + " scenarios (this file has kind: " + string(k) + ")"
			e.Suggestion = ""
		}
	}
}

func otherKind(k Kind) string {
	if k == KindScripted {
		return string(KindWorkload)
	}
	return string(KindScripted)
}

func (d *decoder) meta(top *fields, m *meta) {
	if n := top.get("name"); n != nil {
		if v, ok := d.name(n, "name"); ok {
			m.name = v
		}
	}
	m.title = m.name
	if n := top.get("title"); n != nil {
		d.oneLine = true
		v, ok := d.text(n, "title")
		d.oneLine = false
		if ok && v != "" {
			m.title = strings.TrimSpace(v)
		}
	}
	if n := top.get("description"); n != nil {
		if v, ok := d.text(n, "description"); ok {
			m.description = strings.TrimSpace(v)
		}
	}
	if n := top.get("questions"); n != nil {
		items, _ := d.list(n, "questions")
		seen := map[int64]bool{}
		for i, it := range items {
			if q, ok := d.integer(it, indexPath("questions", i), 1, maxQuestion); ok {
				if seen[q] {
					d.fail(it, indexPath("questions", i), "question "+strconv.FormatInt(q, 10)+" a second time", "each question once")
					continue
				}
				seen[q] = true
				m.questions = append(m.questions, int(q))
			}
		}
	}
	if n := top.get("seed"); n != nil {
		const want = "an integer in [0, 18446744073709551615]"
		if s, ok := d.scalar(n, "seed", want); ok {
			v, err := strconv.ParseUint(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), 10, 64)
			if err != nil {
				d.fail(n, "seed", describe(n), want)
			} else {
				m.seed = v
			}
		}
	}
	if n := top.get("checks"); n != nil {
		m.checks = d.checks(n)
	}
	if n := top.get("focus"); n != nil {
		items, _ := d.list(n, "focus")
		for i, it := range items {
			p := indexPath("focus", i)
			v, ok := d.scalar(it, p, "a figure name")
			if !ok {
				continue
			}
			if !contains(FocusMetrics, v) {
				e := d.errorAt(it, p, describe(it), "a figure name: "+strings.Join(FocusMetrics, ", "))
				e.Suggestion = suggest(v, FocusMetrics)
				d.add(e)
				continue
			}
			m.focus = append(m.focus, v)
		}
	}
}

// FocusMetrics are the figures a scenario's focus key may name: the per-group figures of a
// run's summary and of sweep tables (docs/metrics.md; reports keeps the same list).
var FocusMetrics = []string{"produced", "completed", "processed_ok", "arrival_per_sec", "throughput_per_sec",
	"deliveries", "redeliveries", "duplicates", "duplicates_per_hour", "archived_at_limit", "archived_by_retention",
	"deleted_undelivered", "lock_timeouts", "e2e_p50_ms", "e2e_p99_ms", "reordered_fraction", "spso_stuck_max_ms", "kept_up"}

func (d *decoder) checks(n *yaml.Node) []string {
	allowed := append([]string{"all"}, KnownChecks...)
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		if n.Value == "none" {
			return []string{}
		}
		if v, ok := d.enum(n, "checks", allowed...); ok {
			return []string{v}
		}
		return nil
	}
	items, _ := d.list(n, "checks")
	out := []string{}
	seen := map[string]bool{}
	for i, it := range items {
		p := indexPath("checks", i)
		v, ok := d.scalar(it, p, "a check name")
		if !ok {
			continue
		}
		if !contains(allowed, v) {
			e := d.errorAt(it, p, describe(it), "all or a check name: "+strings.Join(KnownChecks, ", "))
			e.Suggestion = suggest(v, allowed)
			d.add(e)
			continue
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// kafkaSection is the decoded kafka: section with the nodes of its keys.
type kafkaSection struct {
	cfg model.Config
	f   *fields
	top *fields
	ok  bool // decoded without problems
}

// kafkaKeyFor maps model.ConfigError keys to the key as the file may spell it.
func (k *kafkaSection) node(key string) (*yaml.Node, string) {
	if k.f != nil {
		if key == "share.record.lock.duration.ms" && k.f.get(key) == nil && k.f.get("group.share.record.lock.duration.ms") != nil {
			key = "group.share.record.lock.duration.ms"
		}
		if n := k.f.get(key); n != nil {
			return n, k.f.p(key)
		}
		if n := k.top.get("kafka"); n != nil {
			return n, joinPath("kafka", key)
		}
	}
	return k.top.node, joinPath("kafka", key)
}

func (d *decoder) kafka(top *fields, kind Kind) *kafkaSection {
	ks := &kafkaSection{cfg: model.DefaultConfig(), top: top}
	before := len(d.errs)
	n := top.get("kafka")
	if n != nil {
		ks.f = d.mapping(n, "kafka", kafkaShape)
	}
	f := ks.f
	c := &ks.cfg
	if f != nil {
		if v := f.get("version"); v != nil {
			if s, ok := d.scalar(v, f.p("version"), model.VersionNames); ok {
				if ver, err := model.ParseVersion(s); err == nil {
					c.Version = ver
				} else {
					d.fail(v, f.p("version"), describe(v), `"4.1", "4.2", "4.3" or "4.4"`)
				}
			}
		}
		a, b := f.get("share.record.lock.duration.ms"), f.get("group.share.record.lock.duration.ms")
		if a != nil && b != nil {
			d.fail(f.key["group.share.record.lock.duration.ms"], f.p("group.share.record.lock.duration.ms"),
				"both share.record.lock.duration.ms and group.share.record.lock.duration.ms", "one of them (they set the same lock duration)")
		}
		for _, k := range []string{"share.record.lock.duration.ms", "group.share.record.lock.duration.ms"} {
			if v := f.get(k); v != nil {
				if ms, ok := d.kafkaMs(v, f.p(k)); ok {
					c.RecordLockDurationMs = ms
				}
			}
		}
		if v := f.get("group.share.min.record.lock.duration.ms"); v != nil {
			if ms, ok := d.kafkaMs(v, f.p("group.share.min.record.lock.duration.ms")); ok {
				c.MinRecordLockDurationMs = ms
			}
		}
		if v := f.get("group.share.max.record.lock.duration.ms"); v != nil {
			if ms, ok := d.kafkaMs(v, f.p("group.share.max.record.lock.duration.ms")); ok {
				c.MaxRecordLockDurationMs = ms
			}
		}
		if v := f.get("group.share.delivery.count.limit"); v != nil {
			if x, ok := d.integer(v, f.p("group.share.delivery.count.limit"), math.MinInt32, math.MaxInt32); ok {
				c.DeliveryCountLimit = int(x)
			}
		}
		if v := f.get("group.share.partition.max.record.locks"); v != nil {
			if x, ok := d.integer(v, f.p("group.share.partition.max.record.locks"), math.MinInt32, math.MaxInt32); ok {
				c.PartitionMaxRecordLocks = int(x)
			}
		}
		for _, b := range []struct {
			key string
			dst *int
		}{
			{"group.share.min.delivery.count.limit", &c.Bounds.MinDeliveryCountLimit},
			{"group.share.max.delivery.count.limit", &c.Bounds.MaxDeliveryCountLimit},
			{"group.share.min.partition.max.record.locks", &c.Bounds.MinPartitionMaxRecordLocks},
			{"group.share.max.partition.max.record.locks", &c.Bounds.MaxPartitionMaxRecordLocks},
		} {
			if v := f.get(b.key); v != nil {
				if c.Version < model.Kafka43 {
					d.fail(f.key[b.key], f.p(b.key), b.key+" with Kafka "+c.Version.String(), "version 4.3 or later (the broker bounds of KIP-1240)")
				} else if x, ok := d.integer(v, f.p(b.key), math.MinInt32, math.MaxInt32); ok {
					*b.dst = int(x)
				}
			}
		}
		if v := f.get("share.version"); v != nil {
			if x, ok := d.integer(v, f.p("share.version"), 1, 2); ok {
				c.ShareVersion = int(x)
			}
		}
		if v := f.get("errors.deadletterqueue.topic.name"); v != nil {
			if s, ok := d.scalar(v, f.p("errors.deadletterqueue.topic.name"), "a topic name"); ok {
				c.DLQTopic = strings.TrimSpace(s)
			}
		}
		if v := f.get("share.renew.acknowledge.enable"); v != nil {
			if b, ok := d.boolean(v, f.p("share.renew.acknowledge.enable")); ok {
				c.DisableRenewAcknowledge = !b
			}
		}
		if v := f.get("share.isolation.level"); v != nil {
			if s, ok := d.enum(v, f.p("share.isolation.level"), "read_uncommitted", "read_committed"); ok {
				c.IsolationLevel, _ = model.ParseIsolationLevel(s)
			}
		}
		if v := f.get("share.auto.offset.reset"); v != nil {
			const want = "latest, earliest or by_duration:<ISO-8601 duration> (e.g. by_duration:PT1H)"
			if s, ok := d.scalar(v, f.p("share.auto.offset.reset"), want); ok {
				r, err := model.ParseAutoOffsetReset(strings.TrimSpace(s))
				if err != nil {
					e := d.errorAt(v, f.p("share.auto.offset.reset"), describe(v), want)
					if sug := suggest(s, []string{"latest", "earliest"}); sug != "" {
						e.Suggestion = sug
					}
					d.add(e)
				} else {
					c.AutoOffsetReset = r
				}
			}
		}
		if v := f.get("bug"); v != nil {
			if s, ok := d.scalar(v, f.p("bug"), "a bug zoo name (see 'sharesim bugs')"); ok {
				c.Bug = strings.TrimSpace(s)
				if _, known := model.LookupBug(c.Bug); !known && c.Bug != "" {
					e := d.errorAt(v, f.p("bug"), describe(v), "a bug zoo name: "+strings.Join(model.BugNames(), ", "))
					e.Suggestion = suggest(c.Bug, model.BugNames())
					d.add(e)
				}
			}
		}
		if v := f.get("fix"); v != nil {
			if s, ok := d.scalar(v, f.p("fix"), "Kafka fix names (see docs/findings.md)"); ok {
				if norm, err := model.ParseFixes(s); err != nil {
					e := d.errorAt(v, f.p("fix"), describe(v), "comma-separated fix names ("+strings.Join(model.FixNames(), ", ")+") or all")
					e.Suggestion = suggest(strings.TrimSpace(s), model.FixNames())
					d.add(e)
				} else {
					c.Fix = norm
				}
			}
		}
		if v := f.get("relax_ranges"); v != nil {
			if kind != KindScripted {
				d.fail(f.key["relax_ranges"], f.p("relax_ranges"), "relax_ranges in a workload scenario", "Kafka's own ranges (relax_ranges is allowed only in scripted scenarios)")
			} else if b, ok := d.boolean(v, f.p("relax_ranges")); ok {
				c.RelaxRanges = b
			}
		}
	}
	ks.ok = len(d.errs) == before
	if ks.ok {
		if err := c.Validate(); err != nil {
			d.kafkaError(ks, err)
			ks.ok = false
		}
	}
	return ks
}

// kafkaError maps a model.Config validation error to the key it concerns.
func (d *decoder) kafkaError(ks *kafkaSection, err error) {
	var ce *model.ConfigError
	if !errors.As(err, &ce) {
		d.fail(ks.top.at("kafka"), "kafka", err.Error(), "valid Kafka settings")
		return
	}
	key := ce.Key
	if key == "version" {
		n, p := ks.node("version")
		d.fail(n, p, ce.Value, ce.Want)
		return
	}
	n, p := ks.node(key)
	found := ce.Value
	switch {
	case ks.f == nil || ks.f.get(strings.TrimPrefix(p, "kafka.")) == nil:
		found = ce.Value + " (the default)"
	case n.Kind == yaml.ScalarNode && n.Value != ce.Value:
		found = n.Value + " (" + ce.Value + " ms)"
	}
	want := ce.Want
	if strings.HasSuffix(key, ".ms") {
		want += " ms"
	}
	if key == "share.record.lock.duration.ms" && !ks.cfg.RelaxRanges {
		want += ", between group.share.min.record.lock.duration.ms and group.share.max.record.lock.duration.ms"
	}
	if !ks.cfg.RelaxRanges && (key == "group.share.delivery.count.limit" || key == "group.share.partition.max.record.locks" || key == "share.record.lock.duration.ms") {
		want += " (Kafka's range"
		if ks.top.get("steps") != nil || ks.top.get("start_offset") != nil {
			want += "; scripted scenarios may set relax_ranges: true"
		}
		want += ")"
	}
	d.fail(n, p, found, want)
}

// workload decodes the keys of a workload scenario into a sim.Config.
func (d *decoder) workload(top *fields, ks *kafkaSection) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Kafka = ks.cfg
	if n := top.get("duration"); n != nil {
		if v, ok := d.duration(n, "duration", durPositive); ok {
			cfg.DurationMs = v
		}
	}
	if n := top.get("heal"); n != nil {
		if v, ok := d.duration(n, "heal", 0); ok {
			cfg.HealMs = v
		}
	}
	if n := top.get("warmup"); n != nil {
		if v, ok := d.duration(n, "warmup", 0); ok {
			if cfg.DurationMs > 0 && v >= cfg.DurationMs {
				d.fail(n, "warmup", n.Value, fmt.Sprintf("a warm-up shorter than the duration (%d ms): the measurement window starts after it", cfg.DurationMs))
			} else {
				cfg.WarmupMs = v
			}
		}
	}
	if n := top.get("metrics_interval"); n != nil {
		if v, ok := d.duration(n, "metrics_interval", durPositive); ok {
			cfg.MetricsIntervalMs = v
		}
	}
	if n := top.get("max_events"); n != nil {
		if v, ok := d.integer(n, "max_events", 1, math.MaxInt64); ok {
			cfg.MaxEvents = v
		}
	}
	if n := top.get("brokers"); n != nil {
		if v, ok := d.integer(n, "brokers", 1, 1000); ok {
			cfg.Brokers = int(v)
		}
	}
	if n := top.get("log_read_latency"); n != nil {
		if x, ok := d.distribution(n, "log_read_latency", 0); ok {
			cfg.LogReadLatency = x
		}
	}
	w := &wctx{d: d, cfg: &cfg, ks: ks, topics: map[string]*sim.Topic{}}
	w.topicsSection(top.get("topics"))
	w.producersSection(top.get("producers"))
	w.groupsSection(top.get("groups"))
	w.coordinator(top.get("coordinator"))
	w.deadLetterQueue(top.get("dead_letter_queue"))
	w.network(top.get("network"))
	w.membership(top.get("membership"))
	w.faultsSection(top.get("faults"))
	w.checkPartitionTargets()
	w.swarm(top.get("swarm"))
	w.brokerCost(top.get("broker_cost"))
	if d.failed() {
		return cfg
	}
	if err := cfg.Validate(); err != nil {
		w.simError(top, err)
		return cfg
	}
	w.limits(top)
	return cfg
}

// wctx carries what later sections need from earlier ones.
type wctx struct {
	d      *decoder
	cfg    *sim.Config
	ks     *kafkaSection
	topics map[string]*sim.Topic
	// nodes by name, for mapping the simulator's validation errors back
	topicF, producerF, groupF, consumerF map[string]*fields
	faultF                               []*fields
	// partTargets are the faults' partition targets, checked after the faults section
	partTargets []partTarget
	// consumer instance and spec names, for fault targets
	consumerNames map[string]bool
	specNames     []string
}

func (w *wctx) topicsSection(n *yaml.Node) {
	d := w.d
	w.topicF = map[string]*fields{}
	items, _ := d.list(n, "topics")
	for i, it := range items {
		p := indexPath("topics", i)
		f := d.mapping(it, p, topicShape)
		if f == nil {
			continue
		}
		t := sim.Topic{Partitions: 1, RetentionMs: -1, RetentionRecords: -1, RetentionCheckIntervalMs: 300000}
		if v := f.get("name"); v != nil {
			if s, ok := d.name(v, f.p("name")); ok {
				t.Name = s
			}
		} else {
			d.fail(it, f.p("name"), "no value", "a topic name")
		}
		if v := f.get("partitions"); v != nil {
			if x, ok := d.integer(v, f.p("partitions"), 1, 10000); ok {
				t.Partitions = int(x)
			}
		}
		if v := f.get("retention.ms"); v != nil {
			if x, ok := d.duration(v, f.p("retention.ms"), durPlainMs|durNever); ok {
				t.RetentionMs = x
			}
		}
		if v := f.get("retention.records"); v != nil {
			if x, ok := d.integer(v, f.p("retention.records"), -1, math.MaxInt64); ok {
				t.RetentionRecords = x
			}
		}
		if v := f.get("log.retention.check.interval.ms"); v != nil {
			if x, ok := d.duration(v, f.p("log.retention.check.interval.ms"), durPlainMs|durPositive); ok {
				t.RetentionCheckIntervalMs = x
			}
		}
		w.topicSegments(f, &t)
		if t.Name != "" {
			if _, dup := w.topics[t.Name]; dup {
				d.fail(f.get("name"), f.p("name"), describe(f.get("name"))+" a second time", "a unique topic name")
				continue
			}
		}
		w.cfg.Topics = append(w.cfg.Topics, t)
		if t.Name != "" {
			w.topics[t.Name] = &w.cfg.Topics[len(w.cfg.Topics)-1]
			w.topicF[t.Name] = f
		}
	}
	// The map points into the slice; rebuild after appends moved it.
	for i := range w.cfg.Topics {
		w.topics[w.cfg.Topics[i].Name] = &w.cfg.Topics[i]
	}
}

// topicSegments decodes Kafka's segment layout: any of log.segment.bytes, log.roll.ms and
// retention.bytes turns it on (sim.Topic.Segments).
func (w *wctx) topicSegments(f *fields, t *sim.Topic) {
	d := w.d
	var first string
	for _, k := range []string{"log.segment.bytes", "log.roll.ms", "retention.bytes"} {
		if f.get(k) != nil && first == "" {
			first = k
		}
	}
	if first == "" {
		return
	}
	if f.get("retention.records") != nil {
		d.fail(f.key["retention.records"], f.p("retention.records"), "retention.records with "+first, "retention.bytes (with segments, retention is by bytes as in Kafka)")
		return
	}
	t.Segments, t.RetentionBytes = true, -1
	if v := f.get("log.segment.bytes"); v != nil {
		if x, ok := d.integer(v, f.p("log.segment.bytes"), 1, 1<<40); ok {
			t.SegmentBytes = x
		}
	}
	if v := f.get("log.roll.ms"); v != nil {
		if x, ok := d.duration(v, f.p("log.roll.ms"), durPlainMs|durPositive); ok {
			t.SegmentMs = x
		}
	}
	if v := f.get("retention.bytes"); v != nil {
		if x, ok := d.integer(v, f.p("retention.bytes"), -1, math.MaxInt64); ok {
			t.RetentionBytes = x
		}
	}
}

func (w *wctx) topicNames() string {
	names := make([]string, 0, len(w.cfg.Topics))
	for _, t := range w.cfg.Topics {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return "a topic declared under topics (there are none)"
	}
	return "one of the topics: " + strings.Join(names, ", ")
}

func (w *wctx) topicRef(n *yaml.Node, path string) (string, bool) {
	s, ok := w.d.str(n, path, "a topic name")
	if !ok {
		return "", false
	}
	if _, known := w.topics[s]; !known {
		e := w.d.errorAt(n, path, describe(n), w.topicNames())
		names := make([]string, 0, len(w.topics))
		for k := range w.topics {
			names = append(names, k)
		}
		e.Suggestion = suggest(s, names)
		w.d.add(e)
		return "", false
	}
	return s, true
}

func (w *wctx) producersSection(n *yaml.Node) {
	d := w.d
	w.producerF = map[string]*fields{}
	items, _ := d.list(n, "producers")
	for i, it := range items {
		p := indexPath("producers", i)
		f := d.mapping(it, p, producerShape)
		if f == nil {
			continue
		}
		pr := sim.Producer{Name: "p" + strconv.Itoa(i), BatchRecords: 10}
		if v := f.get("name"); v != nil {
			if s, ok := d.name(v, f.p("name")); ok {
				pr.Name = s
			}
		}
		if _, dup := w.producerF[pr.Name]; dup {
			d.fail(f.at("name"), f.p("name"), pr.Name+" a second time", "a unique producer name")
		}
		w.producerF[pr.Name] = f
		if v := f.get("topic"); v != nil {
			if s, ok := w.topicRef(v, f.p("topic")); ok {
				pr.Topic = s
			}
		} else if len(w.cfg.Topics) == 1 {
			pr.Topic = w.cfg.Topics[0].Name
		} else {
			d.fail(it, f.p("topic"), "no value", w.topicNames())
		}
		if v := f.get("arrival"); v != nil {
			if s, ok := d.enum(v, f.p("arrival"), "constant", "poisson", "bursts"); ok {
				pr.Rate = map[string]sim.RateKind{"constant": sim.RateConstant, "poisson": sim.RatePoisson, "bursts": sim.RateBursts}[s]
			}
		}
		bursts := pr.Rate == sim.RateBursts
		for _, k := range []string{"burst_every", "burst_records"} {
			if v := f.get(k); v != nil && !bursts {
				d.fail(f.key[k], f.p(k), k+" with arrival "+producerArrival(pr.Rate), "arrival: bursts (burst_every and burst_records shape bursts only)")
			}
		}
		if v := f.get("batch_records"); v != nil {
			if x, ok := d.integer(v, f.p("batch_records"), 1, 1_000_000); ok {
				pr.BatchRecords = int(x)
			}
		}
		w.producerBatching(f, &pr)
		if bursts {
			if v := f.get("burst_every"); v != nil {
				if x, ok := d.duration(v, f.p("burst_every"), durPositive); ok {
					pr.BurstEveryMs = x
				}
			} else {
				d.fail(it, f.p("burst_every"), "no value", "a positive duration (arrival: bursts needs burst_every)")
			}
			if v := f.get("burst_records"); v != nil {
				if x, ok := d.integer(v, f.p("burst_records"), 1, 100_000_000); ok {
					pr.BurstRecords = int(x)
				}
			} else {
				d.fail(it, f.p("burst_records"), "no value", "an integer >= 1 (arrival: bursts needs burst_records)")
			}
		}
		if v := f.get("rate"); v != nil {
			if r, ok := d.rate(v, f.p("rate")); ok {
				pr.RecordsPerSecond = r
			}
		} else if bursts {
			if pr.BurstEveryMs > 0 {
				pr.RecordsPerSecond = float64(pr.BurstRecords) * 1000 / float64(pr.BurstEveryMs)
			}
		} else {
			d.fail(it, f.p("rate"), "no value", rateWant)
		}
		if v := f.get("keys"); v != nil {
			if x, ok := d.integer(v, f.p("keys"), 0, 1<<31-1); ok {
				pr.Keys = int(x)
			}
		}
		if v := f.get("start"); v != nil {
			if x, ok := d.duration(v, f.p("start"), 0); ok {
				pr.StartMs = x
			}
		}
		if v := f.get("stop"); v != nil {
			if x, ok := d.duration(v, f.p("stop"), 0); ok {
				pr.StopMs = x
				if x > 0 && x <= pr.StartMs {
					d.fail(v, f.p("stop"), describe(v), "0 (until the main phase ends) or a time after start ("+formatMs(pr.StartMs)+")")
				}
			}
		}
		if v := f.get("poison"); v != nil {
			if x, ok := d.perMillion(v, f.p("poison")); ok {
				pr.PoisonPerMillion = x
			}
		}
		if v := f.get("compacted"); v != nil {
			if x, ok := d.perMillion(v, f.p("compacted")); ok {
				pr.CompactedPerMillion = x
			}
		}
		if v := f.get("transactional"); v != nil {
			if b, ok := d.boolean(v, f.p("transactional")); ok {
				pr.Transactional = b
			}
		}
		for _, k := range []string{"txn_batches", "abort", "txn_commit_delay"} {
			if v := f.get(k); v != nil && !pr.Transactional {
				d.fail(f.key[k], f.p(k), k+" for a producer that is not transactional", "transactional: true (or remove "+k+")")
			}
		}
		if pr.Transactional {
			pr.TxnBatches = 1
			if v := f.get("txn_batches"); v != nil {
				if x, ok := d.integer(v, f.p("txn_batches"), 1, 1_000_000); ok {
					pr.TxnBatches = int(x)
				}
			}
			if v := f.get("abort"); v != nil {
				if x, ok := d.perMillion(v, f.p("abort")); ok {
					pr.AbortPerMillion = x
				}
			}
			if v := f.get("txn_commit_delay"); v != nil {
				if x, ok := d.duration(v, f.p("txn_commit_delay"), 0); ok {
					pr.TxnCommitDelayMs = x
				}
			}
		}
		w.cfg.Producers = append(w.cfg.Producers, pr)
	}
}

// accumulatorKeys are the KafkaProducer settings of accumulator mode; any of them selects it.
var accumulatorKeys = []string{"batch.size", "linger.ms", "record_size", "max.in.flight.requests.per.connection", "buffer.memory", "max.request.size"}

// producerBatching decodes accumulator mode (batch.size in bytes, linger.ms, ...): any of
// its keys selects it, with Kafka 4's defaults for the rest (batch.size 16384, linger.ms 5).
func (w *wctx) producerBatching(f *fields, pr *sim.Producer) {
	d := w.d
	var first string
	for _, k := range accumulatorKeys {
		if f.get(k) != nil {
			first = k
			break
		}
	}
	if first == "" {
		return
	}
	if f.get("batch_records") != nil {
		d.fail(f.key["batch_records"], f.p("batch_records"), "batch_records with "+first, "one of them: batch_records fixes the records per batch; "+first+" is KafkaProducer batching by bytes")
		return
	}
	if f.get("transactional") != nil {
		d.fail(f.key[first], f.p(first), first+" for a transactional producer", "batch_records (transactions are modelled with fixed batches only)")
	}
	pr.BatchRecords, pr.BatchBytes, pr.LingerMs = 0, sim.DefaultBatchBytes, sim.DefaultLingerMs
	if v := f.get("batch.size"); v != nil {
		if x, ok := d.integer(v, f.p("batch.size"), sim.RecordBatchOverhead+1, 1<<30); ok {
			pr.BatchBytes = x
		}
	}
	if v := f.get("linger.ms"); v != nil {
		if x, ok := d.duration(v, f.p("linger.ms"), durPlainMs); ok {
			pr.LingerMs = x
		}
	}
	if v := f.get("record_size"); v != nil {
		if x, ok := d.byteDistribution(v, f.p("record_size")); ok {
			pr.RecordSize = x
		}
	}
	if v := f.get("max.in.flight.requests.per.connection"); v != nil {
		if x, ok := d.integer(v, f.p("max.in.flight.requests.per.connection"), 1, 1000); ok {
			pr.MaxInFlight = int(x)
		}
	}
	if v := f.get("buffer.memory"); v != nil {
		if x, ok := d.integer(v, f.p("buffer.memory"), 1, 1<<40); ok {
			pr.BufferMemory = x
		}
	}
	if v := f.get("max.request.size"); v != nil {
		if x, ok := d.integer(v, f.p("max.request.size"), 1, 1<<30); ok {
			pr.MaxRequestBytes = x
		}
	}
}

func producerArrival(k sim.RateKind) string {
	switch k {
	case sim.RatePoisson:
		return "poisson"
	case sim.RateBursts:
		return "bursts"
	}
	return "constant"
}

var failureActions = map[string]sim.FailureAction{"release": sim.FailRelease, "reject": sim.FailReject, "crash": sim.FailCrash, "skip": sim.FailSkip}

func (w *wctx) groupsSection(n *yaml.Node) {
	d := w.d
	w.groupF, w.consumerF, w.consumerNames = map[string]*fields{}, map[string]*fields{}, map[string]bool{}
	items, _ := d.list(n, "groups")
	ci := 0
	for i, it := range items {
		p := indexPath("groups", i)
		f := d.mapping(it, p, groupShape)
		if f == nil {
			continue
		}
		g := sim.Group{Name: "g" + strconv.Itoa(i), AutoCommitIntervalMs: 5000}
		if v := f.get("name"); v != nil {
			if s, ok := d.name(v, f.p("name")); ok {
				g.Name = s
			}
		}
		if _, dup := w.groupF[g.Name]; dup {
			d.fail(f.at("name"), f.p("name"), g.Name+" a second time", "a unique group name")
		}
		w.groupF[g.Name] = f
		if v := f.get("type"); v != nil {
			if s, ok := d.enum(v, f.p("type"), "share", "classic"); ok && s == "classic" {
				g.Type = sim.ClassicGroup
			}
		}
		if v := f.get("topics"); v != nil {
			ts, _ := d.list(v, f.p("topics"))
			seen := map[string]bool{}
			for j, tn := range ts {
				if s, ok := w.topicRef(tn, indexPath(f.p("topics"), j)); ok {
					if seen[s] {
						d.fail(tn, indexPath(f.p("topics"), j), s+" a second time", "each topic once")
						continue
					}
					seen[s] = true
					g.Topics = append(g.Topics, s)
				}
			}
		} else {
			for _, t := range w.cfg.Topics {
				g.Topics = append(g.Topics, t.Name)
			}
		}
		if v := f.get("auto.commit.interval.ms"); v != nil {
			if g.Type != sim.ClassicGroup {
				d.fail(f.key["auto.commit.interval.ms"], f.p("auto.commit.interval.ms"), "auto.commit.interval.ms in a share group", "type: classic (share groups have no committed offsets)")
			} else if x, ok := d.duration(v, f.p("auto.commit.interval.ms"), durPlainMs|durPositive); ok {
				g.AutoCommitIntervalMs = x
			}
		}
		cs, _ := d.list(f.get("consumers"), f.p("consumers"))
		for j, cn := range cs {
			if spec, ok := w.consumer(cn, indexPath(f.p("consumers"), j), ci); ok {
				g.Consumers = append(g.Consumers, spec)
			}
			ci++
		}
		w.cfg.Groups = append(w.cfg.Groups, g)
	}
}

func (w *wctx) consumer(n *yaml.Node, p string, ci int) (sim.ConsumerSpec, bool) {
	d := w.d
	f := d.mapping(n, p, consumerShape)
	if f == nil {
		return sim.ConsumerSpec{}, false
	}
	c := sim.DefaultConsumer("c" + strconv.Itoa(ci))
	if v := f.get("name"); v != nil {
		if s, ok := d.name(v, f.p("name")); ok {
			c.Name = s
		}
	}
	if _, dup := w.consumerF[c.Name]; dup {
		d.fail(f.at("name"), f.p("name"), c.Name+" a second time", "a consumer name unique across all groups")
	}
	w.consumerF[c.Name] = f
	if v := f.get("count"); v != nil {
		if x, ok := d.integer(v, f.p("count"), 0, 100_000); ok {
			c.Count = int(x)
		}
	}
	if v := f.get("start"); v != nil {
		if x, ok := d.duration(v, f.p("start"), 0); ok {
			c.StartMs = x
		}
	}
	if v := f.get("processing"); v != nil {
		if x, ok := d.distribution(v, f.p("processing"), 0); ok {
			c.Processing = x
		}
	}
	if v := f.get("threads"); v != nil {
		if x, ok := d.integer(v, f.p("threads"), 1, 100000); ok {
			c.Threads = int(x)
		}
	}
	if v := f.get("slow_factor"); v != nil {
		if x, ok := d.number(v, f.p("slow_factor"), 0, true, 1e6); ok {
			c.SlowFactor = x
		}
	}
	if v := f.get("share.acknowledgement.mode"); v != nil {
		if s, ok := d.enum(v, f.p("share.acknowledgement.mode"), "implicit", "explicit"); ok && s == "explicit" {
			c.AckMode = sim.AckExplicit
		}
	}
	if v := f.get("commit"); v != nil {
		if s, ok := d.enum(v, f.p("commit"), "async", "sync"); ok && s == "sync" {
			c.Commit = sim.CommitSync
		}
	}
	if v := f.get("max.poll.records"); v != nil {
		if x, ok := d.integer(v, f.p("max.poll.records"), 1, 1<<31-1); ok {
			c.MaxPollRecords = int(x)
		}
	}
	if v := f.get("share.acquire.mode"); v != nil {
		if s, ok := d.enum(v, f.p("share.acquire.mode"), "batch_optimized", "record_limit"); ok {
			c.AcquireMode, _ = model.ParseAcquireMode(s)
			if c.AcquireMode == model.RecordLimit && w.ks.ok && w.ks.cfg.Version < model.Kafka42 {
				d.fail(v, f.p("share.acquire.mode"), "record_limit with Kafka "+w.ks.cfg.Version.String(), "batch_optimized (record_limit needs kafka.version 4.2)")
			}
		}
	}
	if v := f.get("fetch.max.wait.ms"); v != nil {
		if x, ok := d.duration(v, f.p("fetch.max.wait.ms"), durPlainMs); ok {
			c.MaxWaitMs = x
		}
	}
	if v := f.get("failure"); v != nil {
		if x, ok := d.perMillion(v, f.p("failure")); ok {
			c.FailurePerMillion = x
		}
	}
	for _, k := range []string{"on_failure", "on_poison"} {
		v := f.get(k)
		if v == nil {
			continue
		}
		s, ok := d.enum(v, f.p(k), "crash", "release", "reject", "skip")
		if !ok {
			continue
		}
		a := failureActions[s]
		if (a == sim.FailRelease || a == sim.FailReject) && c.AckMode == sim.AckImplicit {
			d.fail(v, f.p(k), s+" with implicit acknowledgement", "crash or skip (release and reject need share.acknowledgement.mode: explicit)")
			continue
		}
		if k == "on_failure" {
			c.OnFailure = a
		} else {
			c.OnPoison = a
		}
	}
	if v := f.get("renew_every"); v != nil {
		if x, ok := d.duration(v, f.p("renew_every"), 0); ok {
			c.RenewEveryMs = x
			if x > 0 {
				switch {
				case c.AckMode != sim.AckExplicit:
					d.fail(v, f.p("renew_every"), describe(v)+" with implicit acknowledgement", "0 (renewing needs share.acknowledgement.mode: explicit)")
				case w.ks.ok && w.ks.cfg.Version < model.Kafka42:
					d.fail(v, f.p("renew_every"), describe(v)+" with Kafka "+w.ks.cfg.Version.String(), "0 (RENEW needs kafka.version 4.2)")
				}
			}
		}
	}
	w.consumerClientKeys(f, &c)
	if v := f.get("restart_after_crash"); v != nil {
		if x, ok := d.duration(v, f.p("restart_after_crash"), durNever); ok {
			c.RestartAfterCrashMs = x
		}
	}
	w.specNames = append(w.specNames, c.Name)
	w.consumerNames[c.Name] = true
	if c.Count > 1 {
		for k := 0; k < c.Count; k++ {
			w.consumerNames[fmt.Sprintf("%s-%d", c.Name, k)] = true
		}
	}
	return c, true
}

// consumerClientKeys decodes client-side parallelism and the classic consumer's fetch and
// poll settings. The group type is checked by the simulator (sim.Config.Validate), whose
// error names the key.
func (w *wctx) consumerClientKeys(f *fields, c *sim.ConsumerSpec) {
	d := w.d
	if v := f.get("style"); v != nil {
		if s, ok := d.enum(v, f.p("style"), "blocking", "continuous"); ok && s == "continuous" {
			c.Style = sim.StyleContinuous
		}
	}
	if v := f.get("held_records"); v != nil {
		if x, ok := d.integer(v, f.p("held_records"), 1, 10_000_000); ok {
			c.HeldRecords = int(x)
			if c.Style != sim.StyleContinuous {
				d.fail(f.key["held_records"], f.p("held_records"), "held_records without style: continuous", "style: continuous (held_records bounds a continuous client)")
			}
		}
	}
	if v := f.get("max.poll.interval.ms"); v != nil {
		if x, ok := d.duration(v, f.p("max.poll.interval.ms"), durPlainMs|durPositive); ok {
			c.MaxPollIntervalMs = x
		}
	}
	if v := f.get("fetch.min.bytes"); v != nil {
		if x, ok := d.integer(v, f.p("fetch.min.bytes"), 1, 1<<40); ok {
			c.FetchMinBytes = x
		}
	}
}

// brokerCostKeys are broker_cost's service times in microseconds, with where they go.
var brokerCostKeys = []struct {
	key string
	at  func(*sim.BrokerCost) *float64
}{
	{"produce_request_us", func(b *sim.BrokerCost) *float64 { return &b.ProduceRequestMs }},
	{"produce_record_us", func(b *sim.BrokerCost) *float64 { return &b.ProduceRecordMs }},
	{"share_fetch_request_us", func(b *sim.BrokerCost) *float64 { return &b.ShareFetchRequestMs }},
	{"share_fetch_record_us", func(b *sim.BrokerCost) *float64 { return &b.ShareFetchRecordMs }},
	{"acknowledge_request_us", func(b *sim.BrokerCost) *float64 { return &b.AcknowledgeRequestMs }},
	{"acknowledge_record_us", func(b *sim.BrokerCost) *float64 { return &b.AcknowledgeRecordMs }},
	{"classic_fetch_request_us", func(b *sim.BrokerCost) *float64 { return &b.ClassicFetchRequestMs }},
	{"classic_fetch_record_us", func(b *sim.BrokerCost) *float64 { return &b.ClassicFetchRecordMs }},
}

// brokerCost decodes the broker cost model (off unless the section is there).
func (w *wctx) brokerCost(n *yaml.Node) {
	if n == nil {
		return
	}
	d := w.d
	f := d.mapping(n, "broker_cost", workloadShape.lookup("broker_cost"))
	if f == nil {
		return
	}
	bc := &sim.BrokerCost{IOThreads: 8}
	if v := f.get("num.io.threads"); v != nil {
		if x, ok := d.integer(v, f.p("num.io.threads"), 1, 10000); ok {
			bc.IOThreads = int(x)
		}
	}
	for _, k := range brokerCostKeys {
		if v := f.get(k.key); v != nil {
			if x, ok := d.integer(v, f.p(k.key), 0, 1_000_000_000); ok {
				*k.at(bc) = float64(x) / 1000
			}
		}
	}
	if v := f.get("bandwidth"); v != nil {
		if x, ok := d.integer(v, f.p("bandwidth"), 1, 1<<50); ok {
			bc.BandwidthBytesPerSec = float64(x)
		}
	}
	w.cfg.BrokerCost = bc
}

func (w *wctx) coordinator(n *yaml.Node) {
	if n == nil {
		return
	}
	d := w.d
	f := d.mapping(n, "coordinator", workloadShape.lookup("coordinator"))
	if f == nil {
		return
	}
	if v := f.get("write_latency"); v != nil {
		if x, ok := d.distribution(v, f.p("write_latency"), 0); ok {
			w.cfg.Coordinator.WriteLatency = x
		}
	}
	if v := f.get("read_latency"); v != nil {
		if x, ok := d.distribution(v, f.p("read_latency"), 0); ok {
			w.cfg.Coordinator.ReadLatency = x
		}
	}
	if v := f.get("write_failure"); v != nil {
		if x, ok := d.perMillion(v, f.p("write_failure")); ok {
			w.cfg.Coordinator.WriteFailPerMillion = x
		}
	}
}

// deadLetterQueue decodes the dead-letter topic's produce path (Kafka 4.4).
func (w *wctx) deadLetterQueue(n *yaml.Node) {
	if n == nil {
		return
	}
	d := w.d
	f := d.mapping(n, "dead_letter_queue", workloadShape.lookup("dead_letter_queue"))
	if f == nil {
		return
	}
	if v := f.get("produce_latency"); v != nil {
		if x, ok := d.distribution(v, f.p("produce_latency"), 0); ok {
			w.cfg.DeadLetterQueue.ProduceLatency = x
		}
	}
	if v := f.get("produce_failure"); v != nil {
		if x, ok := d.perMillion(v, f.p("produce_failure")); ok {
			w.cfg.DeadLetterQueue.ProduceFailPerMillion = x
		}
	}
}

func (w *wctx) network(n *yaml.Node) {
	if n == nil {
		return
	}
	d := w.d
	f := d.mapping(n, "network", workloadShape.lookup("network"))
	if f == nil {
		return
	}
	if v := f.get("latency"); v != nil {
		if x, ok := d.distribution(v, f.p("latency"), 0); ok {
			w.cfg.Network.Latency = x
		}
	}
	if v := f.get("response_loss"); v != nil {
		if x, ok := d.perMillion(v, f.p("response_loss")); ok {
			w.cfg.Network.ResponseLossPerMillion = x
		}
	}
	if v := f.get("request.timeout.ms"); v != nil {
		if x, ok := d.duration(v, f.p("request.timeout.ms"), durPlainMs|durPositive); ok {
			w.cfg.Network.RequestTimeoutMs = x
		}
	}
	if v := f.get("reset_delay"); v != nil {
		if x, ok := d.duration(v, f.p("reset_delay"), 0); ok {
			w.cfg.Network.ResetDelayMs = x
		}
	}
}

func (w *wctx) membership(n *yaml.Node) {
	if n == nil {
		return
	}
	d := w.d
	f := d.mapping(n, "membership", workloadShape.lookup("membership"))
	if f == nil {
		return
	}
	m := &w.cfg.Membership
	sOK, hOK := true, true
	if v := f.get("group.share.session.timeout.ms"); v != nil {
		var x int64
		if x, sOK = d.duration(v, f.p("group.share.session.timeout.ms"), durPlainMs|durPositive); sOK {
			m.SessionTimeoutMs = x
		}
	}
	if v := f.get("group.share.heartbeat.interval.ms"); v != nil {
		var x int64
		if x, hOK = d.duration(v, f.p("group.share.heartbeat.interval.ms"), durPlainMs|durPositive); hOK {
			m.HeartbeatIntervalMs = x
		}
	}
	if sOK && hOK && m.HeartbeatIntervalMs >= m.SessionTimeoutMs {
		k := "group.share.heartbeat.interval.ms"
		d.fail(f.at(k), f.p(k), formatMs(m.HeartbeatIntervalMs), "less than group.share.session.timeout.ms ("+formatMs(m.SessionTimeoutMs)+")")
	}
}

// Fault kinds by what their parameters mean.
func faultUsesDuration(k sim.FaultKind) bool {
	switch k {
	case sim.FaultNetCut, sim.FaultPause, sim.FaultWriteFail, sim.FaultCoordinatorSlow, sim.FaultDownstreamOutage, sim.FaultRenewStall, sim.FaultDLQFail, sim.FaultDLQSlow:
		return true
	}
	return false
}

func faultUsesRestart(k sim.FaultKind) bool {
	return k == sim.FaultKill || k == sim.FaultClose || k == sim.FaultHang || k == sim.FaultHostLoss
}

func faultTargetsConsumer(k sim.FaultKind) bool {
	switch k {
	case sim.FaultKill, sim.FaultClose, sim.FaultHang, sim.FaultNetCut, sim.FaultPause, sim.FaultHostLoss:
		return true
	}
	return false
}

func faultTargetsPartition(k sim.FaultKind) bool {
	return k == sim.FaultLeaderFailover || k == sim.FaultDeleteRecords || k == sim.FaultLockExpiry
}

// faultKindNames lists every fault kind as files spell it.
func faultKindNames() []string {
	var out []string
	for k := sim.FaultKind(1); k < 64; k++ {
		s := k.String()
		if strings.HasPrefix(s, "FaultKind(") {
			break
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) faultKind(n *yaml.Node, path string) (sim.FaultKind, bool) {
	names := faultKindNames()
	want := "a fault kind: " + strings.Join(names, ", ")
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	k, err := sim.ParseFaultKind(s)
	if err != nil {
		e := d.errorAt(n, path, describe(n), want)
		e.Suggestion = suggest(s, names)
		d.add(e)
		return 0, false
	}
	return k, true
}

func (w *wctx) faultsSection(n *yaml.Node) {
	d := w.d
	items, _ := d.list(n, "faults")
	for i, it := range items {
		p := indexPath("faults", i)
		f := d.mapping(it, p, faultShape)
		if f == nil {
			continue
		}
		w.faultF = append(w.faultF, f)
		flt := sim.Fault{RestartAfterMs: -1}
		kn := f.get("kind")
		if kn == nil {
			d.fail(it, f.p("kind"), "no value", "a fault kind: "+strings.Join(faultKindNames(), ", "))
			continue
		}
		k, ok := d.faultKind(kn, f.p("kind"))
		if !ok {
			continue
		}
		flt.Kind = k
		if v := f.get("target"); v != nil {
			if s, ok := d.str(v, f.p("target"), "a consumer or partition name"); ok {
				flt.Target = s
				w.checkTarget(v, f.p("target"), k, s)
			}
		}
		if v := f.get("at"); v != nil {
			if x, ok := d.duration(v, f.p("at"), 0); ok {
				flt.AtMs = x
			}
		}
		if v := f.get("every"); v != nil {
			if x, ok := d.duration(v, f.p("every"), 0); ok {
				flt.EveryMs = x
			}
		}
		if v := f.get("until"); v != nil {
			if x, ok := d.duration(v, f.p("until"), 0); ok {
				flt.UntilMs = x
				switch {
				case flt.EveryMs == 0:
					d.fail(f.key["until"], f.p("until"), "until without every", "every (until ends a repeating fault)")
				case x != 0 && x <= flt.AtMs:
					d.fail(v, f.p("until"), describe(v), "a time after at ("+formatMs(flt.AtMs)+")")
				}
			}
		}
		if v := f.get("probability"); v != nil {
			if x, ok := d.perMillion(v, f.p("probability")); ok {
				if x == 0 {
					d.fail(v, f.p("probability"), describe(v), "a probability > 0 (remove the fault to disable it)")
				} else if x < 1_000_000 {
					flt.PerMillion = x
				}
			}
		}
		if v := f.get("duration"); v != nil {
			if !faultUsesDuration(k) {
				d.fail(f.key["duration"], f.p("duration"), "duration for a "+k.String()+" fault", "no duration (only netcut, pause, write-fail, coordinator-slow, downstream-outage, renew-stall, dlq-fail and dlq-slow last a while)")
			} else if x, ok := d.duration(v, f.p("duration"), durPositive); ok {
				flt.DurationMs = x
			}
		} else if faultUsesDuration(k) {
			d.fail(it, f.p("duration"), "no value", "a positive duration (a "+k.String()+" fault lasts that long)")
		}
		if v := f.get("restart_after"); v != nil {
			if !faultUsesRestart(k) {
				d.fail(f.key["restart_after"], f.p("restart_after"), "restart_after for a "+k.String()+" fault", "no restart_after (only kill, close, hang and host-loss stop a consumer)")
			} else if x, ok := d.duration(v, f.p("restart_after"), durNever); ok {
				flt.RestartAfterMs = x
			}
		}
		if v := f.get("holding"); v != nil {
			if !faultUsesRestart(k) {
				d.fail(f.key["holding"], f.p("holding"), "holding for a "+k.String()+" fault", "no holding (only kill, close, hang and host-loss wait for a consumer that holds records)")
			} else {
				flt.Holding, _ = d.boolean(v, f.p("holding"))
			}
		}
		v := f.get("value")
		switch {
		case k == sim.FaultCoordinatorSlow && v == nil:
			d.fail(it, f.p("value"), "no value", "the share coordinator's write latency during the fault (e.g. 200ms)")
		case k == sim.FaultCoordinatorSlow:
			if x, ok := d.duration(v, f.p("value"), durPositive); ok {
				flt.ValueMs = x
			}
		case k == sim.FaultDLQSlow && v == nil:
			d.fail(it, f.p("value"), "no value", "the dead-letter-queue produce latency during the fault (e.g. 2s)")
		case k == sim.FaultDLQSlow:
			if x, ok := d.duration(v, f.p("value"), durPositive); ok {
				flt.ValueMs = x
			}
		case k == sim.FaultDeleteRecords && v == nil:
			d.fail(it, f.p("value"), "no value", "the number of records to delete from the log start")
		case k == sim.FaultDeleteRecords:
			if x, ok := d.integer(v, f.p("value"), 1, 1_000_000_000_000); ok {
				flt.ValueMs = x
			}
		case v != nil:
			d.fail(f.key["value"], f.p("value"), "value for a "+k.String()+" fault", "no value (only coordinator-slow, dlq-slow and delete-records take one)")
		}
		for _, key := range []string{"error", "reads"} {
			if x := f.get(key); x != nil && k != sim.FaultWriteFail {
				d.fail(f.key[key], f.p(key), key+" for a "+k.String()+" fault", "no "+key+" (only write-fail takes one)")
			}
		}
		if k == sim.FaultWriteFail {
			flt.Error = d.errorCodeOpt(f, model.ErrCoordinatorNotAvailable)
			if x := f.get("reads"); x != nil {
				flt.Reads, _ = d.boolean(x, f.p("reads"))
			}
		}
		w.configChangeFault(it, f, k, &flt)
		w.addPartitionsFault(it, f, k, &flt)
		w.cfg.Faults = append(w.cfg.Faults, flt)
	}
}

// configChangeFault reads a config-change fault's group and set: each key one of the
// group configs or broker bounds a running group can change, each value within Kafka's
// definition of the key. Whether the broker's bounds in force accept it is decided when
// the fault fires (INVALID_CONFIG), as Kafka does.
func (w *wctx) configChangeFault(it *yaml.Node, f *fields, k sim.FaultKind, flt *sim.Fault) {
	d := w.d
	if k != sim.FaultConfigChange {
		for _, key := range []string{"group", "set"} {
			if x := f.get(key); x != nil {
				d.fail(f.key[key], f.p(key), key+" for a "+k.String()+" fault", "no "+key+" (only config-change takes one)")
			}
		}
		return
	}
	for _, key := range []string{"every", "until", "probability", "target"} {
		if x := f.get(key); x != nil {
			d.fail(f.key[key], f.p(key), key+" for a config-change fault", "no "+key+" (a config change happens once, at its time, to a group)")
		}
	}
	if f.get("at") == nil {
		d.fail(it, f.p("at"), "no value", "the time of the config change (e.g. 2m)")
	}
	if v := f.get("group"); v != nil {
		if s, ok := d.str(v, f.p("group"), "a share group's name"); ok {
			flt.Group = s
			found := false
			for _, g := range w.cfg.Groups {
				if g.Name == s {
					found = true
					if g.Type != sim.ShareGroup {
						d.fail(v, f.p("group"), "classic group "+s, "a share group (only share groups have these configs)")
					}
				}
			}
			if !found {
				d.fail(v, f.p("group"), "group "+s, "the name of a share group of this scenario")
			}
		}
	}
	set := f.get("set")
	if set == nil || set.Kind != yaml.MappingNode || len(set.Content) == 0 {
		d.fail(it, f.p("set"), "no settings", "set: a mapping of configs to change, e.g. {share.delivery.count.limit: 3}; keys: "+
			strings.Join(model.GroupConfigKeys, ", ")+", "+strings.Join(model.BrokerBoundKeys, ", "))
		return
	}
	for i := 0; i+1 < len(set.Content); i += 2 {
		kn, vn := set.Content[i], set.Content[i+1]
		path := f.p("set") + "." + kn.Value
		if vn.Kind != yaml.ScalarNode {
			d.fail(vn, path, describe(vn), "a single value")
			continue
		}
		e := model.ConfigEntry{Key: kn.Value, Value: vn.Value}
		if err := model.CheckConfigEntry(e); err != nil {
			var ce *model.ConfigError
			want := err.Error()
			if errors.As(err, &ce) {
				want = ce.Want
			}
			if _, known := configKeyKnown(e.Key); !known {
				keys := append(append([]string(nil), model.GroupConfigKeys...), model.BrokerBoundKeys...)
				ee := d.errorAt(kn, path, "key "+e.Key, "a group config or broker bound a running group can change")
				if ee.Suggestion = suggest(e.Key, keys); ee.Suggestion == "" {
					ee.Expected += ": " + strings.Join(keys, ", ")
				}
				d.errs = append(d.errs, ee)
			} else {
				d.fail(vn, path, describe(vn), want)
			}
			continue
		}
		flt.Set = append(flt.Set, e)
	}
}

// configKeyKnown reports whether key may appear in a config-change fault's set.
func configKeyKnown(key string) (string, bool) {
	for _, k := range model.GroupConfigKeys {
		if k == key {
			return k, true
		}
	}
	return key, model.IsBrokerBound(key)
}

func (w *wctx) checkTarget(n *yaml.Node, path string, k sim.FaultKind, s string) {
	d := w.d
	switch {
	case faultTargetsConsumer(k):
		if !w.consumerNames[s] {
			names := append([]string(nil), w.specNames...)
			e := d.errorAt(n, path, describe(n), "a consumer name ("+strings.Join(names, ", ")+") or an instance name (NAME-0, NAME-1, ... when count > 1)")
			e.Suggestion = suggest(s, names)
			d.add(e)
		}
	case k == sim.FaultAddPartitions:
		if _, ok := w.topics[s]; !ok {
			var names []string
			for _, t := range w.cfg.Topics {
				names = append(names, t.Name)
			}
			e := d.errorAt(n, path, describe(n), "a topic name ("+strings.Join(names, ", ")+")")
			e.Suggestion = suggest(s, names)
			d.add(e)
		}
	case faultTargetsPartition(k):
		// Checked once every fault is read: a partition an add-partitions fault adds is a
		// target from its addition on (checkPartitionTargets).
		w.partTargets = append(w.partTargets, partTarget{n: n, path: path, fault: len(w.cfg.Faults), name: s})
	default:
		d.fail(n, path, "a target for a "+k.String()+" fault", "no target (it affects the whole cluster)")
	}
}

// partTarget is a fault's partition target, checked after the faults section.
type partTarget struct {
	n     *yaml.Node
	path  string
	fault int // index in cfg.Faults
	name  string
}

// checkPartitionTargets checks every partition target against the partitions its topic
// has when the fault first fires (sim.Config.PartitionsAt): the first ones and those added
// before by add-partitions faults. A partition added only later is named with the time it
// appears.
func (w *wctx) checkPartitionTargets() {
	for _, pt := range w.partTargets {
		f := w.cfg.Faults[pt.fault]
		topic, num, hasNum := strings.Cut(pt.name, "/")
		x := 0
		if hasNum {
			var err error
			if x, err = strconv.Atoi(num); err != nil || x < 0 || strconv.Itoa(x) != num {
				x = -1
			}
		}
		if n := w.cfg.PartitionsAt(topic, f.AtMs, pt.fault); x >= 0 && x < n {
			continue
		}
		// The add-partitions faults in the order they fire (time, then file order).
		adds := make([]int, 0, len(w.cfg.Faults))
		for j, g := range w.cfg.Faults {
			if g.Kind == sim.FaultAddPartitions && g.AtMs < w.cfg.DurationMs {
				adds = append(adds, j)
			}
		}
		sort.SliceStable(adds, func(a, b int) bool { return w.cfg.Faults[adds[a]].AtMs < w.cfg.Faults[adds[b]].AtMs })
		var parts []string
		for _, t := range w.cfg.Topics {
			parts = append(parts, fmt.Sprintf("%s/0..%d", t.Name, t.Partitions-1))
			have := t.Partitions
			for _, j := range adds {
				if g := w.cfg.Faults[j]; g.Target == t.Name {
					parts = append(parts, fmt.Sprintf("%s/%d..%d from %s (faults[%d])", t.Name, have, have+g.Count-1, formatMs(g.AtMs), j))
					have += g.Count
				}
			}
		}
		want := "a partition as topic/number (" + strings.Join(parts, ", ") + ")"
		if _, ok := w.topics[topic]; ok && x >= 0 && x < w.cfg.PartitionsAt(topic, math.MaxInt64, len(w.cfg.Faults)) {
			want = "a partition that exists at " + formatMs(f.AtMs) + ", when the fault first fires (" + strings.Join(parts, ", ") + ")"
		}
		w.d.fail(pt.n, pt.path, describe(pt.n), want)
	}
}

func (w *wctx) swarm(n *yaml.Node) {
	if n == nil {
		return
	}
	d := w.d
	f := d.mapping(n, "swarm", workloadShape.lookup("swarm"))
	if f == nil {
		return
	}
	sw := &sim.Swarm{}
	items, _ := d.list(f.get("kinds"), f.p("kinds"))
	for i, it := range items {
		if k, ok := d.faultKind(it, indexPath(f.p("kinds"), i)); ok {
			if k == sim.FaultConfigChange || k == sim.FaultAddPartitions {
				d.fail(it, indexPath(f.p("kinds"), i), k.String()+" in a swarm", "a fault kind that needs no settings ("+k.String()+" needs its own; schedule it under faults)")
				continue
			}
			sw.Kinds = append(sw.Kinds, k)
		}
	}
	if len(items) == 0 {
		d.fail(f.at("kinds"), f.p("kinds"), "no fault kinds", "a list of fault kinds to draw from")
	}
	sw.Count = len(sw.Kinds)
	if v := f.get("count"); v != nil {
		if x, ok := d.integer(v, f.p("count"), 0, 1_000_000); ok {
			sw.Count = int(x)
		}
	}
	w.cfg.Swarm = sw
}

var simErrSubject = regexp.MustCompile(`^(producer|group|consumer|topic) "([^"]*)"`)

// simError maps a sim.Config.Validate error to the section it concerns. The decoder
// checks everything Validate checks first, so this is a safety net for rules added to the
// simulator later.
func (w *wctx) simError(top *fields, err error) {
	msg := err.Error()
	var f *fields
	path := ""
	if m := simErrSubject.FindStringSubmatch(msg); m != nil {
		switch m[1] {
		case "producer":
			f = w.producerF[m[2]]
		case "group":
			f = w.groupF[m[2]]
		case "consumer":
			f = w.consumerF[m[2]]
		case "topic":
			f = w.topicF[m[2]]
		}
	}
	if f == nil && strings.HasPrefix(msg, "fault") && len(w.faultF) > 0 {
		f = w.faultF[0]
	}
	var ce *model.ConfigError
	if errors.As(err, &ce) {
		w.d.kafkaError(w.ks, err)
		return
	}
	n := top.node
	if f != nil {
		n, path = f.node, f.path
	} else {
		for _, k := range []string{"brokers", "duration", "heal", "metrics_interval"} {
			if strings.HasPrefix(msg, k) {
				n, path = top.at(k), k
			}
		}
	}
	w.d.fail(n, path, msg, "a configuration the simulator accepts")
}
