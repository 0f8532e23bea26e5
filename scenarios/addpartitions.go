package scenarios

import (
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/sim"
)

// addPartitionsFault reads an add-partitions fault: the topic (target) that grows and by how
// many partitions (count), once at its time. count belongs to no other fault.
func (w *wctx) addPartitionsFault(it *yaml.Node, f *fields, k sim.FaultKind, flt *sim.Fault) {
	d := w.d
	if k != sim.FaultAddPartitions {
		if x := f.get("count"); x != nil {
			d.fail(f.key["count"], f.p("count"), "count for a "+k.String()+" fault", "no count (only add-partitions takes one)")
		}
		return
	}
	for _, key := range []string{"every", "until", "probability"} {
		if x := f.get(key); x != nil {
			d.fail(f.key[key], f.p(key), key+" for an add-partitions fault", "no "+key+" (partitions are added once, at its time)")
		}
	}
	if f.get("at") == nil {
		d.fail(it, f.p("at"), "no value", "the time the partitions are added (e.g. 2m)")
	}
	if f.get("target") == nil {
		d.fail(it, f.p("target"), "no value", "the topic that gets the new partitions")
	}
	v := f.get("count")
	if v == nil {
		d.fail(it, f.p("count"), "no value", "the number of partitions to add (1 or more)")
		return
	}
	if x, ok := d.integer(v, f.p("count"), 1, maxTopicPartitions); ok {
		flt.Count = int(x)
		if t, found := w.topics[flt.Target]; found {
			total := t.Partitions
			for _, g := range w.cfg.Faults {
				if g.Kind == sim.FaultAddPartitions && g.Target == flt.Target {
					total += g.Count
				}
			}
			if total+flt.Count > maxTopicPartitions {
				d.fail(v, f.p("count"), strconv.Itoa(total+flt.Count)+" partitions for topic "+flt.Target,
					"at most "+strconv.Itoa(maxTopicPartitions)+" partitions in a topic, the added ones included")
			}
		}
	}
}

// maxTopicPartitions is the most partitions a topic may have (sim.Config.Validate's bound).
const maxTopicPartitions = 10000
