package model_test

import (
	"errors"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// KIP-1240 (Kafka 4.3): the group's delivery count limit and record-lock cap lie within the
// broker's group.share.min/max bounds (defaults 2–10 and 100–4000, raisable to 25 and
// 10 000), are refused outside them when set (IncrementalAlterConfigs) and read clamped to
// the bounds in force (GroupConfig.clampToRange). Before 4.3 the broker ranges apply.
func TestGroupConfigBounds(t *testing.T) {
	cfg := func(v model.Version, limit, cap int, b model.Bounds) model.Config {
		c := model.DefaultConfig()
		c.Version, c.DeliveryCountLimit, c.PartitionMaxRecordLocks, c.Bounds = v, limit, cap, b
		return c
	}
	wide := model.Bounds{MinDeliveryCountLimit: 2, MaxDeliveryCountLimit: 25, MinPartitionMaxRecordLocks: 100, MaxPartitionMaxRecordLocks: 10000}
	cases := []struct {
		name string
		c    model.Config
		key  string // "" valid
	}{
		{"4.3 defaults", cfg(model.Kafka43, 5, 2000, model.DefaultBounds()), ""},
		{"4.3 limit 11 above the default max", cfg(model.Kafka43, 11, 2000, model.DefaultBounds()), "group.share.delivery.count.limit"},
		{"4.3 limit 25 with the max raised", cfg(model.Kafka43, 25, 2000, wide), ""},
		{"4.3 cap 4001 above the default max", cfg(model.Kafka43, 5, 4001, model.DefaultBounds()), "group.share.partition.max.record.locks"},
		{"4.3 cap 10000 with the max raised", cfg(model.Kafka43, 5, 10000, wide), ""},
		{"4.3 max limit bound 26 outside its range", cfg(model.Kafka43, 5, 2000, model.Bounds{MinDeliveryCountLimit: 2, MaxDeliveryCountLimit: 26, MinPartitionMaxRecordLocks: 100, MaxPartitionMaxRecordLocks: 4000}), "group.share.max.delivery.count.limit"},
		{"4.3 min cap bound 2001 outside its range", cfg(model.Kafka43, 5, 2500, model.Bounds{MinDeliveryCountLimit: 2, MaxDeliveryCountLimit: 10, MinPartitionMaxRecordLocks: 2001, MaxPartitionMaxRecordLocks: 4000}), "group.share.min.partition.max.record.locks"},
		{"4.3 limit below a raised min", cfg(model.Kafka43, 2, 2000, model.Bounds{MinDeliveryCountLimit: 3, MaxDeliveryCountLimit: 10, MinPartitionMaxRecordLocks: 100, MaxPartitionMaxRecordLocks: 4000}), "group.share.delivery.count.limit"},
		{"4.4 as 4.3", cfg(model.Kafka44, 11, 2000, model.DefaultBounds()), "group.share.delivery.count.limit"},
		{"4.2 cap 10000 (broker range)", cfg(model.Kafka42, 5, 10000, model.DefaultBounds()), ""},
		{"4.2 limit 11 (broker range)", cfg(model.Kafka42, 11, 2000, wide), "group.share.delivery.count.limit"},
	}
	for _, c := range cases {
		err := c.c.Validate()
		var ce *model.ConfigError
		switch {
		case c.key == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.key != "" && (!errors.As(err, &ce) || ce.Key != c.key):
			t.Errorf("%s: %v, want an error on %s", c.name, err, c.key)
		}
	}

	// Setting (IncrementalAlterConfigs) refuses values outside the bounds in force.
	c := cfg(model.Kafka43, 5, 2000, model.DefaultBounds())
	sp, err := model.New(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.SetDeliveryCountLimit(12); err == nil {
		t.Error("limit 12 accepted under the default max 10")
	}
	if err := sp.SetPartitionMaxRecordLocks(5000); err == nil {
		t.Error("cap 5000 accepted under the default max 4000")
	}
	if err := sp.SetBrokerBounds(wide, model.DefaultMinRecordLockDurationMs, model.DefaultMaxRecordLockDurationMs); err != nil {
		t.Fatal(err)
	}
	if err := sp.SetDeliveryCountLimit(20); err != nil {
		t.Errorf("limit 20 under max 25: %v", err)
	}
	if err := sp.SetPartitionMaxRecordLocks(8000); err != nil {
		t.Errorf("cap 8000 under max 10000: %v", err)
	}
	if err := sp.SetRecordLockDurationMs(50000); err != nil {
		t.Fatal(err)
	}
	// Narrowing the bounds clamps the stored values when read; widening restores them.
	if err := sp.SetBrokerBounds(model.DefaultBounds(), 15000, 40000); err != nil {
		t.Fatal(err)
	}
	if got := sp.Config(); got.DeliveryCountLimit != 10 || got.PartitionMaxRecordLocks != 4000 || got.RecordLockDurationMs != 40000 {
		t.Errorf("clamped: limit %d cap %d lock %d, want 10 4000 40000", got.DeliveryCountLimit, got.PartitionMaxRecordLocks, got.RecordLockDurationMs)
	}
	if err := sp.SetBrokerBounds(wide, 15000, 60000); err != nil {
		t.Fatal(err)
	}
	if got := sp.Config(); got.DeliveryCountLimit != 20 || got.PartitionMaxRecordLocks != 8000 || got.RecordLockDurationMs != 50000 {
		t.Errorf("widened: limit %d cap %d lock %d, want the stored 20 8000 50000", got.DeliveryCountLimit, got.PartitionMaxRecordLocks, got.RecordLockDurationMs)
	}
	if err := sp.SetBrokerBounds(model.Bounds{MinDeliveryCountLimit: 6, MaxDeliveryCountLimit: 10, MinPartitionMaxRecordLocks: 100, MaxPartitionMaxRecordLocks: 4000}, 15000, 60000); err == nil {
		t.Error("min delivery count limit 6 accepted (range 2–5)")
	}
	sp42, _ := model.New(cfg(model.Kafka42, 5, 2000, model.DefaultBounds()), 0)
	if err := sp42.SetBrokerBounds(wide, 15000, 60000); err == nil {
		t.Error("4.2 accepted broker bounds on group configs")
	}
}
