package model

import (
	"fmt"
	"strings"
)

// Version selects which Kafka release's share-partition behaviour the core follows.
type Version uint8

// Supported Kafka versions. The zero value is invalid so that a forgotten setting is
// caught by Validate; DefaultConfig uses Kafka42.
const (
	Kafka41 Version = 41 // share groups in preview
	Kafka42 Version = 42 // share groups GA: RENEW, record_limit, throttling, cap trimming
	// Kafka43 is 4.2 plus group-level share.renew.acknowledge.enable and dynamic
	// group-level share.delivery.count.limit and share.partition.max.record.locks.
	Kafka43 Version = 43
	// Kafka44 is 4.3 plus the dead-letter queue (KIP-1191, share.version=2) with its
	// ARCHIVING state, the share coordinator's monotonic start offset and
	// delivery-complete count (#23074, #23112) and its refusal of negative epochs
	// (KAFKA-20743).
	Kafka44 Version = 44
)

// Versions lists the supported versions in ascending order.
var Versions = []Version{Kafka41, Kafka42, Kafka43, Kafka44}

// VersionNames is the list of accepted version strings, for messages: "4.1, 4.2, 4.3 or 4.4".
const VersionNames = "4.1, 4.2, 4.3 or 4.4"

// String returns the version as "4.1", "4.2", "4.3" or "4.4".
func (v Version) String() string {
	switch v {
	case Kafka41:
		return "4.1"
	case Kafka42:
		return "4.2"
	case Kafka43:
		return "4.3"
	case Kafka44:
		return "4.4"
	}
	return fmt.Sprintf("Version(%d)", uint8(v))
}

// ParseVersion accepts "4.1", "4.2", "4.3" and "4.4".
func ParseVersion(s string) (Version, error) {
	switch strings.TrimSpace(s) {
	case "4.1":
		return Kafka41, nil
	case "4.2":
		return Kafka42, nil
	case "4.3":
		return Kafka43, nil
	case "4.4":
		return Kafka44, nil
	}
	return 0, fmt.Errorf("unknown Kafka version %q: expected %s", s, VersionNames)
}

// AcquireMode is the consumer's share.acquire.mode.
type AcquireMode uint8

// Acquire modes (KIP-1206).
const (
	BatchOptimized AcquireMode = iota // whole producer batches; MaxRecords is a soft limit
	RecordLimit                       // at most MaxRecords offsets; Kafka 4.2+
)

// String returns Kafka's config value.
func (m AcquireMode) String() string {
	if m == RecordLimit {
		return "record_limit"
	}
	return "batch_optimized"
}

// ParseAcquireMode accepts Kafka's config values.
func ParseAcquireMode(s string) (AcquireMode, error) {
	switch s {
	case "batch_optimized":
		return BatchOptimized, nil
	case "record_limit":
		return RecordLimit, nil
	}
	return 0, fmt.Errorf("unknown share.acquire.mode %q: expected batch_optimized or record_limit", s)
}

// IsolationLevel is the group's share.isolation.level.
type IsolationLevel uint8

// Isolation levels.
const (
	ReadUncommitted IsolationLevel = iota
	ReadCommitted
)

// String returns Kafka's config value.
func (l IsolationLevel) String() string {
	if l == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// ParseIsolationLevel accepts Kafka's config values.
func ParseIsolationLevel(s string) (IsolationLevel, error) {
	switch s {
	case "read_uncommitted":
		return ReadUncommitted, nil
	case "read_committed":
		return ReadCommitted, nil
	}
	return 0, fmt.Errorf("unknown share.isolation.level %q: expected read_committed or read_uncommitted", s)
}

// OffsetResetKind is the strategy part of share.auto.offset.reset.
type OffsetResetKind uint8

// Offset reset strategies.
const (
	ResetLatest OffsetResetKind = iota
	ResetEarliest
	ResetByDuration
)

// AutoOffsetReset is share.auto.offset.reset: latest, earliest or by_duration:<ISO-8601>.
type AutoOffsetReset struct {
	Kind OffsetResetKind
	// DurationMs is the look-back for ResetByDuration, in milliseconds.
	DurationMs int64
}

// String returns Kafka's config value.
func (r AutoOffsetReset) String() string {
	switch r.Kind {
	case ResetEarliest:
		return "earliest"
	case ResetByDuration:
		return "by_duration:" + isoDuration(r.DurationMs)
	}
	return "latest"
}

// ParseAutoOffsetReset accepts "latest", "earliest" and "by_duration:PT1H" style values
// (ISO-8601 durations with days, hours, minutes and seconds).
func ParseAutoOffsetReset(s string) (AutoOffsetReset, error) {
	switch {
	case s == "latest":
		return AutoOffsetReset{Kind: ResetLatest}, nil
	case s == "earliest":
		return AutoOffsetReset{Kind: ResetEarliest}, nil
	case strings.HasPrefix(s, "by_duration:"):
		ms, err := parseISODuration(strings.TrimPrefix(s, "by_duration:"))
		if err != nil {
			return AutoOffsetReset{}, fmt.Errorf("share.auto.offset.reset %q: %w", s, err)
		}
		return AutoOffsetReset{Kind: ResetByDuration, DurationMs: ms}, nil
	}
	return AutoOffsetReset{}, fmt.Errorf("unknown share.auto.offset.reset %q: expected latest, earliest or by_duration:<ISO-8601 duration>", s)
}

// parseISODuration parses PnDTnHnMnS (fractional seconds allowed) into milliseconds.
func parseISODuration(s string) (int64, error) {
	if !strings.HasPrefix(s, "P") || len(s) < 3 {
		return 0, fmt.Errorf("duration %q is not ISO-8601 (expected e.g. PT1H or P1DT30M)", s)
	}
	var total float64
	inTime := false
	num := ""
	for _, c := range s[1:] {
		switch {
		case c == 'T':
			if inTime || num != "" {
				return 0, fmt.Errorf("duration %q: misplaced T", s)
			}
			inTime = true
		case (c >= '0' && c <= '9') || c == '.':
			num += string(c)
		default:
			if num == "" {
				return 0, fmt.Errorf("duration %q: unit %c without a number", s, c)
			}
			var v float64
			if _, err := fmt.Sscanf(num, "%g", &v); err != nil {
				return 0, fmt.Errorf("duration %q: bad number %q", s, num)
			}
			num = ""
			switch {
			case c == 'D' && !inTime:
				total += v * 86400e3
			case c == 'H' && inTime:
				total += v * 3600e3
			case c == 'M' && inTime:
				total += v * 60e3
			case c == 'S' && inTime:
				total += v * 1e3
			default:
				return 0, fmt.Errorf("duration %q: unsupported unit %c", s, c)
			}
		}
	}
	if num != "" {
		return 0, fmt.Errorf("duration %q: number without a unit", s)
	}
	return int64(total), nil
}

func isoDuration(ms int64) string {
	return "PT" + strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.3f", float64(ms)/1000), "0"), ".000") + "S"
}

// Kafka's defaults and ranges (see docs/semantics.md, "Configuration").
const (
	DefaultRecordLockDurationMs      = 30000
	DefaultMinRecordLockDurationMs   = 15000
	DefaultMaxRecordLockDurationMs   = 60000
	DefaultDeliveryCountLimit        = 5
	DefaultPartitionMaxRecordLocks   = 2000
	DefaultMaxPollRecords            = 500
	RecordLockDurationRangeMinMs     = 1000
	RecordLockDurationRangeMaxMs     = 3600000
	MinRecordLockDurationRangeMaxMs  = 30000
	MaxRecordLockDurationRangeMinMs  = 30000
	DeliveryCountLimitRangeMin       = 2
	DeliveryCountLimitRangeMax       = 10
	PartitionMaxRecordLocksRangeMin  = 100
	PartitionMaxRecordLocksRangeMax  = 10000
	relaxedPartitionMaxRecordLocksLo = 1

	// Kafka 4.3's broker bounds on the group values (KIP-1240, ShareGroupConfig): the
	// defaults, and the ranges the bounds themselves may take.
	DefaultMinDeliveryCountLimit      = 2
	DefaultMaxDeliveryCountLimit      = 10
	DefaultMinPartitionMaxRecordLocks = 100
	DefaultMaxPartitionMaxRecordLocks = 4000
	MinDeliveryCountLimitRangeMin     = 2
	MinDeliveryCountLimitRangeMax     = 5
	MaxDeliveryCountLimitRangeMin     = 5
	MaxDeliveryCountLimitRangeMax     = 25
	MinPartitionMaxRecordLocksRangeLo = 100
	MinPartitionMaxRecordLocksRangeHi = 2000
	MaxPartitionMaxRecordLocksRangeLo = 2000
	MaxPartitionMaxRecordLocksRangeHi = 10000
)

// Config is the configuration of one share-partition, with Kafka's names in the field
// documentation. Build it from DefaultConfig and change what you need.
type Config struct {
	// Version is the Kafka release whose behaviour is modelled.
	Version Version
	// RecordLockDurationMs is share.record.lock.duration.ms (group) or
	// group.share.record.lock.duration.ms (broker): how long an acquisition lock lasts.
	RecordLockDurationMs int64
	// MinRecordLockDurationMs and MaxRecordLockDurationMs are
	// group.share.min.record.lock.duration.ms and group.share.max.record.lock.duration.ms,
	// the bounds the lock duration must lie within.
	MinRecordLockDurationMs int64
	MaxRecordLockDurationMs int64
	// DeliveryCountLimit is group.share.delivery.count.limit: a record whose delivery count
	// has reached it is archived instead of being made available again.
	DeliveryCountLimit int
	// PartitionMaxRecordLocks is group.share.partition.max.record.locks: the cap on the
	// in-flight window SPEO − SPSO + 1.
	PartitionMaxRecordLocks int
	// IsolationLevel is share.isolation.level.
	IsolationLevel IsolationLevel
	// AutoOffsetReset is share.auto.offset.reset.
	AutoOffsetReset AutoOffsetReset
	// Bounds are Kafka 4.3's broker bounds on the group values of the delivery count
	// limit and the record-lock cap (group.share.min/max.delivery.count.limit,
	// group.share.min/max.partition.max.record.locks). From 4.3 DeliveryCountLimit and
	// PartitionMaxRecordLocks are the group's effective values and must lie within them
	// (so a limit up to 25 and a cap up to 10 000 once the maxima are raised); before 4.3
	// they are ignored and the broker ranges 2–10 and 100–10 000 apply.
	Bounds Bounds
	// ShareVersion is the cluster feature share.version (1 or 2; 0: the version's
	// default, 2 for Kafka 4.4 where SV_2 is the production version, 1 before). Version 2
	// enables the dead-letter queue. Needs Kafka 4.4 for 2.
	ShareVersion int
	// DLQTopic is the group config errors.deadletterqueue.topic.name (Kafka 4.4); empty
	// is unset. With share.version 2 it turns the dead-letter queue on (DLQEnabled).
	DLQTopic string
	// DisableRenewAcknowledge is share.renew.acknowledge.enable = false (a group config
	// from Kafka 4.3; default true): a RENEW acknowledgement of a held record is then
	// INVALID_RECORD_STATE. Needs Kafka 4.3.
	DisableRenewAcknowledge bool
	// RelaxRanges lifts Kafka's lower bounds on the lock duration (down to 1 ms), the delivery
	// count limit (down to 1) and the record-lock cap (down to 1), so that the explorer
	// and property tests can use small scopes. Scenario files never set it.
	RelaxRanges bool
	// Bug selects a variant of the bug zoo (see Bugs) that puts back a known Kafka
	// share-partition bug, to prove the checkers catch it; empty is the faithful core.
	Bug string
	// Fix applies fixes for behaviours of real Kafka the checkers found (see Fixes,
	// fixes.go): comma-separated names or "all"; empty is the faithful core.
	Fix string
}

// DefaultConfig returns Kafka 4.2's defaults.
func DefaultConfig() Config {
	return Config{
		Version:                 Kafka42,
		RecordLockDurationMs:    DefaultRecordLockDurationMs,
		MinRecordLockDurationMs: DefaultMinRecordLockDurationMs,
		MaxRecordLockDurationMs: DefaultMaxRecordLockDurationMs,
		DeliveryCountLimit:      DefaultDeliveryCountLimit,
		PartitionMaxRecordLocks: DefaultPartitionMaxRecordLocks,
		IsolationLevel:          ReadUncommitted,
		AutoOffsetReset:         AutoOffsetReset{Kind: ResetLatest},
		Bounds:                  DefaultBounds(),
	}
}

// Bounds are the broker's bounds on a share group's delivery count limit and record-lock
// cap (Kafka 4.3, KIP-1240). The lock duration's bounds are Config's
// MinRecordLockDurationMs and MaxRecordLockDurationMs.
type Bounds struct {
	MinDeliveryCountLimit, MaxDeliveryCountLimit           int
	MinPartitionMaxRecordLocks, MaxPartitionMaxRecordLocks int
}

// DefaultBounds returns Kafka 4.3's defaults: limit 2–10, cap 100–4000.
func DefaultBounds() Bounds {
	return Bounds{
		MinDeliveryCountLimit: DefaultMinDeliveryCountLimit, MaxDeliveryCountLimit: DefaultMaxDeliveryCountLimit,
		MinPartitionMaxRecordLocks: DefaultMinPartitionMaxRecordLocks, MaxPartitionMaxRecordLocks: DefaultMaxPartitionMaxRecordLocks,
	}
}

// validate checks the bounds against the ranges Kafka allows for them.
func (b Bounds) validate() error {
	if err := inRange("group.share.min.delivery.count.limit", int64(b.MinDeliveryCountLimit), MinDeliveryCountLimitRangeMin, MinDeliveryCountLimitRangeMax); err != nil {
		return err
	}
	if err := inRange("group.share.max.delivery.count.limit", int64(b.MaxDeliveryCountLimit), MaxDeliveryCountLimitRangeMin, MaxDeliveryCountLimitRangeMax); err != nil {
		return err
	}
	if err := inRange("group.share.min.partition.max.record.locks", int64(b.MinPartitionMaxRecordLocks), MinPartitionMaxRecordLocksRangeLo, MinPartitionMaxRecordLocksRangeHi); err != nil {
		return err
	}
	return inRange("group.share.max.partition.max.record.locks", int64(b.MaxPartitionMaxRecordLocks), MaxPartitionMaxRecordLocksRangeLo, MaxPartitionMaxRecordLocksRangeHi)
}

// clamp is Kafka's GroupConfig.clampToRange: a group value outside [lo, hi] is read as the
// nearer bound (Kafka logs a warning). It applies when the bounds changed after the group
// value was set.
func clamp[T int | int64](v, lo, hi T) T {
	return min(max(v, lo), hi)
}

// EffectiveShareVersion is share.version as in force: ShareVersion, or the version's
// default when 0.
func (c Config) EffectiveShareVersion() int { return c.shareVersion() }

// shareVersion is EffectiveShareVersion without a copy of the configuration (the core
// asks at every transition that may go through the dead-letter queue).
func (c *Config) shareVersion() int {
	if c.ShareVersion != 0 {
		return c.ShareVersion
	}
	if c.Version >= Kafka44 {
		return 2
	}
	return 1
}

// DLQEnabled is Kafka 4.4's gate for the dead-letter queue (SharePartition
// .isDLQEnabledForGroup): share.version ≥ 2 and the group's
// errors.deadletterqueue.topic.name set. Kafka reads it at every transition; the core
// reads the configuration in force at each one.
func (c Config) DLQEnabled() bool { return c.dlqEnabled() }

// dlqEnabled is DLQEnabled without a copy of the configuration.
func (c *Config) dlqEnabled() bool {
	return c.Version >= Kafka44 && c.shareVersion() >= 2 && c.DLQTopic != ""
}

// ConfigError is a configuration value outside Kafka's allowed range.
type ConfigError struct {
	Key   string // Kafka's config name
	Value string
	Want  string // what is allowed
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s = %s is invalid: expected %s", e.Key, e.Value, e.Want)
}

// Validate checks every field against Kafka's ranges and returns the first violation as
// a *ConfigError naming the Kafka config key.
func (c Config) Validate() error {
	if c.Version != Kafka41 && c.Version != Kafka42 && c.Version != Kafka43 && c.Version != Kafka44 {
		return &ConfigError{Key: "version", Value: c.Version.String(), Want: VersionNames}
	}
	switch {
	case c.ShareVersion < 0 || c.ShareVersion > 2:
		return &ConfigError{Key: "share.version", Value: fmt.Sprint(c.ShareVersion), Want: "1 or 2"}
	case c.ShareVersion == 2 && c.Version < Kafka44:
		return &ConfigError{Key: "share.version", Value: "2", Want: "1 (share.version 2 exists from Kafka 4.4)"}
	case c.DLQTopic != "" && c.Version < Kafka44:
		return &ConfigError{Key: "errors.deadletterqueue.topic.name", Value: c.DLQTopic, Want: "unset (the dead-letter queue exists from Kafka 4.4)"}
	}
	if c.DisableRenewAcknowledge && c.Version < Kafka43 {
		return &ConfigError{Key: "share.renew.acknowledge.enable", Value: "false", Want: "true (the group config exists from Kafka 4.3)"}
	}
	if c.RelaxRanges {
		return c.validateRelaxed()
	}
	if err := inRange("group.share.min.record.lock.duration.ms", c.MinRecordLockDurationMs, RecordLockDurationRangeMinMs, MinRecordLockDurationRangeMaxMs); err != nil {
		return err
	}
	if err := inRange("group.share.max.record.lock.duration.ms", c.MaxRecordLockDurationMs, MaxRecordLockDurationRangeMinMs, RecordLockDurationRangeMaxMs); err != nil {
		return err
	}
	if err := inRange("share.record.lock.duration.ms", c.RecordLockDurationMs, c.MinRecordLockDurationMs, c.MaxRecordLockDurationMs); err != nil {
		return err
	}
	if c.Version >= Kafka43 {
		// KIP-1240: the group values lie within the broker's bounds.
		if err := c.Bounds.validate(); err != nil {
			return err
		}
		b := c.Bounds
		if err := c.checkBound("group.share.delivery.count.limit", int64(c.DeliveryCountLimit), int64(b.MinDeliveryCountLimit), int64(b.MaxDeliveryCountLimit), "delivery.count.limit"); err != nil {
			return err
		}
		if err := c.checkBound("group.share.partition.max.record.locks", int64(c.PartitionMaxRecordLocks), int64(b.MinPartitionMaxRecordLocks), int64(b.MaxPartitionMaxRecordLocks), "partition.max.record.locks"); err != nil {
			return err
		}
		return c.validateEnums()
	}
	if err := inRange("group.share.delivery.count.limit", int64(c.DeliveryCountLimit), DeliveryCountLimitRangeMin, DeliveryCountLimitRangeMax); err != nil {
		return err
	}
	if err := inRange("group.share.partition.max.record.locks", int64(c.PartitionMaxRecordLocks), PartitionMaxRecordLocksRangeMin, PartitionMaxRecordLocksRangeMax); err != nil {
		return err
	}
	return c.validateEnums()
}

func (c Config) validateRelaxed() error {
	if err := inRange("share.record.lock.duration.ms", c.RecordLockDurationMs, 1, RecordLockDurationRangeMaxMs); err != nil {
		return err
	}
	if err := inRange("group.share.delivery.count.limit", int64(c.DeliveryCountLimit), 1, 1000); err != nil {
		return err
	}
	if err := inRange("group.share.partition.max.record.locks", int64(c.PartitionMaxRecordLocks), relaxedPartitionMaxRecordLocksLo, PartitionMaxRecordLocksRangeMax); err != nil {
		return err
	}
	return c.validateEnums()
}

func (c Config) validateEnums() error {
	if err := validateBug(c.Bug); err != nil {
		return err
	}
	if err := validateFix(c.Fix); err != nil {
		return err
	}
	if c.IsolationLevel > ReadCommitted {
		return &ConfigError{Key: "share.isolation.level", Value: fmt.Sprint(c.IsolationLevel), Want: "read_committed or read_uncommitted"}
	}
	if c.AutoOffsetReset.Kind > ResetByDuration || (c.AutoOffsetReset.Kind == ResetByDuration && c.AutoOffsetReset.DurationMs < 0) {
		return &ConfigError{Key: "share.auto.offset.reset", Value: c.AutoOffsetReset.String(), Want: "latest, earliest or by_duration:<non-negative ISO-8601 duration>"}
	}
	return nil
}

// checkBound is KIP-1240's check of a group value against the broker bounds
// group.share.min.<name> and group.share.max.<name>.
func (c Config) checkBound(key string, v, lo, hi int64, name string) error {
	if v < lo || v > hi {
		return &ConfigError{Key: key, Value: fmt.Sprint(v), Want: fmt.Sprintf("a value in [%d, %d] (group.share.min.%s and group.share.max.%s, Kafka %s)", lo, hi, name, name, c.Version)}
	}
	return nil
}

func inRange(key string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return &ConfigError{Key: key, Value: fmt.Sprint(v), Want: fmt.Sprintf("a value in [%d, %d]", lo, hi)}
	}
	return nil
}

// ValidateFetch checks the per-request parameters for this version.
func (c Config) ValidateFetch(p FetchParams) error { return c.validateFetch(p) }

// validateFetch is ValidateFetch without a copy of the configuration (once per fetch).
func (c *Config) validateFetch(p FetchParams) error {
	if p.MaxRecords < 1 {
		return &ConfigError{Key: "max.poll.records", Value: fmt.Sprint(p.MaxRecords), Want: "at least 1"}
	}
	if p.BatchSize < 1 {
		return &ConfigError{Key: "batch size", Value: fmt.Sprint(p.BatchSize), Want: "at least 1"}
	}
	if p.Mode == RecordLimit && c.Version < Kafka42 {
		return &ConfigError{Key: "share.acquire.mode", Value: p.Mode.String(), Want: "batch_optimized (record_limit needs Kafka 4.2)"}
	}
	if p.Mode > RecordLimit {
		return &ConfigError{Key: "share.acquire.mode", Value: fmt.Sprint(uint8(p.Mode)), Want: "batch_optimized or record_limit"}
	}
	return nil
}

// throttleThreshold is T = max(2, ⌈L/2⌉) of Kafka 4.2's throttled redelivery.
func (c *Config) throttleThreshold() int16 {
	t := (c.DeliveryCountLimit + 1) / 2
	if t < 2 {
		t = 2
	}
	return int16(t)
}

// ResolveStartOffset applies share.auto.offset.reset when the persisted start offset is -1.
// logStart and highWatermark are the partition's log start offset and high watermark;
// offsetForTime returns the first offset whose timestamp is at or after the given virtual
// time, or false if no record is that recent (initialisation then fails and is retried).
func ResolveStartOffset(reset AutoOffsetReset, nowMs, logStart, highWatermark int64, offsetForTime func(ms int64) (int64, bool)) (int64, error) {
	switch reset.Kind {
	case ResetEarliest:
		return logStart, nil
	case ResetByDuration:
		if offsetForTime == nil {
			return 0, fmt.Errorf("by_duration offset reset needs a timestamp lookup")
		}
		off, ok := offsetForTime(nowMs - reset.DurationMs)
		if !ok {
			return 0, &Error{Code: ErrOffsetNotAvailable, Offset: -1, Msg: "no record is recent enough for " + reset.String()}
		}
		return off, nil
	}
	return highWatermark, nil
}
