package model_test

import (
	"errors"
	"testing"

	"github.com/sharesim/sharesim/model"
)

func cfg44(dlq bool) model.Config {
	c := model.DefaultConfig()
	c.Version = model.Kafka44
	c.DeliveryCountLimit = 2
	if dlq {
		c.DLQTopic = "dlq.g"
	}
	return c
}

var errProduce = errors.New("produce failed")

// dlq completes every outstanding DLQ produce (ok or failed) and their ARCHIVED writes,
// returning the requests.
func (h *harness) dlq(ok bool) []model.DLQRequest {
	h.t.Helper()
	qs := h.sp.TakeDLQRequests(nil)
	for _, q := range qs {
		var perr error
		if !ok {
			perr = errProduce
		}
		w, err := h.sp.CompleteDLQ(h.now, q.ID, perr)
		if err != nil {
			h.t.Fatalf("CompleteDLQ: %v", err)
		}
		h.open[w.ID] = w.Clone()
		h.complete(w.ID, true)
	}
	h.check()
	return qs
}

func reqs(qs []model.DLQRequest) string {
	var s string
	for _, q := range qs {
		if s != "" {
			s += " "
		}
		s += ranges([]model.AcquiredRange{{First: q.First, Last: q.Last, DeliveryCount: q.DeliveryCount}}) + ":" + q.Cause.String()
		if q.Resumed {
			s += "(resumed)"
		}
	}
	return s
}

// KIP-1191 (Kafka 4.4): with the dead-letter queue on, REJECT and a release at the limit go
// to ARCHIVING (persisted by the ordinary write), which holds SPSO and counts in the window;
// the DLQ step then archives, counts the records delivery-complete, and writes ARCHIVED.
// Without the queue (4.4 without a topic, or 4.3) the same steps archive at once.
func TestDLQTransitions(t *testing.T) {
	for _, c := range []struct {
		name             string
		cfg              model.Config
		afterAck, afterQ string
		req              string
	}{
		{"4.4 with DLQ", cfg44(true), "0:ACK/-/1 1:ARG/-/1 2:ACQ/c1/1", "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", "1-1@1:rejected"},
		{"4.4 without a DLQ topic", cfg44(false), "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", ""},
		{"4.4 share.version 1", func() model.Config { c := cfg44(true); c.ShareVersion = 1; return c }(), "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", ""},
		{"4.3", func() model.Config { c := cfg44(false); c.Version = model.Kafka43; return c }(), "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", "0:ACK/-/1 1:ARC/-/1 2:ACQ/c1/1", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.cfg)
			h.produce(3)
			h.fetch("c1", 3)
			h.ackOK("c1", "0:accept 1:reject")
			h.eq("after the ack", h.states(), c.afterAck)
			if c.req != "" {
				h.eq("span while ARCHIVING", h.span(), "spso=1 speo=2 window=2 next=3")
				if got := h.sp.DeliveryCompleteCount(); got != 0 {
					t.Errorf("delivery-complete count while ARCHIVING: %d, want 0", got)
				}
				if st := h.store.Snapshot(); len(st.Batches) != 2 || st.Batches[1].State != model.Archiving {
					t.Errorf("stored %v, want ARCHIVING persisted", st.Batches)
				}
			}
			qs := h.dlq(true)
			h.eq("DLQ requests", reqs(qs), c.req)
			h.eq("after the DLQ step", h.states(), c.afterQ)
			h.eq("span after the DLQ step", h.span(), "spso=2 speo=2 window=1 next=3")
			if c.req != "" {
				if st := h.sp.Stats(); st.DLQRecordsRejected != 1 || st.DLQRequests != 1 {
					t.Errorf("stats %+v", st)
				}
			}
		})
	}
}

// The delivery limit: a release, an expiry and a session end at the limit go to ARCHIVING
// with cause limit; a lock-fired rollback at the limit goes to ARCHIVED with no DLQ step.
func TestDLQAtTheLimit(t *testing.T) {
	t.Run("release", func(t *testing.T) {
		h := newHarness(t, cfg44(true))
		h.produce(1)
		h.fetch("c1", 1)
		h.ackOK("c1", "0:release")
		h.fetch("c1", 1)
		h.ackOK("c1", "0:release")
		h.eq("states", h.states(), "0:ARG/-/2")
		h.eq("requests", reqs(h.dlq(true)), "0-0@2:limit")
		h.eq("states", h.states(), "")
		h.eq("span", h.span(), "spso=1 speo=1 window=0 next=1")
	})
	t.Run("expiry, write failed", func(t *testing.T) {
		h := newHarness(t, cfg44(true))
		h.produce(1)
		h.fetch("c1", 1)
		h.advance(30000)
		h.fetch("c1", 1)
		h.now += 30000
		ws := h.sp.ExpireLocks(h.now, nil)
		if len(ws) != 1 || ws[0].Batches[0].State != model.Archiving {
			t.Fatalf("expiry write %+v, want ARCHIVING", ws)
		}
		h.open[ws[0].ID] = ws[0].Clone()
		if len(h.sp.TakeDLQRequests(nil)) != 0 {
			t.Error("DLQ step before the expiry write completed")
		}
		h.complete(ws[0].ID, false) // the expiry path goes on whatever the result
		h.eq("requests", reqs(h.dlq(false)), "0-0@2:limit")
		h.eq("states", h.states(), "")
		if st := h.sp.Stats(); st.DLQProduceFailed != 1 || st.DLQRecordsLimit != 0 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("session end", func(t *testing.T) {
		h := newHarness(t, cfg44(true))
		h.produce(1)
		h.fetch("c1", 1)
		h.advance(30000)
		h.fetch("c1", 1)
		h.leave("c1", true)
		h.eq("states", h.states(), "0:ARG/-/2")
		h.eq("requests", reqs(h.dlq(true)), "0-0@2:limit")
	})
	t.Run("rollback after the lock fired", func(t *testing.T) {
		h := newHarness(t, cfg44(true))
		h.produce(1)
		h.fetch("c1", 1)
		h.advance(30000)
		h.fetch("c1", 1)
		w, _ := h.ack("c1", "0:reject")
		h.eq("pending", h.states(), "0:ARG/-/2*")
		h.now += 30000
		if ws := h.sp.ExpireLocks(h.now, nil); len(ws) != 0 {
			t.Fatalf("expiry of a pending record wrote %v", ws)
		}
		h.complete(w.ID, false)
		h.eq("rolled back", h.states(), "0:ARC/-/2")
		if qs := h.sp.TakeDLQRequests(nil); len(qs) != 0 {
			t.Errorf("DLQ requests %v after a rollback at the limit", reqs(qs))
		}
	})
	t.Run("ack write fails: rolled back to ACQUIRED", func(t *testing.T) {
		h := newHarness(t, cfg44(true))
		h.produce(1)
		h.fetch("c1", 1)
		w, _ := h.ack("c1", "0:reject")
		h.complete(w.ID, false)
		h.eq("rolled back", h.states(), "0:ACQ/c1/1")
		if qs := h.sp.TakeDLQRequests(nil); len(qs) != 0 {
			t.Errorf("DLQ requests %v after a failed write", reqs(qs))
		}
	})
	t.Run("REJECT below the limit, rollback after the lock fired: AVAILABLE", func(t *testing.T) {
		h := newHarness(t, cfg44(true))
		h.produce(1)
		h.fetch("c1", 1)
		w, _ := h.ack("c1", "0:reject")
		h.now += 30000
		h.sp.ExpireLocks(h.now, nil)
		h.complete(w.ID, false)
		h.eq("released", h.states(), "0:AVA/-/1")
	})
}

// ARCHIVING is untouched by log-start moves, holds SPSO, and blocks nothing but itself;
// the gate is read at every transition; a reload resumes the DLQ step even with the queue
// off, so a record can reach the topic twice.
func TestDLQLogStartGateAndReload(t *testing.T) {
	h := newHarness(t, cfg44(true))
	h.produce(1, 1)
	h.fetch("c1", 2)
	h.ackOK("c1", "0:reject")
	h.sp.MoveLogStartOffset(1)
	h.check()
	h.eq("after the log-start move", h.states(), "0:ARG/-/1 1:ACQ/c1/1")
	if err := h.sp.SetDLQTopic(""); err != nil {
		t.Fatal(err)
	}
	h.ackOK("c1", "1:reject")
	h.eq("gate off: ARCHIVED at once", h.states(), "0:ARG/-/1 1:ARC/-/1")

	// The log-start move took SPSO past the ARCHIVING record and the next write carried
	// it: the share coordinator pruned the persisted ARCHIVING, so a new leader would
	// never send it to the DLQ.
	if st := h.store.Snapshot(); st.StartOffset != 1 || len(st.Batches) != 1 || st.Batches[0].First != 1 {
		t.Errorf("stored %+v, want start 1 with offset 0 pruned", st)
	}

	// Failover before the DLQ produce ended: the new leader resends.
	h = newHarness(t, cfg44(true))
	h.produce(1)
	h.fetch("c1", 1)
	h.ackOK("c1", "0:reject")
	if err := h.sp.SetDLQTopic(""); err != nil {
		t.Fatal(err)
	}
	snap := h.store.Snapshot()
	sp2, err := model.Load(h.sp.Config(), snap, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.sp = sp2
	h.eq("reloaded", h.states(), "0:ARG/-/1")
	h.eq("resumed", reqs(h.dlq(true)), "0-0@1:rejected(resumed)")
	h.eq("done", h.states(), "")

	// Before 4.4 a persisted ARCHIVING batch cannot be loaded.
	snap.Batches = []model.PersistedBatch{{First: 0, Last: 0, State: model.Archiving, DeliveryCount: 1}}
	snap.StartOffset = 0
	c := model.DefaultConfig()
	c.Version = model.Kafka43
	if _, err := model.Load(c, snap, 1, 0); err == nil {
		t.Error("4.3 loaded an ARCHIVING batch")
	}
	// 4.4 infers the cause from the delivery count: at the limit it is "limit".
	snap.Batches[0].DeliveryCount = 2
	sp3, err := model.Load(cfg44(false), snap, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if qs := sp3.TakeDLQRequests(nil); reqs(qs) != "0-0@2:limit(resumed)" {
		t.Errorf("reload requests %q", reqs(qs))
	}
}

// The DLQ retry policy: 5 attempts, 2/4/8/16 s between them, capped at 30 s.
func TestDLQBackoff(t *testing.T) {
	want := []int64{1000, 2000, 4000, 8000, 16000, 30000, 30000}
	for a, w := range want {
		if got := model.DLQBackoffMs(a); got != w {
			t.Errorf("backoff after %d attempts: %d, want %d", a, got, w)
		}
	}
	if model.DLQMaxAttempts != 5 {
		t.Errorf("attempts %d", model.DLQMaxAttempts)
	}
}

// The gate needs Kafka 4.4.
func TestDLQConfig(t *testing.T) {
	c := model.DefaultConfig()
	c.Version = model.Kafka43
	c.DLQTopic = "dlq"
	if c.Validate() == nil || c.DLQEnabled() {
		t.Error("4.3 accepted a DLQ topic")
	}
	c.DLQTopic, c.ShareVersion = "", 2
	if c.Validate() == nil {
		t.Error("4.3 accepted share.version 2")
	}
	if !cfg44(true).DLQEnabled() || cfg44(false).DLQEnabled() {
		t.Error("4.4 gate")
	}
}
