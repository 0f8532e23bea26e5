package model_test

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// Each case pins one rule of docs/semantics.md (section numbers refer to the Kafka
// semantics reference the project models).
var ruleCases = []struct {
	name string
	rule string
	cfg  func() model.Config
	run  func(h *harness)
}{
	{"new records enter ACQUIRED with delivery count 1 and a lock", "§2.2 T-ACQ, §3.1", cfg42, func(h *harness) {
		h.produce(3)
		h.now = 1000
		h.eq("fetch", h.fetch("c1", 500), "0-2@1")
		h.eq("states", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c1/1")
		v, _ := h.sp.Record(1)
		if !v.HasLock || v.LockDeadlineMs != 31000 {
			h.t.Errorf("lock: %+v, want deadline 31000", v)
		}
		h.eq("span", h.span(), "spso=0 speo=2 window=3 next=3")
	}},
	{"batch_optimized takes whole producer batches beyond MaxRecords", "§4.4", cfg42, func(h *harness) {
		h.produce(4, 4, 4)
		// budget 5 → cut after the log batch holding offset 4, so 0-7; one range since the
		// second batch starts only 4 offsets after the range start (< BatchSize 5).
		h.eq("fetch", h.fetch("c1", 5), "0-7@1")
		h.eq("span", h.span(), "spso=0 speo=7 window=8 next=8")
	}},
	{"batch_optimized cuts ranges at BatchSize on batch boundaries", "§4.4", cfg42, func(h *harness) {
		h.produce(3, 3, 3, 3)
		h.eq("fetch", h.fetchP("c1", model.FetchParams{MaxRecords: 100, BatchSize: 4}), "0-5@1 6-11@1")
	}},
	{"record_limit acquires exactly MaxRecords and leaves the tail AVAILABLE at count 0", "§4.4 KIP-1206", cfg42, func(h *harness) {
		h.produce(10)
		h.eq("fetch", h.fetchP("c1", model.FetchParams{MaxRecords: 3, BatchSize: 3, Mode: model.RecordLimit}), "0-2@1")
		h.eq("states", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c1/1 3:AVA/-/0 4:AVA/-/0 5:AVA/-/0 6:AVA/-/0 7:AVA/-/0 8:AVA/-/0 9:AVA/-/0")
		h.eq("span", h.span(), "spso=0 speo=9 window=10 next=3")
		h.eq("fetch2", h.fetchP("c2", model.FetchParams{MaxRecords: 3, BatchSize: 3, Mode: model.RecordLimit}), "3-5@1")
	}},
	{"ACCEPT is provisional until the write commits, then SPSO advances", "§2.2 T-ACCEPT, §5.2, §6.4", cfg42, func(h *harness) {
		h.produce(3)
		h.fetch("c1", 500)
		w, code := h.ack("c1", "0-2:accept")
		if code != model.ErrNone || w == nil {
			h.t.Fatalf("ack: %v %v", w, code)
		}
		h.eq("pending", h.states(), "0:ACK/-/1* 1:ACK/-/1* 2:ACK/-/1*")
		h.eq("span before", h.span(), "spso=0 speo=2 window=3 next=3")
		h.complete(w.ID, true)
		h.eq("span after", h.span(), "spso=3 speo=3 window=0 next=3")
		h.eq("states", h.states(), "")
	}},
	{"RELEASE makes records available again, redelivered lowest offset first", "§2.2 T-RELEASE, §4.2", cfg42, func(h *harness) {
		h.produce(2, 2)
		h.eq("fetch", h.fetch("c1", 500), "0-3@1")
		h.ackOK("c1", "2-3:release")
		h.produce(2)
		h.eq("next", h.span(), "spso=0 speo=3 window=4 next=2")
		h.eq("refetch", h.fetch("c2", 500), "2-3@2 4-5@1")
	}},
	{"RELEASE at the delivery limit archives", "§3.2", func() model.Config { c := cfg42(); c.DeliveryCountLimit = 2; return c }, func(h *harness) {
		h.produce(1)
		h.fetch("c1", 1)
		h.ackOK("c1", "0:release")
		h.eq("second delivery", h.fetch("c1", 1), "0-0@2")
		h.ackOK("c1", "0:release")
		h.eq("span", h.span(), "spso=1 speo=1 window=0 next=1")
		if got := h.sp.Stats().ArchivedAtLimit; got != 1 {
			h.t.Errorf("ArchivedAtLimit = %d, want 1", got)
		}
	}},
	{"REJECT and GAP archive; mixed per-offset types in one range", "§2.2 T-REJECT T-GAP, §6.1", cfg42, func(h *harness) {
		h.produce(4)
		h.fetch("c1", 500)
		w, code := h.ack("c1", "0-3:accept,reject,gap,release")
		if code != model.ErrNone {
			h.t.Fatalf("ack: %s", code)
		}
		h.eq("pending", h.states(), "0:ACK/-/1* 1:ARC/-/1* 2:ARC/-/1* 3:AVA/-/1*")
		h.complete(w.ID, true)
		// SPSO passes 0-2 but the per-offset batch stays until all its offsets are terminal.
		h.eq("after", h.states(), "0:ACK/-/1 1:ARC/-/1 2:ARC/-/1 3:AVA/-/1")
		h.eq("span", h.span(), "spso=3 speo=3 window=1 next=3")
	}},
	{"lock expiry releases, keeps the delivery count, one write per whole-batch lock", "§2.2 T-EXPIRE, §7.2", cfg42, func(h *harness) {
		h.produce(3, 2)
		h.fetchP("c1", model.FetchParams{MaxRecords: 500, BatchSize: 3})
		if n := h.advance(29999); n != 0 {
			h.t.Errorf("expired early: %d writes", n)
		}
		if n := h.advance(1); n != 2 {
			h.t.Errorf("expiry writes = %d, want 2 (one per acquired range)", n)
		}
		h.eq("states", h.states(), "0:AVA/-/1 1:AVA/-/1 2:AVA/-/1 3:AVA/-/1 4:AVA/-/1")
		if got := h.sp.Stats().AcquisitionLockTimeouts; got != 5 {
			h.t.Errorf("AcquisitionLockTimeouts = %d, want 5", got)
		}
	}},
	{"lock expiry at the limit archives; split batches expire one write per offset", "§3.2, §7.2", func() model.Config { c := cfg42(); c.DeliveryCountLimit = 2; return c }, func(h *harness) {
		h.produce(3)
		h.fetch("c1", 500)
		h.ackOK("c1", "1:accept") // splits the batch
		h.advance(30000)
		h.eq("after 1st", h.states(), "0:AVA/-/1 1:ACK/-/1 2:AVA/-/1")
		h.fetch("c1", 500) // per-offset redelivery: 0 and 2
		if n := h.advance(30000); n != 2 {
			h.t.Errorf("expiry writes = %d, want 2", n)
		}
		h.eq("span", h.span(), "spso=3 speo=3 window=0 next=3")
	}},
	{"an ack whose lock expired meanwhile fails with INVALID_RECORD_STATE", "§6.3", cfg42, func(h *harness) {
		h.produce(1)
		h.fetch("c1", 1)
		h.advance(30000)
		_, code := h.ack("c1", "0:accept")
		h.eq("code", code.String(), "INVALID_RECORD_STATE")
	}},
	{"the same member re-acquiring lets a stale ack apply to the new delivery", "§6.3", cfg42, func(h *harness) {
		h.produce(1)
		h.fetch("c1", 1)
		h.advance(30000)
		h.eq("refetch", h.fetch("c1", 1), "0-0@2")
		h.ackOK("c1", "0:accept")
		h.eq("span", h.span(), "spso=1 speo=1 window=0 next=1")
	}},
	{"acknowledgement errors: other owner, not acquired, pending, outside the cache, malformed", "§6.2, §6.3", cfg42, func(h *harness) {
		h.produce(4)
		h.fetch("c1", 500)
		cases := []struct{ member, spec, want string }{
			{"c2", "0:accept", "INVALID_RECORD_STATE"},
			{"c1", "2-9:accept", "INVALID_REQUEST"},
			{"c1", "2-1:accept", "INVALID_REQUEST"},
			{"c1", "0-3:accept,reject", "INVALID_REQUEST"},
			{"c1", "0:bogus", "INVALID_REQUEST"},
			{"c1", "2-3:accept 0-1:accept", "INVALID_REQUEST"},
		}
		for _, c := range cases {
			_, code := h.ack(c.member, c.spec)
			h.eq(c.member+" "+c.spec, code.String(), c.want)
		}
		w, _ := h.ack("c1", "0:accept")
		_, code := h.ack("c1", "0:release")
		h.eq("second ack while pending", code.String(), "INVALID_RECORD_STATE")
		h.complete(w.ID, true)
		_, code = h.ack("c1", "0:accept")
		h.eq("ack below SPSO is ignored", code.String(), "NONE")
	}},
	{"an acknowledgement call is atomic", "§6.5", cfg42, func(h *harness) {
		h.produce(2, 2)
		h.fetch("c1", 2) // 0-1
		h.fetch("c2", 2) // 2-3
		_, code := h.ack("c1", "0-1:accept 2-3:accept")
		h.eq("code", code.String(), "INVALID_RECORD_STATE")
		h.eq("unchanged", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c2/1 3:ACQ/c2/1")
	}},
	{"RENEW restarts the lock with the full duration and writes nothing", "§7.4 KIP-1222", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		h.now += 20000
		w, code := h.ack("c1", "0-1:renew")
		if w != nil || code != model.ErrNone {
			h.t.Fatalf("renew: write %v code %s", w, code)
		}
		h.advance(20000) // 40 s after acquisition, 20 s after renewal
		h.eq("still held", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1")
		h.advance(10000)
		h.eq("expired", h.states(), "0:AVA/-/1 1:AVA/-/1")
	}},
	{"RENEW does not exist in Kafka 4.1", "§7.4", cfg41, func(h *harness) {
		h.produce(1)
		h.fetch("c1", 1)
		_, code := h.ack("c1", "0:renew")
		h.eq("code", code.String(), "INVALID_REQUEST")
	}},
	{"member leave releases at once and keeps the count (4.2)", "§7.5 KAFKA-19972", func() model.Config { c := cfg42(); c.DeliveryCountLimit = 2; return c }, func(h *harness) {
		h.produce(2, 1)
		h.fetch("c1", 2) // 0-1
		h.fetch("c2", 1) // 2
		h.leave("c1", true)
		h.eq("released", h.states(), "0:AVA/-/1 1:AVA/-/1 2:ACQ/c2/1")
		h.fetch("c3", 2)
		h.leave("c3", true)
		h.eq("archived at limit", h.states(), "2:ACQ/c2/1")
		h.eq("span", h.span(), "spso=2 speo=2 window=1 next=3")
	}},
	{"member leave lowers the count and ignores the limit (4.1)", "§7.5", func() model.Config { c := cfg41(); c.DeliveryCountLimit = 2; return c }, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 2)
		h.leave("c1", true)
		h.eq("decremented", h.states(), "0:AVA/-/0 1:AVA/-/0")
		h.fetch("c1", 2)
		h.fetch("c1", 2)
		h.leave("c1", true)
		h.eq("never archived on leave", h.states(), "0:AVA/-/0 1:AVA/-/0")
	}},
	{"a failed ack write rolls back to ACQUIRED", "§6.4", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		w, _ := h.ack("c1", "0-1:accept")
		h.complete(w.ID, false)
		h.eq("rolled back", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1")
	}},
	{"a lock firing during the ack write: failure releases (4.2)", "§7.3 KAFKA-19476", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		w, _ := h.ack("c1", "0-1:accept")
		if n := h.advance(30000); n != 0 {
			h.t.Errorf("pending records must not expire: %d writes", n)
		}
		h.complete(w.ID, false)
		h.eq("released", h.states(), "0:AVA/-/1 1:AVA/-/1")
	}},
	{"a lock firing during the ack write: failure leaves a dead lock (4.1)", "§6.4", cfg41, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		w, _ := h.ack("c1", "0-1:accept")
		h.advance(30000)
		h.complete(w.ID, false)
		h.eq("acquired", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1")
		v, _ := h.sp.Record(0)
		if v.HasLock {
			h.t.Errorf("4.1 restores ACQUIRED with no live lock, got %+v", v)
		}
	}},
	{"a lock firing during the ack write: success stands", "§7.3", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		w, _ := h.ack("c1", "0-1:accept")
		h.advance(30000)
		h.complete(w.ID, true)
		h.eq("span", h.span(), "spso=2 speo=2 window=0 next=2")
	}},
	{"head rule passes terminal offsets inside a split batch", "§5.2", cfg42, func(h *harness) {
		h.produce(5)
		h.fetch("c1", 500)
		h.ackOK("c1", "1-2:accept")
		h.eq("stuck behind 0", h.span(), "spso=0 speo=4 window=5 next=5")
		h.ackOK("c1", "0:reject")
		h.eq("advanced", h.span(), "spso=3 speo=4 window=2 next=5")
		h.ackOK("c1", "3-4:accept")
		h.eq("empty", h.span(), "spso=5 speo=5 window=0 next=5")
	}},
	{"log start move archives AVAILABLE records and leaves ACQUIRED ones", "§5.3 T-LSO", cfg42, func(h *harness) {
		h.produce(2, 2, 2)
		h.fetch("c1", 2)             // 0-1
		h.fetch("c2", 2)             // 2-3
		h.ackOK("c2", "2-3:release") // 2-3 available
		h.sp.MoveLogStartOffset(5)
		h.eq("states", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ARC/-/1 3:ARC/-/1")
		h.eq("span", h.span(), "spso=5 speo=5 window=1 next=5")
		_, code := h.ack("c1", "0-1:accept")
		h.eq("ack below SPSO", code.String(), "NONE")
		h.advance(30000)
		h.eq("archived on expiry", h.states(), "")
		// Step 3 of the head rule is unconditional (as in Kafka): SPSO steps back to 4,
		// below the log start, until the next fetch finds offset 4 out of range.
		h.eq("span", h.span(), "spso=4 speo=4 window=0 next=4")
		h.sp.MoveLogStartOffset(5)
		h.eq("after the next fetch", h.span(), "spso=5 speo=5 window=0 next=5")
	}},
	{"in-flight cap gates fetches by window, not by acquired count", "§4.6", func() model.Config {
		c := cfg42()
		c.RelaxRanges, c.PartitionMaxRecordLocks = true, 4
		return c
	}, func(h *harness) {
		h.produce(2, 2, 2, 2)
		h.eq("first", h.fetch("c1", 2), "0-1@1")
		h.eq("second", h.fetch("c2", 2), "2-3@1")
		h.eq("at cap", h.fetch("c3", 2), "")
		h.ackOK("c2", "2-3:accept") // terminal but SPSO stuck behind 0-1: window still 4
		h.eq("still at cap", h.fetch("c3", 2), "")
		h.ackOK("c1", "0-1:accept")
		h.eq("room again", h.fetch("c3", 2), "4-5@1")
	}},
	{"4.2 trims the budget to the room under the cap; 4.1 only gates", "§4.6 KAFKA-19555", func() model.Config {
		c := cfg42()
		c.RelaxRanges, c.PartitionMaxRecordLocks = true, 5
		return c
	}, func(h *harness) {
		h.produce(1, 1, 1, 1, 1, 1, 1, 1)
		h.eq("first", h.fetch("c1", 3), "0-2@1")
		h.eq("trimmed to 2", h.fetch("c2", 3), "3-4@1")
	}},
	{"4.1 overshoots the cap by a whole fetch", "§4.6", func() model.Config {
		c := cfg41()
		c.RelaxRanges, c.PartitionMaxRecordLocks = true, 5
		return c
	}, func(h *harness) {
		h.produce(1, 1, 1, 1, 1, 1, 1, 1)
		h.eq("first", h.fetch("c1", 3), "0-2@1")
		h.eq("not trimmed", h.fetch("c2", 3), "3-5@1")
		h.eq("gated", h.fetch("c3", 3), "")
	}},
	{"throttled redelivery halves a batch and isolates last attempts", "§3.4 KAFKA-17541", cfg42, func(h *harness) {
		// limit 5 → T = 3.
		h.produce(8)
		for dc := 1; dc <= 2; dc++ {
			h.fetch("c1", 500)
			h.advance(30000)
		}
		// dc 2 < T: the whole batch goes out a third time.
		h.eq("third delivery whole", h.fetch("c1", 500), "0-7@3")
		h.advance(30000)
		// dc 3 ≥ T: at most 8 >> (3-3+1) = 4 offsets, and nothing else in this fetch.
		h.eq("fourth: half the batch", h.fetch("c1", 500), "0-3@4")
		h.eq("the other half in a later fetch", h.fetch("c2", 500), "4-7@4")
		h.advance(30000)
		h.eq("last attempts one at a time", h.fetch("c1", 500), "0-0@5")
		h.eq("then the next", h.fetch("c2", 500), "1-1@5")
	}},
	{"Kafka 4.1 redelivers the whole batch until the limit", "§3.4", cfg41, func(h *harness) {
		h.produce(8)
		for dc := 1; dc <= 4; dc++ {
			h.fetch("c1", 500)
			h.advance(30000)
		}
		h.eq("fifth", h.fetch("c1", 500), "0-7@5")
		h.advance(30000)
		h.eq("archived", h.span(), "spso=8 speo=8 window=0 next=8")
	}},
	{"compaction gap: records missing from the log are archived", "§2.2 T-COMPACT", cfg42, func(h *harness) {
		h.produce(3)
		h.skip(2)
		h.produce(2)
		h.fetch("c1", 500)
		h.eq("holes acquired with the range", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c1/1 3:ACQ/c1/1 4:ACQ/c1/1 5:ACQ/c1/1 6:ACQ/c1/1")
		h.ackOK("c1", "0-2:accept 3-4:gap 5-6:accept")
		h.eq("span", h.span(), "spso=7 speo=7 window=0 next=7")
	}},
	{"read_committed archives aborted transactional batches and cuts them out", "§2.2 T-ABORT", func() model.Config { c := cfg42(); c.IsolationLevel = model.ReadCommitted; return c }, func(h *harness) {
		h.produce(2, 2, 2)
		h.log[1].Aborted = true
		h.eq("fetch", h.fetch("c1", 500), "0-1@1 4-5@1")
		h.eq("states", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ARC/-/1 3:ARC/-/1 4:ACQ/c1/1 5:ACQ/c1/1")
	}},
	{"compaction: cached AVAILABLE records the log no longer has are archived at fetch", "§2.2 T-COMPACT", cfg42, func(h *harness) {
		h.produce(3, 2)
		h.fetchP("c1", model.FetchParams{MaxRecords: 3, BatchSize: 3})
		h.ackOK("c1", "0-2:release")
		h.log = h.log[1:] // the compacted log no longer has 0-2
		h.eq("fetch", h.fetch("c2", 500), "3-4@1")
		h.eq("states", h.states(), "0:ARC/-/1 1:ARC/-/1 2:ARC/-/1 3:ACQ/c2/1 4:ACQ/c2/1")
		h.ackOK("c2", "3-4:accept")
		h.eq("span", h.span(), "spso=5 speo=5 window=0 next=5")
	}},
	{"SPSO jumps a compaction hole between cached batches", "§5.2 step 4", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		h.skip(3)
		h.produce(2)
		h.compact()
		h.fetch("c1", 500) // 5-6
		_, code := h.ack("c1", "3:accept")
		h.eq("ack wholly inside the hole", code.String(), "INVALID_REQUEST")
		h.ackOK("c1", "0-1:accept 2-5:accept") // the hole's offsets are skipped
		h.eq("jumped", h.span(), "spso=6 speo=6 window=1 next=7")
	}},
	{"a force-archived record is not revived by a failed release write", "§2.1 forced archiving", cfg42, func(h *harness) {
		h.produce(2, 2)
		h.fetch("c1", 500)
		w, _ := h.ack("c1", "0-3:release")
		h.sp.MoveLogStartOffset(2)
		h.complete(w.ID, false)
		h.eq("states", h.states(), "0:ARC/-/1 1:ARC/-/1 2:ACQ/c1/1 3:ACQ/c1/1")
	}},
	{"a RENEW applied before a failing range stays", "§6.5 quirk", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		h.now += 10000
		_, code := h.ack("c1", "0:renew 1:bogus")
		h.eq("malformed", code.String(), "INVALID_REQUEST")
		_, code = h.ack("c1", "0:renew 1-5:accept")
		h.eq("out of range", code.String(), "INVALID_REQUEST")
		v, _ := h.sp.Record(0)
		if v.LockDeadlineMs != 40000 {
			h.t.Errorf("offset 0 deadline %d, want 40000 (renewed at 10 s)", v.LockDeadlineMs)
		}
	}},
	{"an acknowledgement range starting below SPSO applies from SPSO", "§6.3 step 2", cfg42, func(h *harness) {
		h.produce(4)
		h.fetch("c1", 500)
		h.ackOK("c1", "0-1:accept")
		h.eq("span", h.span(), "spso=2 speo=3 window=2 next=4")
		h.ackOK("c1", "0-3:accept")
		h.eq("drained", h.span(), "spso=4 speo=4 window=0 next=4")
	}},
	{"leave releases only the leaving member's records", "§7.5", cfg42, func(h *harness) {
		h.produce(4)
		h.fetchP("c1", model.FetchParams{MaxRecords: 2, BatchSize: 2, Mode: model.RecordLimit})
		h.fetchP("c2", model.FetchParams{MaxRecords: 1, BatchSize: 1, Mode: model.RecordLimit})
		h.fetchP("c1", model.FetchParams{MaxRecords: 1, BatchSize: 1, Mode: model.RecordLimit})
		h.eq("interleaved", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1 2:ACQ/c2/1 3:ACQ/c1/1")
		h.leave("c1", true)
		h.eq("after", h.states(), "0:AVA/-/1 1:AVA/-/1 2:ACQ/c2/1 3:AVA/-/1")
	}},
	{"a failed leave write rolls back to ACQUIRED", "§7.5", cfg42, func(h *harness) {
		h.produce(2)
		h.fetch("c1", 500)
		h.leave("c1", false)
		h.eq("held again", h.states(), "0:ACQ/c1/1 1:ACQ/c1/1")
	}},
	{"lock expiry of a batch straddling SPSO archives below and releases above", "§7.2", cfg42, func(h *harness) {
		h.produce(4)
		h.fetch("c1", 500)
		h.sp.MoveLogStartOffset(2)
		h.advance(30000)
		// The batch is split; 0-1 stay cached (terminal) until the whole batch is done.
		h.eq("states", h.states(), "0:ARC/-/1 1:ARC/-/1 2:AVA/-/1 3:AVA/-/1")
		h.eq("span", h.span(), "spso=2 speo=3 window=2 next=2")
	}},
	{"state writes carry SPSO at issue time and the delivery-complete count", "§6.4, §12 KIP-1226", cfg42, func(h *harness) {
		h.produce(4)
		h.fetch("c1", 500)
		h.ackOK("c1", "1-2:accept")
		w, _ := h.ack("c1", "0:accept")
		if w.StartOffset != 0 || w.DeliveryCompleteCount != 3 {
			h.t.Errorf("write start %d dcc %d, want 0 and 3", w.StartOffset, w.DeliveryCompleteCount)
		}
		h.complete(w.ID, true)
		w, _ = h.ack("c1", "3:release")
		if w.StartOffset != 3 || w.DeliveryCompleteCount != 0 {
			h.t.Errorf("write start %d dcc %d, want 3 and 0", w.StartOffset, w.DeliveryCompleteCount)
		}
	}},
}

func TestRules(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.cfg())
			c.run(h)
			if t.Failed() {
				t.Logf("rule: %s; final: %s | %s", c.rule, h.states(), h.span())
			}
		})
	}
}
