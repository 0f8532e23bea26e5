package live

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Config changes live: a config-change fault becomes one IncrementalAlterConfigs (SET) on
// the share group's GROUP resource, the way an operator would run kafka-configs against a
// running group. The broker's answer is what the run records; broker bounds
// (group.share.min/max.*) are broker settings a client cannot change, so such a fault is
// refused before the run.

// embeddedConfigChangeWhy says why the embedded kfake cluster cannot run a config change:
// kfake accepts group configs in IncrementalAlterConfigs (Cluster.setGroupConfigs, names
// checked against validGroupConfigs) but its share groups read only the broker-level
// group.share.* settings (Cluster.shareRecordLockDurationMs, shareMaxDeliveryAttempts,
// shareMaxRecordLocks), so the change would be stored and never take effect.
const embeddedConfigChangeWhy = "the embedded kfake cluster stores group configs set with IncrementalAlterConfigs " +
	"but its share groups read only the broker's group.share.* settings (kfake's Cluster.shareRecordLockDurationMs, " +
	"shareMaxDeliveryAttempts, shareMaxRecordLocks), so the change would never take effect; run it against a real cluster with --bootstrap"

// supportConfigChange checks a config-change fault for target t.
func supportConfigChange(f sim.Fault, t Target) error {
	if t.Embedded() {
		return &UnsupportedError{Key: "faults[kind=config-change]", Why: embeddedConfigChangeWhy}
	}
	for _, e := range f.Set {
		if model.IsBrokerBound(e.Key) {
			return &UnsupportedError{Key: "faults[kind=config-change].set." + e.Key,
				Why: "a broker setting of the cluster: changing it needs the brokers reconfigured, which live mode does not do"}
		}
	}
	return nil
}

// configChange sends one config-change fault to the broker and notes its answer.
func (r *runner) configChange(f sim.Fault) {
	group := f.Group
	if group == "" {
		for _, g := range r.cfg.Groups {
			if g.Type == sim.ShareGroup {
				group = g.Name
				break
			}
		}
	}
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	code, err := r.cl.alterGroupConfigs(ctx, group, f.Set)
	at := float64(time.Since(r.startAt).Milliseconds())
	switch {
	case err != nil:
		r.note(fmt.Sprintf("%.0f ms: config-change on %s: %v", at, group, err))
	default:
		r.note(fmt.Sprintf("%.0f ms: config-change on %s: %s answered %s", at, group, describeSet(f.Set), code))
	}
}

func describeSet(set []model.ConfigEntry) string {
	s := ""
	for i, e := range set {
		if i > 0 {
			s += ", "
		}
		s += e.Key + "=" + e.Value
	}
	return s
}

// alterGroupConfigs sends IncrementalAlterConfigs with SET for every entry on the group's
// GROUP resource and returns the broker's error code name (NONE when accepted).
func (c *cluster) alterGroupConfigs(ctx context.Context, group string, set []model.ConfigEntry) (string, error) {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = c.group(group)
	for _, e := range set {
		cf := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cf.Op = kmsg.IncrementalAlterConfigOpSet
		cf.Name, cf.Value = e.Key, kmsg.StringPtr(e.Value)
		res.Configs = append(res.Configs, cf)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, c.adm)
	if err != nil {
		return "", fmt.Errorf("altering group %s's configs: %w", res.ResourceName, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := err.Error()
			if r.ErrorMessage != nil {
				msg += ": " + *r.ErrorMessage
			}
			return msg, nil
		}
	}
	return "NONE", nil
}
