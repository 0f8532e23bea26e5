package model_test

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

func cfgLimit(l int) func() model.Config {
	return func() model.Config { c := cfg42(); c.DeliveryCountLimit = l; return c }
}

// read is the read half of a share fetch: the gate and the fetch offset now, and the log
// batches a read there returns.
func (h *harness) readNow() (int64, []model.LogBatch) {
	h.t.Helper()
	fr, err := h.sp.BeginFetch()
	if err != nil || !fr.Open {
		h.t.Fatalf("BeginFetch: %+v %v", fr, err)
	}
	return fr.FetchOffset, append([]model.LogBatch(nil), h.read(fr.FetchOffset)...)
}

func (h *harness) acquireAt(member string, maxRecords int, f int64, log []model.LogBatch) string {
	h.t.Helper()
	rs, err := h.sp.AcquireFetched(h.now, model.MemberID(member), model.FetchParams{MaxRecords: maxRecords, BatchSize: maxRecords}, f, log, nil)
	if err != nil {
		h.t.Fatalf("AcquireFetched: %v", err)
	}
	h.check()
	return ranges(rs)
}

// Rules of round 2: the read/acquire window, the per-batch acknowledgement check, and the
// rules item 6 of issue 10 found pinned only by random search. Each names the rule.
var round2Cases = []struct {
	name string
	rule string
	cfg  func() model.Config
	run  func(h *harness)
}{
	// ---- read-then-acquire window (SharePartition.acquire takes the fetch offset) ----
	{"records released after the read stay for the next fetch; the read is acquired as read", "§4.3; SharePartition.acquire(fetchOffset)", cfg42, func(h *harness) {
		h.produce(3, 3)
		h.eq("fetch", h.fetch("c1", 3), "0-2@1")
		f, log := h.readNow()
		h.eq("fetch offset", h.span(), "spso=0 speo=2 window=3 next=3")
		h.advance(30_000) // c1's lock fires inside c2's window
		h.eq("acquire", h.acquireAt("c2", 3, f, log), "3-5@1")
		h.eq("span", h.span(), "spso=0 speo=5 window=6 next=0")
		h.eq("redelivery", h.fetch("c1", 3), "0-2@2")
	}},
	{"the compaction archive runs from the read's fetch offset, not from today's next fetch offset", "§2.2 T-COMPACT; maybeArchiveStaleBatches(fetchOffset, baseOffset)", cfg42, func(h *harness) {
		h.produce(1, 1, 4)
		h.eq("fetch", h.fetch("c1", 2), "0-1@1")
		h.ackOK("c1", "0-1:release") // 0-1 AVAILABLE; next fetch offset 0
		h.compacted = []int{0, 1}
		h.compact() // the log lost offsets 0 and 1
		f, log := h.readNow()
		if f != 0 || log[0].First != 2 {
			h.t.Fatalf("read at %d: %v", f, log)
		}
		h.eq("acquire", h.acquireAt("c2", 10, f, log), "2-5@1")
		h.eq("states", h.states(), "0:ARC/-/1 1:ARC/-/1 2:ACQ/c2/1 3:ACQ/c2/1 4:ACQ/c2/1 5:ACQ/c2/1")
		// The same read replayed with a fetch offset past the gap archives nothing.
		h2 := newHarness(h.t, cfg42())
		h2.produce(1, 1, 4)
		h2.fetch("c1", 2)
		h2.ackOK("c1", "0-1:release")
		h2.compacted = []int{0, 1}
		h2.compact()
		h2.eq("acquire at 2", h2.acquireAt("c2", 10, 2, h2.read(2)), "2-5@1")
		h2.eq("states at 2", h2.states(), "0:AVA/-/1 1:AVA/-/1 2:ACQ/c2/1 3:ACQ/c2/1 4:ACQ/c2/1 5:ACQ/c2/1")
	}},
	{"an acknowledgement between the read and the acquire lowers the next fetch offset; the read's gap is archived from the read's fetch offset, sparing the released record before it", "§2.2 T-COMPACT; SharePartition.acquire(fetchOffset) → maybeArchiveStaleBatches(fetchOffset, baseOffset)", cfg42, func(h *harness) {
		h.produce(1, 1)
		h.skip(2) // offsets 2-3 compacted away
		h.produce(2)
		h.compact()
		h.eq("fetch", h.fetch("c1", 2), "0-1@1")
		f, log := h.readNow()
		if f != 2 || log[0].First != 4 {
			h.t.Fatalf("read at %d: %v", f, log)
		}
		h.ackOK("c1", "1-1:release") // inside the window: the next fetch offset drops to 1
		h.eq("next fetch offset", h.span(), "spso=0 speo=1 window=2 next=1")
		h.eq("acquire", h.acquireAt("c2", 10, f, log), "4-5@1")
		h.eq("states", h.states(), "0:ACQ/c1/1 1:AVA/-/1 4:ACQ/c2/1 5:ACQ/c2/1")
		h.eq("redelivery", h.fetch("c3", 10), "1-1@2")
	}},
	{"a lock expiry between the read and the acquire lowers the next fetch offset; the read's gap is archived from the read's fetch offset, sparing the expired records before it", "§2.2 T-COMPACT, §3 T-EXPIRE; SharePartition.acquire(fetchOffset)", cfg42, func(h *harness) {
		h.produce(1, 1)
		h.skip(2)
		h.produce(2)
		h.compact()
		h.eq("fetch", h.fetch("c1", 2), "0-1@1")
		f, log := h.readNow()
		h.advance(30_000) // c1's lock fires inside c2's window: 0-1 AVAILABLE, next fetch offset 0
		h.eq("next fetch offset", h.span(), "spso=0 speo=1 window=2 next=0")
		h.eq("acquire", h.acquireAt("c2", 10, f, log), "4-5@1")
		h.eq("states", h.states(), "0:AVA/-/1 1:AVA/-/1 4:ACQ/c2/1 5:ACQ/c2/1")
		h.eq("redelivery", h.fetch("c3", 10), "0-1@2")
	}},
	{"a read from before a log-start move starts at the new SPSO when nothing is cached before it (4.2)", "§4.3 step 4, §5.3", cfg42, func(h *harness) {
		h.produce(3, 3)
		f, log := h.readNow()
		h.sp.MoveLogStartOffset(4)
		h.eq("acquire", h.acquireAt("c1", 10, f, log), "4-5@1")
		h.eq("span", h.span(), "spso=4 speo=5 window=2 next=6")
	}},
	{"a read that does not start at its fetch offset, or a negative fetch offset, is the caller's error", "API contract", cfg42, func(h *harness) {
		h.produce(3, 3)
		p := model.FetchParams{MaxRecords: 5, BatchSize: 5}
		if _, err := h.sp.AcquireFetched(0, "c1", p, 4, h.log[:1], nil); model.CodeOf(err) != model.ErrInvalidArgument {
			h.t.Errorf("read ending before its fetch offset: %v", err)
		}
		if _, err := h.sp.AcquireFetched(0, "c1", p, -1, h.log, nil); model.CodeOf(err) != model.ErrInvalidArgument {
			h.t.Errorf("negative fetch offset: %v", err)
		}
		h.eq("nothing changed", h.span(), "spso=0 speo=0 window=0 next=0")
	}},
	{"a read wholly below a log-start move acquires nothing", "§4.3 step 1 (last fetched offset < SPSO)", cfg42, func(h *harness) {
		h.produce(3, 3)
		f, log := h.readNow()
		h.sp.MoveLogStartOffset(6)
		h.eq("acquire", h.acquireAt("c1", 10, f, log[:1]), "")
		h.eq("span", h.span(), "spso=6 speo=6 window=0 next=6")
	}},
	{"the gate is not checked again at acquire time (4.1 has no cap trim)", "§4.6; acquire does not call canAcquireRecords", func() model.Config { c := cfg41(); c.RelaxRanges = true; c.PartitionMaxRecordLocks = 4; return c }, func(h *harness) {
		h.produce(2, 2, 2)
		f, log := h.readNow()
		h.eq("first", h.fetch("c1", 4), "0-3@1") // a fetch between read and acquire fills the cap
		h.eq("acquire", h.acquireAt("c2", 10, f, log), "4-5@1")
		h.eq("span", h.span(), "spso=0 speo=5 window=6 next=6")
	}},

	// ---- per-batch acknowledgement validation (fetchSubMapForAcknowledgementBatch) ----
	{"a range ending in a hole between cached batches is INVALID_REQUEST and changes nothing", "§6.2; fetchSubMapForAcknowledgementBatch", cfg42, func(h *harness) {
		h.produce(5)
		h.skip(15)
		h.produce(5)
		h.compact()
		h.eq("fetch", h.fetch("c1", 5), "0-4@1")
		h.eq("fetch2", h.fetch("c1", 5), "20-24@1")
		if _, code := h.ack("c1", "0-10:accept"); code != model.ErrInvalidRequest {
			h.t.Errorf("0-10: %v, want INVALID_REQUEST", code)
		}
		if _, code := h.ack("c1", "23-26:accept"); code != model.ErrInvalidRequest {
			h.t.Errorf("23-26: %v, want INVALID_REQUEST", code)
		}
		h.eq("unchanged", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c1/1 3:ACQ/c1/1 4:ACQ/c1/1 20:ACQ/c1/1 21:ACQ/c1/1 22:ACQ/c1/1 23:ACQ/c1/1 24:ACQ/c1/1")
		h.ackOK("c1", "0-22:accept")
		h.eq("accepted", h.states(), "20:ACK/-/1 21:ACK/-/1 22:ACK/-/1 23:ACQ/c1/1 24:ACQ/c1/1")
	}},
	{"a per-offset type list longer or shorter than its range is INVALID_REQUEST", "§6.2; fetchAckTypeMapForBatch", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 2)
		for _, spec := range []string{"0-1:accept,accept,accept", "0-1:accept,release,reject,gap"} {
			if _, code := h.ack("c1", spec); code != model.ErrInvalidRequest {
				h.t.Errorf("%s: %v, want INVALID_REQUEST", spec, code)
			}
		}
		h.eq("unchanged", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1")
		h.ackOK("c1", "0-1:accept,release")
		h.eq("per offset", h.states(), "0:ACK/-/1 1:AVA/-/1")
	}},

	// ---- item 6 rules pinned by fixed inputs ----
	{"a released compaction-gap offset at the read start is archived, the AVAILABLE offset after it redelivered", "§2.2 T-COMPACT ([fetch offset, first fetched offset) only)", cfg42, func(h *harness) {
		h.produce(1, 1, 1)
		h.eq("fetch", h.fetch("c1", 3), "0-2@1")
		h.ackOK("c1", "0-2:release")
		h.compacted = []int{0}
		h.compact() // offset 0 is gone from the log; 1 and 2 remain, all three AVAILABLE
		h.eq("next", h.span(), "spso=0 speo=2 window=3 next=0")
		h.eq("fetch after compaction", h.fetch("c2", 3), "1-2@2")
		h.eq("states", h.states(), "0:ARC/-/1 1:ACQ/c2/2 2:ACQ/c2/2")
	}},
	{"last-attempt isolation: an offset about to get its last delivery is not taken with earlier offsets", "§3.4 (4.2, KAFKA-19955)", cfgLimit(3), func(h *harness) {
		h.produce(3)
		h.eq("fetch", h.fetch("c1", 3), "0-2@1")
		h.ackOK("c1", "1:release")
		h.eq("redeliver 1", h.fetch("c1", 3), "1-1@2")
		h.ackOK("c1", "0-1:release")
		// offset 0 at count 1, offset 1 at count 2 (its next delivery is the last)
		h.eq("earlier alone", h.fetch("c2", 3), "0-0@2")
		h.eq("last attempt alone", h.fetch("c2", 3), "1-1@3")
	}},
	{"a member leaving when SPSO is the last offset of a whole batch after a log-start move", "§7.5, §5.3 (checkForStartOffsetWithinBatch)", cfg42, func(h *harness) {
		h.produce(5)
		h.eq("fetch", h.fetch("c1", 5), "0-4@1")
		h.sp.MoveLogStartOffset(4)
		w := h.sp.ReleaseMember(h.now, "c1")
		if w == nil {
			h.t.Fatal("no release write")
		}
		h.eq("write", writeText(w), "0-3:ARCHIVED/1 4-4:AVAILABLE/1")
		h.open[w.ID] = w.Clone()
		h.complete(w.ID, true)
		h.eq("span", h.span(), "spso=4 speo=4 window=1 next=4")
		h.eq("states", h.states(), "0:ARC/-/1 1:ARC/-/1 2:ARC/-/1 3:ARC/-/1 4:AVA/-/1")
	}},
	{"a second log-start move archives AVAILABLE records below the old SPSO too", "§5.3 T-LSO (archiveRecords from the first cached offset)", cfg42, func(h *harness) {
		h.produce(10)
		h.eq("fetch", h.fetch("c1", 10), "0-9@1")
		w, code := h.ack("c1", "0-9:accept")
		if code != model.ErrNone || w == nil {
			h.t.Fatalf("ack: %v", code)
		}
		h.advance(30_000) // the lock fires while the write is outstanding
		h.sp.MoveLogStartOffset(3)
		h.complete(w.ID, false) // rollback after the lock fired: AVAILABLE, below SPSO too
		h.eq("after rollback", h.span(), "spso=3 speo=9 window=7 next=0")
		h.sp.MoveLogStartOffset(6)
		h.eq("second move", h.states(), "0:ARC/-/1 1:ARC/-/1 2:ARC/-/1 3:ARC/-/1 4:ARC/-/1 5:ARC/-/1 6:AVA/-/1 7:AVA/-/1 8:AVA/-/1 9:AVA/-/1")
	}},
}

func writeText(w *model.Write) string {
	s := ""
	for i, b := range w.Batches {
		if i > 0 {
			s += " "
		}
		s += itoa(b.First) + "-" + itoa(b.Last) + ":" + b.State.String() + "/" + itoa(int64(b.DeliveryCount))
	}
	return s
}

func itoa(x int64) string {
	if x == 0 {
		return "0"
	}
	neg, s := x < 0, ""
	if neg {
		x = -x
	}
	for x > 0 {
		s = string(rune('0'+x%10)) + s
		x /= 10
	}
	if neg {
		s = "-" + s
	}
	return s
}

func TestRound2Rules(t *testing.T) {
	for _, c := range round2Cases {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("rule: %s", c.rule)
			c.run(newHarness(t, c.cfg()))
		})
	}
}

// Kafka 4.3: share.renew.acknowledge.enable (KAFKA-20161) and the dynamic group configs
// share.delivery.count.limit (KAFKA-20159) and share.partition.max.record.locks.
func TestKafka43GroupConfigs(t *testing.T) {
	c := cfg42()
	c.DisableRenewAcknowledge = true
	if err := c.Validate(); err == nil {
		t.Error("share.renew.acknowledge.enable=false accepted in 4.2")
	}
	c.Version = model.Kafka43
	h := newHarness(t, c)
	h.produce(2, 2)
	h.eq("fetch", h.fetch("c1", 4), "0-3@1")
	// A RENEW with the config off fails the whole call (INVALID_RECORD_STATE), also when
	// combined with other types; nothing changes.
	for _, spec := range []string{"0-3:renew", "0-1:accept 2-3:renew", "0-3:accept,accept,renew,accept"} {
		if _, code := h.ack("c1", spec); code != model.ErrInvalidRecordState {
			t.Errorf("%s: %v, want INVALID_RECORD_STATE", spec, code)
		}
	}
	h.eq("unchanged", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c1/1 3:ACQ/c1/1")
	if err := h.sp.SetRenewAcknowledge(true); err != nil {
		t.Fatal(err)
	}
	h.now = 10_000
	h.ackOK("c1", "0-3:renew")
	if v, _ := h.sp.Record(3); v.LockDeadlineMs != 40_000 {
		t.Errorf("renewed lock deadline %d, want 40000", v.LockDeadlineMs)
	}
	// The delivery count limit is read at every use: lowered to 2, a release at count 2
	// archives.
	if err := h.sp.SetDeliveryCountLimit(2); err != nil {
		t.Fatal(err)
	}
	h.ackOK("c1", "0-3:release")
	h.eq("second", h.fetch("c1", 4), "0-3@2")
	h.ackOK("c1", "0-1:release")
	h.eq("archived at the new limit", h.states(), "0:ARC/-/2 1:ARC/-/2 2:ACQ/c1/2 3:ACQ/c1/2")
	h.eq("span", h.span(), "spso=2 speo=3 window=2 next=4")
	if err := h.sp.SetPartitionMaxRecordLocks(100); err != nil {
		t.Errorf("SetPartitionMaxRecordLocks: %v", err)
	}
	if err := h.sp.SetPartitionMaxRecordLocks(5); err == nil {
		t.Error("cap 5 accepted outside relaxed ranges")
	}
	// A record already AVAILABLE at or above a lowered limit is acquired once more (Kafka
	// applies the limit only on the way back to AVAILABLE, InFlightState.tryUpdateState).
	c2 := cfg42()
	c2.Version = model.Kafka43
	h2 := newHarness(t, c2)
	h2.produce(1)
	h2.fetch("c1", 1)
	h2.ackOK("c1", "0:release")
	h2.eq("second", h2.fetch("c1", 1), "0-0@2")
	h2.ackOK("c1", "0:release")
	if err := h2.sp.SetDeliveryCountLimit(2); err != nil {
		t.Fatal(err)
	}
	h2.eq("beyond the lowered limit", h2.fetch("c1", 1), "0-0@3")
	h2.ackOK("c1", "0:release")
	h2.eq("then archived", h2.span(), "spso=1 speo=1 window=0 next=1")
	// Before 4.3 these are broker configs.
	h42 := newHarness(t, cfg42())
	if h42.sp.SetDeliveryCountLimit(3) == nil || h42.sp.SetPartitionMaxRecordLocks(200) == nil || h42.sp.SetRenewAcknowledge(false) == nil {
		t.Error("4.2 accepted a 4.3 group config")
	}
}
