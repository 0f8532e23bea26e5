package model_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
)

func cfgFor(v model.Version) model.Config {
	c := model.DefaultConfig()
	c.Version = v
	return c
}

// GroupConfig.Alter follows each version's group configs and KIP-1240's bounds: a key the
// version does not have, or a value outside the bounds in force, is INVALID_CONFIG and
// changes nothing; bounds changes clamp the stored values, widening them restores them.
func TestGroupConfigAlter(t *testing.T) {
	set := func(kv ...string) []model.ConfigEntry {
		var out []model.ConfigEntry
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, model.ConfigEntry{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	type step struct {
		set     []model.ConfigEntry
		refused string // substring of the refusal, "" when accepted
		limit   int
		cap     int
		lockMs  int64
	}
	cases := []struct {
		name  string
		v     model.Version
		steps []step
	}{
		{"4.2 lock duration is a group config", model.Kafka42, []step{
			{set: set("share.record.lock.duration.ms", "45000"), limit: 5, cap: 2000, lockMs: 45000},
			{set: set("share.record.lock.duration.ms", "70000"), refused: "outside [15000, 60000]", limit: 5, cap: 2000, lockMs: 45000},
		}},
		{"4.2 has no group delivery limit", model.Kafka42, []step{
			{set: set("share.delivery.count.limit", "3"), refused: "unknown group config name share.delivery.count.limit", limit: 5, cap: 2000, lockMs: 30000},
			// all or nothing: the lock duration of the same request is not applied either
			{set: set("share.record.lock.duration.ms", "45000", "share.partition.max.record.locks", "500"), refused: "unknown group config name", limit: 5, cap: 2000, lockMs: 30000},
			{set: set("group.share.max.delivery.count.limit", "20"), refused: "from Kafka 4.3", limit: 5, cap: 2000, lockMs: 30000},
		}},
		{"4.3 limit and cap within the bounds", model.Kafka43, []step{
			{set: set("share.delivery.count.limit", "3"), limit: 3, cap: 2000, lockMs: 30000},
			{set: set("share.delivery.count.limit", "12"), refused: "outside [2, 10]", limit: 3, cap: 2000, lockMs: 30000},
			{set: set("share.partition.max.record.locks", "5000"), refused: "outside [100, 4000]", limit: 3, cap: 2000, lockMs: 30000},
			// a raised bound in the same request admits the value
			{set: set("group.share.max.delivery.count.limit", "20", "share.delivery.count.limit", "12"), limit: 12, cap: 2000, lockMs: 30000},
			// narrowing the bounds clamps the stored 12 to 8; widening restores it
			{set: set("group.share.max.delivery.count.limit", "8"), limit: 8, cap: 2000, lockMs: 30000},
			{set: set("group.share.max.delivery.count.limit", "25"), limit: 12, cap: 2000, lockMs: 30000},
			{set: set("group.share.max.record.lock.duration.ms", "40000"), refused: "", limit: 12, cap: 2000, lockMs: 30000},
			{set: set("share.record.lock.duration.ms", "45000"), refused: "outside [15000, 40000]", limit: 12, cap: 2000, lockMs: 30000},
			{set: set("group.share.min.delivery.count.limit", "6"), refused: "expected a value in [2, 5]", limit: 12, cap: 2000, lockMs: 30000},
			{set: set("share.partition.max.record.locks", "100", "group.share.min.partition.max.record.locks", "500"), refused: "outside [500, 4000]", limit: 12, cap: 2000, lockMs: 30000},
		}},
		{"4.4 dead-letter topic", model.Kafka44, []step{
			{set: set("errors.deadletterqueue.topic.name", "dlq"), limit: 5, cap: 2000, lockMs: 30000},
		}},
		{"4.3 has no dead-letter topic", model.Kafka43, []step{
			{set: set("errors.deadletterqueue.topic.name", "dlq"), refused: "unknown group config name", limit: 5, cap: 2000, lockMs: 30000},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := model.NewGroupConfig(cfgFor(tc.v))
			for i, st := range tc.steps {
				err := g.Alter(st.set)
				var me *model.Error
				switch {
				case st.refused == "" && err != nil:
					t.Fatalf("step %d: refused: %v", i, err)
				case st.refused != "" && (err == nil || !errors.As(err, &me) || me.Code != model.ErrInvalidConfig || !strings.Contains(err.Error(), st.refused)):
					t.Fatalf("step %d: got %v, want INVALID_CONFIG containing %q", i, err, st.refused)
				}
				c := g.Config()
				if c.DeliveryCountLimit != st.limit || c.PartitionMaxRecordLocks != st.cap || c.RecordLockDurationMs != st.lockMs {
					t.Fatalf("step %d: in force limit %d cap %d lock %d, want %d %d %d", i, c.DeliveryCountLimit, c.PartitionMaxRecordLocks, c.RecordLockDurationMs, st.limit, st.cap, st.lockMs)
				}
			}
		})
	}
}

// CheckConfigEntry is the static check a file gets at load: unknown keys and values
// outside the key's definition, whatever the version.
func TestCheckConfigEntry(t *testing.T) {
	for _, tc := range []struct {
		key, value, want string
	}{
		{"share.delivery.count.limit", "3", ""},
		{"share.delivery.count.limit", "1", "a value in [2, "},
		{"share.partition.max.record.locks", "50", "a value in [100, "},
		{"share.record.lock.duration.ms", "999", "a value in [1000, "},
		{"share.record.lock.duration.ms", "ten", "an integer"},
		{"share.renew.acknowledge.enable", "yes", "true or false"},
		{"group.share.max.delivery.count.limit", "30", "a value in [5, 25]"},
		{"share.version", "2", "one of the group configs"},
		{"share.delivery.limit", "3", "one of the group configs"},
	} {
		err := model.CheckConfigEntry(model.ConfigEntry{Key: tc.key, Value: tc.value})
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s=%s: got %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
}

// ApplyGroupConfig installs the values in force and marks a lowered limit (an AVAILABLE
// record may then sit at or above it); a raised one is not marked.
func TestApplyGroupConfigLowersLimit(t *testing.T) {
	cfg := cfgFor(model.Kafka43)
	sp, err := model.New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := model.NewGroupConfig(cfg)
	if err := g.Alter([]model.ConfigEntry{{Key: "share.delivery.count.limit", Value: "8"}}); err != nil {
		t.Fatal(err)
	}
	sp.ApplyGroupConfig(g)
	if sp.Config().DeliveryCountLimit != 8 || sp.LimitLowered() {
		t.Fatalf("raised: limit %d lowered %v, want 8, false", sp.Config().DeliveryCountLimit, sp.LimitLowered())
	}
	if err := g.Alter([]model.ConfigEntry{{Key: "share.delivery.count.limit", Value: "2"}, {Key: "share.record.lock.duration.ms", Value: "20000"}}); err != nil {
		t.Fatal(err)
	}
	sp.ApplyGroupConfig(g)
	if c := sp.Config(); c.DeliveryCountLimit != 2 || c.RecordLockDurationMs != 20000 || !sp.LimitLowered() {
		t.Fatalf("lowered: limit %d lock %d lowered %v, want 2, 20000, true", c.DeliveryCountLimit, c.RecordLockDurationMs, sp.LimitLowered())
	}
}
