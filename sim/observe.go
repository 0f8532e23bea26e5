package sim

import (
	"github.com/sharesim/sharesim/model"
)

// What an event did that the share-partitions' state alone does not show, for observers
// (invariant checkers, Options.Observer): which members' share sessions ended, and which
// state writes reached the share coordinator with which epochs. Recorded only when an
// observer is set; it never changes the run.

// Departure is a member whose share session ended on a share-partition's leader during the
// current event (close with the final epoch, or a dropped connection).
type Departure struct {
	Group, Partition string
	Member           model.MemberID
}

// AppliedWrite is a state write that reached the share coordinator during the current
// event.
type AppliedWrite struct {
	Group, Partition string
	// WriteLeaderEpoch and WriteStateEpoch are the write's; StoreLeaderEpoch and
	// StoreStateEpoch the coordinator's just before it arrived.
	WriteLeaderEpoch, WriteStateEpoch int32
	StoreLeaderEpoch, StoreStateEpoch int32
	// Accepted is true when the coordinator stored it.
	Accepted bool
}

type eventNotes struct {
	event      int64
	departures []Departure
	writes     []AppliedWrite
}

// notes returns the current event's notes, cleared when a new event started.
func (h *history) notes() *eventNotes {
	n := &h.obsNotes
	if n.event != h.events {
		n.event = h.events
		n.departures, n.writes = n.departures[:0], n.writes[:0]
	}
	return n
}

// Departures lists the share sessions that ended during the current event.
func (w *World) Departures() []Departure {
	return w.history.departures()
}

// AppliedWrites lists the state writes that reached the share coordinator during the
// current event.
func (w *World) AppliedWrites() []AppliedWrite {
	return w.history.appliedWrites()
}

// departures are the current event's ended share sessions.
func (h *history) departures() []Departure {
	if h.obsNotes.event != h.events {
		return nil
	}
	return h.obsNotes.departures
}

// appliedWrites are the state writes that reached the share coordinator in the current event.
func (h *history) appliedWrites() []AppliedWrite {
	if h.obsNotes.event != h.events {
		return nil
	}
	return h.obsNotes.writes
}

// observeRelease notes that member's share session on s's leader ended.
func (h *history) observeRelease(s *sharePart, member model.MemberID) {
	if h.opts.Observer == nil {
		return
	}
	n := h.notes()
	n.departures = append(n.departures, Departure{Group: h.groups[s.group].cfg.Name, Partition: h.parts[s.part].name, Member: member})
}

// writeApplied notes that a state write reached s's share coordinator, which held leader
// and state epochs leaderEpoch and stateEpoch before it, and accepted it or not.
func (h *history) writeApplied(s *sharePart, wr *model.Write, leaderEpoch, stateEpoch int32, accepted bool) {
	if h.opts.Observer == nil {
		return
	}
	n := h.notes()
	n.writes = append(n.writes, AppliedWrite{Group: h.groups[s.group].cfg.Name, Partition: h.parts[s.part].name,
		WriteLeaderEpoch: wr.LeaderEpoch, WriteStateEpoch: wr.StateEpoch,
		StoreLeaderEpoch: leaderEpoch, StoreStateEpoch: stateEpoch, Accepted: accepted})
}

// ShareCore returns the leader's in-memory share-partition of the i-th share-partition in
// SharePartitions' order (nil while not loaded), and false past the last one: the cheap
// way for an observer to look at every share-partition after each event.
func (w *World) ShareCore(i int) (*model.SharePartition, bool) {
	if i >= len(w.shares) {
		return nil, false
	}
	return w.shares[i].core, true
}

// HistoryHorizonMs is a lower bound of everything the history has still to show: every
// operation recorded from now on has a call time at or after it, and every hidden event a
// time (and FromMs) at or after it. It is the earliest send time of a live incarnation's
// request whose outcome is not recorded yet, or now. O(requests in flight).
func (w *World) HistoryHorizonMs() int64 { return w.history.historyHorizon() }

// AddedSharePartition describes a share-partition an add-partitions fault created.
type AddedSharePartition struct {
	Group, Partition string
	// AtMs is when the partition was added; TopicKnown whether the group already read the
	// topic then (a member had joined), which is what model.InitialStartOffset asks.
	AtMs       int64
	TopicKnown bool
	// StoredStartOffset is the start offset the share coordinator was initialised with
	// (-1: share.auto.offset.reset decides at the first load).
	StoredStartOffset int64
	// Loaded says whether a leader ever loaded it; then LoadStartOffset is the start offset
	// it began at and LoadLogStart the log start offset at that moment.
	Loaded          bool
	LoadStartOffset int64
	LoadLogStart    int64
}

// AddedSharePartitions lists the share-partitions created by add-partitions faults, in the
// order they were created.
func (w *World) AddedSharePartitions() []AddedSharePartition { return w.history.addedSharePartitions() }

// ConsumerNames lists the consumer instances in creation order.
func (w *World) ConsumerNames() []string {
	out := make([]string, len(w.consumers))
	for i, c := range w.consumers {
		out[i] = c.name
	}
	return out
}

// SharePartitionInfo exposes one share-partition to observers (invariant checkers).
type SharePartitionInfo struct {
	Group     string
	Partition string
	// Core is the leader's in-memory share-partition; nil while not loaded. Observers must
	// not change it.
	Core *model.SharePartition
	// Store is the share coordinator's durable state for it.
	Store          *model.StateStore
	LogStartOffset int64
	LogEndOffset   int64
	LeaderEpoch    int32
}

// SharePartitions calls fn for every share-partition, in a fixed order.
func (w *World) SharePartitions(fn func(SharePartitionInfo)) {
	for _, s := range w.shares {
		p := w.parts[s.part]
		fn(SharePartitionInfo{Group: w.groups[s.group].cfg.Name, Partition: p.name, Core: s.core, Store: w.coord.store(s),
			LogStartOffset: p.log.StartOffset(), LogEndOffset: p.log.EndOffset(), LeaderEpoch: p.leaderEpoch})
	}
}
