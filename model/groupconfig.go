package model

import (
	"fmt"
	"strconv"
)

// GroupConfig is a share group's configuration as the group coordinator stores it and
// the share-partition leaders read it: the group values as last set (stored unclamped)
// and the broker's bounds. Config returns the values in force, clamped to the current
// bounds (Kafka 4.3's GroupConfig.clampToRange). Alter is IncrementalAlterConfigs with
// SET operations on the group resource; SetBound is a change of a broker bound
// (group.share.min/max.*, a broker restart with new settings).
//
// Which keys exist and when a change takes effect depends on the version:
//
//	share.record.lock.duration.ms       all versions; locks created from then on (running locks keep theirs)
//	share.delivery.count.limit          4.3+; read at every transition (acquire, release, expiry, throttling)
//	share.partition.max.record.locks    4.3+; read by the in-flight gate at every fetch
//	share.renew.acknowledge.enable      4.3+; read at every RENEW
//	errors.deadletterqueue.topic.name   4.4; the DLQ gate, read at every transition
//	group.share.min/max.* bounds        4.3+ (the limit, cap and lock-duration bounds)
//
// Before 4.3 the delivery count limit and the record-lock cap are broker configs fixed
// when a share-partition is built; Kafka 4.1/4.2 answer an attempt to set them on a group
// with INVALID_CONFIG (unknown group config name). Every refusal is a *Error with code
// ErrInvalidConfig, and a refused Alter changes nothing (Kafka validates the whole
// resource before storing it).
type GroupConfig struct {
	cfg Config
	raw struct {
		limit, locks int
		lockMs       int64
	}
}

// NewGroupConfig returns the group configuration for a share group whose initial values
// are cfg's (already validated).
func NewGroupConfig(cfg Config) GroupConfig {
	g := GroupConfig{cfg: cfg}
	g.raw.limit, g.raw.locks, g.raw.lockMs = cfg.DeliveryCountLimit, cfg.PartitionMaxRecordLocks, cfg.RecordLockDurationMs
	return g
}

// Config returns the configuration in force: the group values clamped to the bounds.
func (g GroupConfig) Config() Config { return g.cfg }

// RecordLockDurationMs is Config().RecordLockDurationMs, read in place (the simulator asks
// for it with every fetch response).
func (g *GroupConfig) RecordLockDurationMs() int64 { return g.cfg.RecordLockDurationMs }

// ConfigEntry is one SET of a config change: Kafka's key and the value as text.
type ConfigEntry struct {
	Key, Value string
}

// GroupConfigKeys are the group config keys a config change may set, in documentation order.
var GroupConfigKeys = []string{
	"share.record.lock.duration.ms",
	"share.delivery.count.limit",
	"share.partition.max.record.locks",
	"share.renew.acknowledge.enable",
	"errors.deadletterqueue.topic.name",
}

// BrokerBoundKeys are the broker bounds a config change may set.
var BrokerBoundKeys = []string{
	"group.share.min.delivery.count.limit",
	"group.share.max.delivery.count.limit",
	"group.share.min.partition.max.record.locks",
	"group.share.max.partition.max.record.locks",
	"group.share.min.record.lock.duration.ms",
	"group.share.max.record.lock.duration.ms",
}

// keySince is the first version in which a key can be changed on a running group.
func keySince(key string) (Version, bool) {
	switch key {
	case "share.record.lock.duration.ms":
		return Kafka41, true
	case "share.delivery.count.limit", "share.partition.max.record.locks", "share.renew.acknowledge.enable":
		return Kafka43, true
	case "errors.deadletterqueue.topic.name":
		return Kafka44, true
	}
	for _, k := range BrokerBoundKeys {
		if k == key {
			return Kafka43, true
		}
	}
	return 0, false
}

// IsBrokerBound reports whether key is one of BrokerBoundKeys.
func IsBrokerBound(key string) bool {
	for _, k := range BrokerBoundKeys {
		if k == key {
			return true
		}
	}
	return false
}

// CheckConfigEntry checks a key and value against Kafka's static definition of the config
// (its type and ConfigDef range), whatever the version and the bounds: what a file can
// be checked for before it runs. Values relaxed by Config.RelaxRanges are not allowed here.
func CheckConfigEntry(e ConfigEntry) error {
	if _, ok := keySince(e.Key); !ok {
		return &ConfigError{Key: e.Key, Value: e.Value, Want: "one of the group configs or broker bounds a running group can change"}
	}
	switch e.Key {
	case "errors.deadletterqueue.topic.name":
		return nil
	case "share.renew.acknowledge.enable":
		if _, err := strconv.ParseBool(e.Value); err != nil || (e.Value != "true" && e.Value != "false") {
			return &ConfigError{Key: e.Key, Value: e.Value, Want: "true or false"}
		}
		return nil
	}
	v, err := strconv.ParseInt(e.Value, 10, 32)
	if err != nil {
		return &ConfigError{Key: e.Key, Value: e.Value, Want: "an integer"}
	}
	lo, hi := staticRange(e.Key)
	return inRange(e.Key, v, lo, hi)
}

// staticRange is the range Kafka's definition of the key allows (GroupConfig and
// ShareGroupConfig), before any bound applies.
func staticRange(key string) (lo, hi int64) {
	const maxInt = 1<<31 - 1
	switch key {
	case "share.record.lock.duration.ms":
		return RecordLockDurationRangeMinMs, maxInt
	case "share.delivery.count.limit":
		return DeliveryCountLimitRangeMin, maxInt
	case "share.partition.max.record.locks":
		return PartitionMaxRecordLocksRangeMin, maxInt
	case "group.share.min.delivery.count.limit":
		return MinDeliveryCountLimitRangeMin, MinDeliveryCountLimitRangeMax
	case "group.share.max.delivery.count.limit":
		return MaxDeliveryCountLimitRangeMin, MaxDeliveryCountLimitRangeMax
	case "group.share.min.partition.max.record.locks":
		return MinPartitionMaxRecordLocksRangeLo, MinPartitionMaxRecordLocksRangeHi
	case "group.share.max.partition.max.record.locks":
		return MaxPartitionMaxRecordLocksRangeLo, MaxPartitionMaxRecordLocksRangeHi
	case "group.share.min.record.lock.duration.ms":
		return RecordLockDurationRangeMinMs, MinRecordLockDurationRangeMaxMs
	case "group.share.max.record.lock.duration.ms":
		return MaxRecordLockDurationRangeMinMs, RecordLockDurationRangeMaxMs
	}
	return 0, maxInt
}

func invalidConfig(format string, a ...any) error {
	return &Error{Code: ErrInvalidConfig, Offset: -1, Msg: fmt.Sprintf(format, a...)}
}

// Alter applies one IncrementalAlterConfigs on the group: every entry, or none. Group
// values are checked against the bounds in force (KIP-1240's validation at set time,
// 4.3+; the lock duration against group.share.min/max.record.lock.duration.ms in every
// version); broker-bound entries change the bounds, and the stored group values are then
// read clamped to them. A refusal is an *Error with ErrInvalidConfig naming the key.
func (g *GroupConfig) Alter(set []ConfigEntry) error {
	n := *g
	bounds := false
	for _, e := range set {
		if err := CheckConfigEntry(e); err != nil {
			return invalidConfig("%v", err)
		}
		since, _ := keySince(e.Key)
		if n.cfg.Version < since {
			if IsBrokerBound(e.Key) {
				return invalidConfig("%s: the broker bounds on group values are modelled from Kafka 4.3 (Kafka %s)", e.Key, n.cfg.Version)
			}
			return invalidConfig("unknown group config name %s (Kafka %s has it from %s)", e.Key, n.cfg.Version, since)
		}
		v, _ := strconv.ParseInt(e.Value, 10, 64)
		b := &n.cfg.Bounds
		switch e.Key {
		case "share.record.lock.duration.ms":
			n.raw.lockMs = v
		case "share.delivery.count.limit":
			n.raw.limit = int(v)
		case "share.partition.max.record.locks":
			n.raw.locks = int(v)
		case "share.renew.acknowledge.enable":
			n.cfg.DisableRenewAcknowledge = e.Value == "false"
		case "errors.deadletterqueue.topic.name":
			n.cfg.DLQTopic = e.Value
		case "group.share.min.delivery.count.limit":
			b.MinDeliveryCountLimit, bounds = int(v), true
		case "group.share.max.delivery.count.limit":
			b.MaxDeliveryCountLimit, bounds = int(v), true
		case "group.share.min.partition.max.record.locks":
			b.MinPartitionMaxRecordLocks, bounds = int(v), true
		case "group.share.max.partition.max.record.locks":
			b.MaxPartitionMaxRecordLocks, bounds = int(v), true
		case "group.share.min.record.lock.duration.ms":
			n.cfg.MinRecordLockDurationMs, bounds = v, true
		case "group.share.max.record.lock.duration.ms":
			n.cfg.MaxRecordLockDurationMs, bounds = v, true
		}
	}
	// Group values set now are checked against the bounds (new ones included); values
	// stored earlier are clamped to them.
	c := n.cfg
	for _, e := range set {
		var v, lo, hi int64
		name := ""
		switch e.Key {
		case "share.record.lock.duration.ms":
			v, lo, hi, name = n.raw.lockMs, c.MinRecordLockDurationMs, c.MaxRecordLockDurationMs, "record.lock.duration.ms"
		case "share.delivery.count.limit":
			v, lo, hi, name = int64(n.raw.limit), int64(c.Bounds.MinDeliveryCountLimit), int64(c.Bounds.MaxDeliveryCountLimit), "delivery.count.limit"
		case "share.partition.max.record.locks":
			v, lo, hi, name = int64(n.raw.locks), int64(c.Bounds.MinPartitionMaxRecordLocks), int64(c.Bounds.MaxPartitionMaxRecordLocks), "partition.max.record.locks"
		default:
			continue
		}
		if v < lo || v > hi {
			return invalidConfig("%s = %d is outside [%d, %d] (group.share.min.%s and group.share.max.%s, Kafka %s)", e.Key, v, lo, hi, name, name, c.Version)
		}
	}
	if bounds {
		if err := c.Bounds.validate(); err != nil {
			return invalidConfig("%v", err)
		}
		if c.MinRecordLockDurationMs > c.MaxRecordLockDurationMs {
			return invalidConfig("group.share.min.record.lock.duration.ms %d is above group.share.max.record.lock.duration.ms %d", c.MinRecordLockDurationMs, c.MaxRecordLockDurationMs)
		}
		if c.Bounds.MinDeliveryCountLimit > c.Bounds.MaxDeliveryCountLimit || c.Bounds.MinPartitionMaxRecordLocks > c.Bounds.MaxPartitionMaxRecordLocks {
			return invalidConfig("a broker minimum is above its maximum")
		}
	}
	c.RecordLockDurationMs = clamp(n.raw.lockMs, c.MinRecordLockDurationMs, c.MaxRecordLockDurationMs)
	if c.Version >= Kafka43 {
		c.DeliveryCountLimit = clamp(n.raw.limit, c.Bounds.MinDeliveryCountLimit, c.Bounds.MaxDeliveryCountLimit)
		c.PartitionMaxRecordLocks = clamp(n.raw.locks, c.Bounds.MinPartitionMaxRecordLocks, c.Bounds.MaxPartitionMaxRecordLocks)
	}
	if err := c.Validate(); err != nil {
		return invalidConfig("%v", err)
	}
	n.cfg = c
	*g = n
	return nil
}

// ApplyGroupConfig installs the group configuration in force on this share-partition, as
// its next read of the group config would see it: the lock duration for locks created
// from now on, the delivery count limit at the next transition (records keep their
// counts; an AVAILABLE record above a lowered limit is acquired once more before it is
// archived), the cap at the next fetch, the DLQ gate and the RENEW switch at their next
// use. The share-partition's own fields (version, relaxation, bug, fix) stay.
func (sp *SharePartition) ApplyGroupConfig(g GroupConfig) {
	c := sp.cfg
	gc := g.cfg
	c.RecordLockDurationMs, c.MinRecordLockDurationMs, c.MaxRecordLockDurationMs = gc.RecordLockDurationMs, gc.MinRecordLockDurationMs, gc.MaxRecordLockDurationMs
	c.DeliveryCountLimit, c.PartitionMaxRecordLocks, c.Bounds = gc.DeliveryCountLimit, gc.PartitionMaxRecordLocks, gc.Bounds
	c.DisableRenewAcknowledge, c.DLQTopic = gc.DisableRenewAcknowledge, gc.DLQTopic
	sp.setLimit(c)
	sp.raw.limit, sp.raw.locks, sp.raw.lockMs = g.raw.limit, g.raw.locks, g.raw.lockMs
}

// LimitLowered reports whether the delivery count limit was lowered during this
// share-partition's life (or it loaded counts written under a higher limit), so that an
// AVAILABLE record may hold a count at or above the limit in force.
func (sp *SharePartition) LimitLowered() bool { return sp.limitLowered }
