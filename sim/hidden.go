package sim

// Hidden events: things that happen out of the clients' sight but change what their history
// may legitimately show. A history checker (checker/linearize) uses them the way a Jepsen
// checker uses the nemesis' operations: a leader failover may reset delivery counts, a
// killed member's records may be released before their locks run out, and so on. They are
// recorded only with Options.RecordHistory or Options.OnHidden and never change the run or its trace.

// Kinds of HiddenEvent.
const (
	// HiddenReload: the share-partition's in-memory state was discarded on its leader
	// (failover or eviction); the next leader rebuilds it from the durable state.
	HiddenReload = "reload"
	// HiddenLockExpiry: every acquisition lock of the share-partition was expired at once
	// (the lock-expiry fault).
	HiddenLockExpiry = "lock-expiry"
	// HiddenLogStart: the share-partition applied a log start offset move to Offset.
	HiddenLogStart = "log-start"
	// HiddenCompaction: the log cleaner removed offsets Offset..Last of the partition.
	HiddenCompaction = "compaction"
	// HiddenMemberGone: a member was killed or closed; its share sessions end.
	HiddenMemberGone = "member-gone"
)

// HiddenEvent is one hidden event. Partition events name the share-partition (group and
// partition); member events name the member and its group.
type HiddenEvent struct {
	TimeMs    int64  `json:"time_ms"`
	Kind      string `json:"kind"`
	Group     string `json:"group"`
	Partition string `json:"partition,omitempty"`
	Member    string `json:"member,omitempty"`
	// Offset and Last: the new log start (log-start) or the removed range (compaction).
	Offset int64 `json:"offset,omitempty"`
	Last   int64 `json:"last,omitempty"`
	// FromMs (member-gone) is the earliest send time of the member's requests whose outcome
	// the history does not show (they were in flight when it died, or were its closing
	// acknowledgements); they may have taken effect at any time from then on. TimeMs when
	// there were none.
	FromMs int64 `json:"from_ms,omitempty"`
}

// recordHidden notes a hidden event on share-partition s.
func (h *history) recordHidden(kind string, s *sharePart, off, last int64) {
	if !h.recordsHistory() {
		return
	}
	h.emitHidden(HiddenEvent{TimeMs: h.now, Kind: kind, Group: h.groups[s.group].cfg.Name,
		Partition: h.parts[s.part].name, Offset: off, Last: last})
}

// recordCompaction notes that the batch starting at first was compacted away, for every
// share-partition reading p.
func (h *history) recordCompaction(p *partition, first int64) {
	if !h.recordsHistory() {
		return
	}
	b, ok := p.log.BatchAt(first)
	if !ok {
		return
	}
	for _, sp := range p.shares {
		h.recordHidden(HiddenCompaction, h.shares[sp], b.First, b.Last)
	}
}

// recordMemberGone notes that share consumer c's incarnation ends now. It must run before
// the incarnation's generation changes: requests of that generation the client never heard
// back from will not appear in the history.
func (h *history) recordMemberGone(c *consumer) {
	if !h.recordsHistory() {
		return
	}
	from := h.now
	for id := range h.reqs.all {
		r := &h.reqs.all[id]
		if r.inUse && !r.done && r.consumer == c.idx && r.gen == c.gen {
			from = min(from, r.sentMs)
		}
	}
	h.emitHidden(HiddenEvent{TimeMs: h.now, Kind: HiddenMemberGone, Group: h.groups[c.group].cfg.Name,
		Member: string(c.member), FromMs: from})
}

// recordUnanswered records, at the end of the run, every request of a live client that has
// no outcome yet as lost: the client never heard back, and the request may or may not have
// taken effect.
func (h *history) recordUnanswered() {
	if !h.recordsHistory() {
		return
	}
	for id := range h.reqs.all {
		r := &h.reqs.all[id]
		if !r.inUse || r.done {
			continue
		}
		if c := h.consumers[r.consumer]; c.gen == r.gen && c.state != cDead {
			h.recordHistoryLost(r)
		}
	}
}
