package sim

import (
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/plog"
)

// topology is what exists in the world and how it is connected: topics and their partitions,
// the groups and their share-partitions, the consumer slots and the producers.
// Setup builds it and the add-partitions fault grows it; every actor reads it. The entries'
// fields belong to the actors their comments name.
type topology struct {
	topics    []*topicState
	parts     []*partition
	groups    []*groupState
	shares    []*sharePart
	consumers []*consumer
	producers []*producerState
}

// recordBytes is the mean record size on topic t: the mean of its producers' record sizes.
func (tp *topology) recordBytes(t int32) int64 {
	var sum, k float64
	for _, p := range tp.producers {
		if p.topic != t {
			continue
		}
		k++
		if p.cfg.RecordSize != nil {
			sum += p.cfg.RecordSize.Mean()
		} else {
			sum += DefaultRecordBytes
		}
	}
	if k == 0 {
		return DefaultRecordBytes
	}
	return max(1, int64(sum/k))
}

// live reports whether partition p exists yet (it is not a reserve of a later
// add-partitions fault).
func (tp *topology) live(p *partition) bool {
	return p.num < int32(tp.topics[p.topic].cfg.Partitions)
}

// liveParts is topology.parts without the partitions reserved for add-partitions faults that
// have not fired yet (topology.parts itself when there are none).
func (tp *topology) liveParts() []*partition {
	n := 0
	for _, t := range tp.topics {
		n += t.cfg.Partitions
	}
	if n == len(tp.parts) {
		return tp.parts
	}
	out := make([]*partition, 0, n)
	for _, p := range tp.parts {
		if tp.live(p) {
			out = append(out, p)
		}
	}
	return out
}

func (tp *topology) topicParts(t int32) []*partition {
	ts := tp.topics[t]
	return tp.parts[ts.first : ts.first+int32(ts.cfg.Partitions)]
}

// partition is one topic-partition: its log and its leadership.
type partition struct {
	idx    int32
	topic  int32
	num    int32
	name   string // "topic/num"
	pField field  // " p=<name>" for trace lines
	// The logs' (log.go): the log, its poison offsets (ascending) and the keys' cache.
	log      *plog.Log
	poison   []int64
	keySpace keySpace
	// Leadership (the leaders', leaderstate.go: failover moves it); every client reads it
	// to route its requests.
	leader      int32
	leaderEpoch int32
	shares      []int32          // share-partitions reading it
	readers     []int32          // groups reading it (share and classic)
	readBuf     []model.LogBatch // a reader's scratch space for one log read
}

type topicState struct {
	cfg   Topic
	first int32 // index of partition 0 in topology.parts
}
