package checker

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// checkNewPartitions is the part of no-silent-loss that concerns partitions added during the
// run: where model.InitialStartOffset says the share coordinator stores a start offset (from
// Kafka 4.4, new partitions of a topic the group already reads start at 0, KAFKA-20742),
// the share-partition's first load must not begin above it or the log start offset. Records
// between were produced, never offered and never finished: lost, although the simulator's
// accounting files them under the offset reset. Up to 4.3 share.auto.offset.reset decides and
// what it skips is the documented skip, not a loss.
func (c *Checker) checkNewPartitions(w *sim.World, res *sim.Result) {
	for _, a := range w.AddedSharePartitions() {
		want := model.InitialStartOffset(c.cfg.Kafka.Version, a.TopicKnown)
		if want < 0 || !a.Loaded {
			continue
		}
		if floor := max(want, a.LoadLogStart); a.LoadStartOffset > floor {
			c.report(Violation{Check: "no-silent-loss", TimeMs: res.EndMs, Event: res.Events, Group: a.Group, Partition: a.Partition,
				Message: fmt.Sprintf("partition %s, added at %s to a topic group %s already read, began at offset %d when first loaded: the %d records from offset %d were never offered (Kafka %s starts such a partition at offset %d, KAFKA-20742)",
					a.Partition, sim.FormatMs(a.AtMs), a.Group, a.LoadStartOffset, a.LoadStartOffset-floor, floor, c.cfg.Kafka.Version, want)})
		}
	}
}
