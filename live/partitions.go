package live

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharesim/sharesim/sim"
)

// Partitions added during a live run (the add-partitions fault): CreatePartitions on the
// run's topic, setting the count the scenario expects by then (kadm's UpdatePartitions, so
// a retried call adds nothing twice). The simulator has producers and classic consumers
// learn new partitions at once; kgo learns them at its next metadata refresh (every 5 min
// by default), so every client of the run is asked to refresh at once. The broker's group
// coordinator assigns the new partitions to the share groups (kfake: notifyTopicChange
// recomputes every share group's assignment), and their start offset is the broker's
// (kfake and Kafka 4.2/4.3: share.auto.offset.reset at the first fetch).

// partitionsOf is the number of partitions topic has in the run so far.
func (r *runner) partitionsOf(topic string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.parts[topic]; ok {
		return n
	}
	for _, t := range r.cfg.Topics {
		if t.Name == topic {
			return t.Partitions
		}
	}
	return 0
}

// addPartitions fires an add-partitions fault.
func (r *runner) addPartitions(f sim.Fault) {
	from := r.partitionsOf(f.Target)
	to := from + f.Count
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	at := float64(time.Since(r.startAt).Milliseconds())
	if err := r.cl.setPartitions(ctx, f.Target, to); err != nil {
		r.note(fmt.Sprintf("%.0f ms: add-partitions %s %d → %d: %v", at, f.Target, from, to, err))
		return
	}
	r.mu.Lock()
	if r.parts == nil {
		r.parts = map[string]int{}
	}
	r.parts[f.Target] = to
	ins := append([]*instance(nil), r.instances...)
	r.mu.Unlock()
	r.note(fmt.Sprintf("%.0f ms: add-partitions %s %d → %d", at, f.Target, from, to))
	for _, in := range ins {
		in.mu.Lock()
		inc := in.inc
		in.mu.Unlock()
		if inc != nil && inc.cl != nil {
			inc.cl.ForceMetadataRefresh()
		}
	}
}

// setPartitions sets topic's partition count to n (CreatePartitions).
func (c *cluster) setPartitions(ctx context.Context, topic string, n int) error {
	resps, err := c.admin.UpdatePartitions(ctx, n, c.topic(topic))
	if err != nil {
		return err
	}
	return resps.Error()
}

// producerParts follows a producer's view of its topic's partitions: the run's count, once
// the producer's client knows the last of them (producing to a partition kgo has not
// loaded fails the record).
type producerParts struct {
	n         int // partitions the producer spreads over
	refreshed int // the count a metadata refresh was last asked for
}

// update returns the partitions producer spreads over now. The first time it spreads
// over a new count the run notes when: how long the client took to load the new
// partitions after CreatePartitions (milliseconds with no load, up to seconds on a
// machine too loaded to keep up with the scenario).
func (pp *producerParts) update(r *runner, cl *kgo.Client, producer, topic string) int {
	want := r.partitionsOf(topic)
	if want <= pp.n {
		return pp.n
	}
	if pp.refreshed < want {
		cl.ForceMetadataRefresh()
		pp.refreshed = want
	}
	if leader, _, err := cl.PartitionLeader(r.cl.topic(topic), int32(want-1)); err == nil && leader >= 0 {
		r.note(fmt.Sprintf("%d ms: producer %s spreads over %d partitions of %s", time.Since(r.startAt).Milliseconds(), producer, want, topic))
		pp.n = want
	}
	return pp.n
}
