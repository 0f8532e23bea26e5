package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sharesim/sharesim/model"
)

// groupConfigs are the share groups' configurations in force and the config-change
// faults that alter them.
type groupConfigs struct {
	*engine
	*topology

	leaders *leaders

	// groupCfg is each group's configuration in force (config-change faults alter it);
	// configSteps the run's config changes as ConfigSteps decided them.
	groupCfg      []model.GroupConfig
	configSteps   []ConfigStep
	configChanges []ConfigChange
}

// Config changes at run time (fault config-change): IncrementalAlterConfigs on a share
// group, or a change of the broker's bounds on group values. Whether Kafka accepts a
// change depends only on the configuration and the changes before it, never on the run,
// so the whole timeline is a function of Config (ConfigSteps): the world applies it, and
// the checkers read the values in force at any time from the same list.

// ConfigStep is one config-change fault as it turns out: accepted (Err nil, After the
// group's configuration from then on) or refused (Err an INVALID_CONFIG *model.Error,
// After unchanged).
type ConfigStep struct {
	// Fault is the index of the fault in Config.Faults.
	Fault int
	AtMs  int64
	// Group is the share group's index in Config.Groups.
	Group int32
	Set   []model.ConfigEntry
	Err   error
	// Before and After are the group's configuration in force before and after the step.
	Before, After model.Config
}

// Accepted reports whether Kafka accepted the change.
func (s ConfigStep) Accepted() bool { return s.Err == nil }

// Describe renders the SET entries as "key=value,key=value" (no spaces: a trace field).
func (s ConfigStep) Describe() string {
	parts := make([]string, len(s.Set))
	for i, e := range s.Set {
		parts[i] = e.Key + "=" + e.Value
	}
	return strings.Join(parts, ",")
}

// shareGroupFor resolves a config-change fault's group: by name, or the only share group.
func (c *Config) shareGroupFor(f Fault) (int32, error) {
	if f.Group == "" {
		found := int32(-1)
		for i, g := range c.Groups {
			if g.Type == ShareGroup {
				if found >= 0 {
					return -1, fmt.Errorf("fault config-change: the world has several share groups; name one with group")
				}
				found = int32(i)
			}
		}
		if found < 0 {
			return -1, fmt.Errorf("fault config-change: the world has no share group")
		}
		return found, nil
	}
	for i, g := range c.Groups {
		if g.Name == f.Group {
			if g.Type != ShareGroup {
				return -1, fmt.Errorf("fault config-change: group %q is not a share group (only share groups have these configs)", f.Group)
			}
			return int32(i), nil
		}
	}
	return -1, fmt.Errorf("fault config-change: no group named %q", f.Group)
}

func (c *Config) validateConfigChange(f Fault) error {
	if f.Kind != FaultConfigChange {
		if f.Group != "" || len(f.Set) > 0 {
			return fmt.Errorf("fault %s: group and set belong to config-change faults", f.Kind)
		}
		return nil
	}
	if f.EveryMs != 0 || f.PerMillion != 0 {
		return fmt.Errorf("fault config-change: happens once at its time (no every, no probability)")
	}
	if len(f.Set) == 0 {
		return fmt.Errorf("fault config-change: nothing to set")
	}
	for _, e := range f.Set {
		if err := model.CheckConfigEntry(e); err != nil {
			return fmt.Errorf("fault config-change: %w", err)
		}
	}
	_, err := c.shareGroupFor(f)
	return err
}

// ConfigSteps returns the config-change faults in the order they fire (time, then file
// order), each with Kafka's answer and the group's configuration after it. Nil when the
// configuration has none. Call it on a validated Config.
func (c *Config) ConfigSteps() []ConfigStep {
	var steps []ConfigStep
	for i, f := range c.Faults {
		// Faults stop when healing starts: a change at or after the duration never happens.
		if f.Kind == FaultConfigChange && f.AtMs < c.DurationMs {
			g, _ := c.shareGroupFor(f)
			steps = append(steps, ConfigStep{Fault: i, AtMs: f.AtMs, Group: g, Set: f.Set})
		}
	}
	if len(steps) == 0 {
		return nil
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].AtMs < steps[b].AtMs })
	cur := make(map[int32]model.GroupConfig)
	for i := range steps {
		st := &steps[i]
		gc, ok := cur[st.Group]
		if !ok {
			gc = model.NewGroupConfig(c.Kafka)
		}
		st.Before = gc.Config()
		next := gc
		if err := next.Alter(st.Set); err != nil {
			st.Err = err
		} else {
			gc = next
		}
		st.After = gc.Config()
		cur[st.Group] = gc
	}
	return steps
}

// InForce is a group's configuration timeline for the checkers: the values in force at
// every time, from a Config's ConfigSteps.
type InForce struct {
	base  model.Config
	steps []ConfigStep // accepted steps of one group, ascending in time
}

// InForceFor returns group g's timeline (g indexes Config.Groups).
func InForceFor(c *Config, steps []ConfigStep, g int32) InForce {
	in := InForce{base: c.Kafka}
	for _, s := range steps {
		if s.Group == g && s.Accepted() {
			in.steps = append(in.steps, s)
		}
	}
	return in
}

// GroupIndex returns the index of the group named name in c.Groups, or -1.
func (c *Config) GroupIndex(name string) int32 {
	for i, g := range c.Groups {
		if g.Name == name {
			return int32(i)
		}
	}
	return -1
}

// Changes reports whether the group's configuration changes during the run.
func (in InForce) Changes() bool { return len(in.steps) > 0 }

// Steps returns the accepted changes, ascending in time.
func (in InForce) Steps() []ConfigStep { return in.steps }

// Range returns the least and greatest value of f over the configurations in force at
// some moment of [fromMs, toMs]: a change at exactly fromMs may have come before or after
// an event of that millisecond, so both its sides count.
func (in InForce) Range(fromMs, toMs int64, f func(model.Config) int64) (lo, hi int64) {
	cur := in.base
	i := 0
	for ; i < len(in.steps) && in.steps[i].AtMs < fromMs; i++ {
		cur = in.steps[i].After
	}
	lo, hi = f(cur), f(cur)
	for ; i < len(in.steps) && in.steps[i].AtMs <= toMs; i++ {
		v := f(in.steps[i].After)
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// LimitOf, CapOf and LockMsOf read the delivery count limit, the record-lock cap and the lock
// duration from a configuration.
func LimitOf(c model.Config) int64  { return int64(c.DeliveryCountLimit) }
func CapOf(c model.Config) int64    { return int64(c.PartitionMaxRecordLocks) }
func LockMsOf(c model.Config) int64 { return c.RecordLockDurationMs }

// buildGroupConfigs gives every group its configuration (the scenario's) and schedules
// nothing: config-change faults go through the fault queue like every other.
func (cf *groupConfigs) buildGroupConfigs() {
	cf.groupCfg = make([]model.GroupConfig, len(cf.groups))
	for i := range cf.groupCfg {
		cf.groupCfg[i] = model.NewGroupConfig(cf.cfg.Kafka)
	}
	cf.configSteps = cf.cfg.ConfigSteps()
}

// kafkaOf is group g's configuration in force.
func (cf *groupConfigs) kafkaOf(g int32) model.Config { return cf.groupCfg[g].Config() }

// lockDurationMs is group g's record lock duration in force (kafkaOf's, without the copy).
func (cf *groupConfigs) lockDurationMs(g int32) int64 { return cf.groupCfg[g].RecordLockDurationMs() }

// groupConfig is group g's configuration in force, as stored (unclamped).
func (cf *groupConfigs) groupConfig(g int32) model.GroupConfig { return cf.groupCfg[g] }

// steps are the run's config changes, as ConfigSteps decided them.
func (cf *groupConfigs) steps() []ConfigStep { return cf.configSteps }

// configChange fires config-change fault fi: Kafka's answer was decided by ConfigSteps;
// an accepted change reaches every share-partition of the group (and the ones built
// later), each reading the new values at its next use.
func (cf *groupConfigs) configChange(fi int32) {
	var st *ConfigStep
	for i := range cf.configSteps {
		if cf.configSteps[i].Fault == int(fi) {
			st = &cf.configSteps[i]
		}
	}
	if st == nil {
		return
	}
	g := st.Group
	l := cf.line("fault").str("fault", "config-change").str("group", cf.groups[g].cfg.Name).str("set", st.Describe())
	if st.Err != nil {
		code, reason := "INVALID_CONFIG", st.Err.Error()
		var me *model.Error
		if errors.As(st.Err, &me) {
			code, reason = me.Code.String(), me.Msg
		}
		l.str("error", code).str("reason", reason).end()
		cf.mark("config-change-refused")
		cf.configChanges = append(cf.configChanges, ConfigChange{AtMs: cf.now, Group: cf.groups[g].cfg.Name, Set: st.Describe(), Error: code, Reason: reason})
		return
	}
	l.str("error", "NONE").num("limit", int64(st.After.DeliveryCountLimit)).num("cap", int64(st.After.PartitionMaxRecordLocks)).num("lock_ms", st.After.RecordLockDurationMs).end()
	cf.configChanges = append(cf.configChanges, ConfigChange{AtMs: cf.now, Group: cf.groups[g].cfg.Name, Set: st.Describe(), Error: "NONE",
		DeliveryCountLimit: st.After.DeliveryCountLimit, PartitionMaxRecordLocks: st.After.PartitionMaxRecordLocks, RecordLockDurationMs: st.After.RecordLockDurationMs})
	if cf.opts.IgnoreConfigChanges {
		return
	}
	next := cf.groupCfg[g]
	_ = next.Alter(st.Set) // accepted by ConfigSteps from the same state
	cf.groupCfg[g] = next
	cf.leaders.configChanged(g, next)
}

// ConfigChange is a config-change fault as it fired, for the summary: Error is NONE for
// an accepted change (with the values in force after it), else Kafka's error code and
// its reason.
type ConfigChange struct {
	AtMs                    int64  `json:"at_ms"`
	Group                   string `json:"group"`
	Set                     string `json:"set"`
	Error                   string `json:"error"`
	Reason                  string `json:"reason,omitempty"`
	DeliveryCountLimit      int    `json:"delivery_count_limit,omitempty"`
	PartitionMaxRecordLocks int    `json:"partition_max_record_locks,omitempty"`
	RecordLockDurationMs    int64  `json:"record_lock_duration_ms,omitempty"`
}
