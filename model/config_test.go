package model_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(*model.Config)
		wantKey string // "" = valid
	}{
		{"defaults", func(*model.Config) {}, ""},
		{"4.1 defaults", func(c *model.Config) { c.Version = model.Kafka41 }, ""},
		{"no version", func(c *model.Config) { c.Version = 0 }, "version"},
		{"lock below group minimum", func(c *model.Config) { c.RecordLockDurationMs = 10000 }, "share.record.lock.duration.ms"},
		{"lock above group maximum", func(c *model.Config) { c.RecordLockDurationMs = 61000 }, "share.record.lock.duration.ms"},
		{"lock 5 s with the minimum lowered", func(c *model.Config) { c.MinRecordLockDurationMs, c.RecordLockDurationMs = 1000, 5000 }, ""},
		{"minimum out of range", func(c *model.Config) { c.MinRecordLockDurationMs = 500 }, "group.share.min.record.lock.duration.ms"},
		{"maximum out of range", func(c *model.Config) { c.MaxRecordLockDurationMs = 20000 }, "group.share.max.record.lock.duration.ms"},
		{"limit 1", func(c *model.Config) { c.DeliveryCountLimit = 1 }, "group.share.delivery.count.limit"},
		{"limit 11", func(c *model.Config) { c.DeliveryCountLimit = 11 }, "group.share.delivery.count.limit"},
		{"cap 99", func(c *model.Config) { c.PartitionMaxRecordLocks = 99 }, "group.share.partition.max.record.locks"},
		{"cap 10001", func(c *model.Config) { c.PartitionMaxRecordLocks = 10001 }, "group.share.partition.max.record.locks"},
		{"relaxed small scope", func(c *model.Config) {
			c.RelaxRanges, c.DeliveryCountLimit, c.PartitionMaxRecordLocks, c.RecordLockDurationMs = true, 1, 3, 1
		}, ""},
		{"relaxed still bounded", func(c *model.Config) { c.RelaxRanges, c.PartitionMaxRecordLocks = true, 0 }, "group.share.partition.max.record.locks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := model.DefaultConfig()
			c.mutate(&cfg)
			err := cfg.Validate()
			var ce *model.ConfigError
			switch {
			case c.wantKey == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.wantKey != "" && !errors.As(err, &ce):
				t.Fatalf("want a ConfigError for %s, got %v", c.wantKey, err)
			case c.wantKey != "" && ce.Key != c.wantKey:
				t.Fatalf("error names %s, want %s (%v)", ce.Key, c.wantKey, err)
			}
			if _, err := model.New(cfg, 0); (err == nil) != (c.wantKey == "") {
				t.Errorf("New disagrees with Validate: %v", err)
			}
		})
	}
}

func TestParseSettings(t *testing.T) {
	cases := []struct {
		in   string
		want string
		ok   bool
	}{
		{"latest", "latest", true},
		{"earliest", "earliest", true},
		{"by_duration:PT1H", "ms=3600000", true},
		{"by_duration:P1DT30M", "ms=88200000", true},
		{"by_duration:PT0.5S", "ms=500", true},
		{"by_duration:1h", "", false},
		{"by_duration:PT", "", false},
		{"by_duration:P1H", "", false},
		{"newest", "", false},
	}
	for _, c := range cases {
		r, err := model.ParseAutoOffsetReset(c.in)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v, want ok=%v", c.in, err, c.ok)
			continue
		}
		if !c.ok {
			if !strings.Contains(err.Error(), "by_duration") && !strings.Contains(err.Error(), "expected") {
				t.Errorf("%q: unhelpful error %v", c.in, err)
			}
			continue
		}
		got := r.String()
		if r.Kind == model.ResetByDuration {
			got = "ms=" + strconv.FormatInt(r.DurationMs, 10)
		}
		if got != c.want {
			t.Errorf("%q: got %s want %s", c.in, got, c.want)
		}
	}
	if v, err := model.ParseVersion("4.3"); err != nil || v != model.Kafka43 || v.String() != "4.3" {
		t.Errorf("4.3: %v %v", v, err)
	}
	if v, err := model.ParseVersion("4.4"); err != nil || v != model.Kafka44 || v.String() != "4.4" {
		t.Errorf("4.4: %v %v", v, err)
	}
	if _, err := model.ParseVersion("4.5"); err == nil {
		t.Error("4.5 must be rejected")
	}
	if m, err := model.ParseAcquireMode("record_limit"); err != nil || m != model.RecordLimit {
		t.Error("record_limit")
	}
	if l, err := model.ParseIsolationLevel("read_committed"); err != nil || l != model.ReadCommitted {
		t.Error("read_committed")
	}
	if err := model.DefaultConfig().ValidateFetch(model.FetchParams{MaxRecords: 1, BatchSize: 1, Mode: model.RecordLimit}); err != nil {
		t.Errorf("record_limit on 4.2: %v", err)
	}
	c41 := model.DefaultConfig()
	c41.Version = model.Kafka41
	if err := c41.ValidateFetch(model.FetchParams{MaxRecords: 1, BatchSize: 1, Mode: model.RecordLimit}); err == nil {
		t.Error("record_limit must be rejected on 4.1")
	}
}

func TestResolveStartOffset(t *testing.T) {
	lookup := func(ms int64) (int64, bool) {
		if ms > 5000 {
			return 0, false
		}
		return ms / 100, true
	}
	cases := []struct {
		reset string
		now   int64
		want  int64
		ok    bool
	}{
		{"latest", 0, 900, true},
		{"earliest", 0, 10, true},
		{"by_duration:PT10S", 12000, 20, true},
		{"by_duration:PT1S", 12000, 0, false},
	}
	for _, c := range cases {
		r, _ := model.ParseAutoOffsetReset(c.reset)
		got, err := model.ResolveStartOffset(r, c.now, 10, 900, lookup)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("%s: got %d, %v; want %d ok=%v", c.reset, got, err, c.want, c.ok)
		}
	}
}
