package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// harness drives one share-partition the way a partition leader does: it keeps the log,
// reads it from the next fetch offset, stores writes in a StateStore, and renders the
// cache as a compact string for table tests.
type harness struct {
	t     *testing.T
	cfg   model.Config
	sp    *model.SharePartition
	log   []model.LogBatch
	now   int64
	store *model.StateStore
	open  map[model.WriteID]*model.Write

	compacted []int
}

func newHarness(t *testing.T, cfg model.Config) *harness {
	t.Helper()
	sp, err := model.New(cfg, 0)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &harness{t: t, cfg: cfg, sp: sp, store: model.NewStateStore(0, 0), open: map[model.WriteID]*model.Write{}}
}

func cfg42() model.Config { return model.DefaultConfig() }

func cfg41() model.Config {
	c := model.DefaultConfig()
	c.Version = model.Kafka41
	return c
}

// produce appends producer batches of the given sizes to the log.
func (h *harness) produce(sizes ...int) {
	next := int64(0)
	if n := len(h.log); n > 0 {
		next = h.log[n-1].Last + 1
	}
	for _, s := range sizes {
		h.log = append(h.log, model.LogBatch{First: next, Last: next + int64(s) - 1})
		next += int64(s)
	}
}

// skip leaves a compaction gap of n offsets in the log before the next batch.
func (h *harness) skip(n int) {
	last := int64(-1)
	if k := len(h.log); k > 0 {
		last = h.log[k-1].Last
	}
	// A zero-size marker batch is not allowed; remember the gap by producing and removing.
	h.log = append(h.log, model.LogBatch{First: last + 1, Last: last + int64(n)})
	h.compacted = append(h.compacted, len(h.log)-1)
}

// compact removes the batches marked by skip, leaving gaps.
func (h *harness) compact() {
	keep := h.log[:0]
	for i, lb := range h.log {
		drop := false
		for _, c := range h.compacted {
			if c == i {
				drop = true
			}
		}
		if !drop {
			keep = append(keep, lb)
		}
	}
	h.log = keep
	h.compacted = nil
}

// read returns the log batches a read at offset f returns (from the batch containing f).
func (h *harness) read(f int64) []model.LogBatch {
	for i, lb := range h.log {
		if lb.Last >= f {
			return h.log[i:]
		}
	}
	return nil
}

func (h *harness) fetch(member string, maxRecords int) string {
	return h.fetchP(member, model.FetchParams{MaxRecords: maxRecords, BatchSize: maxRecords})
}

func (h *harness) fetchP(member string, p model.FetchParams) string {
	h.t.Helper()
	rs, err := h.sp.Acquire(h.now, model.MemberID(member), p, h.read(h.sp.NextFetchOffset()), nil)
	if err != nil {
		h.t.Fatalf("Acquire: %v", err)
	}
	h.check()
	return ranges(rs)
}

func ranges(rs []model.AcquiredRange) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%d-%d@%d", r.First, r.Last, r.DeliveryCount))
	}
	return strings.Join(parts, " ")
}

var ackNames = map[string]model.AckType{"gap": model.AckGap, "accept": model.AckAccept, "release": model.AckRelease, "reject": model.AckReject, "renew": model.AckRenew}

// parseAcks parses "0-4:accept 5-6:release,reject".
func parseAcks(t *testing.T, spec string) []model.AckRange {
	t.Helper()
	var out []model.AckRange
	for _, part := range strings.Fields(spec) {
		var a, b int64
		rng, types, _ := strings.Cut(part, ":")
		if _, err := fmt.Sscanf(rng, "%d-%d", &a, &b); err != nil {
			if _, err := fmt.Sscanf(rng, "%d", &a); err != nil {
				t.Fatalf("bad ack spec %q", part)
			}
			b = a
		}
		r := model.AckRange{First: a, Last: b}
		for _, n := range strings.Split(types, ",") {
			ty, ok := ackNames[n]
			if !ok {
				ty = model.AckType(9)
			}
			r.Types = append(r.Types, ty)
		}
		out = append(out, r)
	}
	return out
}

// ack acknowledges and returns the write (nil if none) and the error code.
func (h *harness) ack(member, spec string) (*model.Write, model.ErrorCode) {
	h.t.Helper()
	w, err := h.sp.Acknowledge(h.now, model.MemberID(member), parseAcks(h.t, spec))
	h.check()
	if w != nil {
		h.open[w.ID] = w.Clone()
	}
	return w, model.CodeOf(err)
}

// ackOK acknowledges and completes the write successfully.
func (h *harness) ackOK(member, spec string) {
	h.t.Helper()
	w, code := h.ack(member, spec)
	if code != model.ErrNone {
		h.t.Fatalf("ack %s %q: %s", member, spec, code)
	}
	if w != nil {
		h.complete(w.ID, true)
	}
}

func (h *harness) complete(id model.WriteID, ok bool) {
	h.t.Helper()
	var werr error
	if ok {
		if err := h.store.Write(h.open[id]); err != nil {
			h.t.Fatalf("store write: %v", err)
		}
	} else {
		werr = &model.Error{Code: model.ErrCoordinatorNotAvailable, Offset: -1}
	}
	delete(h.open, id)
	if err := h.sp.CompleteWrite(h.now, id, werr); err != nil {
		h.t.Fatalf("CompleteWrite: %v", err)
	}
	h.check()
}

// advance moves virtual time, fires due locks and completes their writes successfully.
// It returns the number of expiry writes.
func (h *harness) advance(ms int64) int {
	h.t.Helper()
	h.now += ms
	ws := h.sp.ExpireLocks(h.now, nil)
	ids := make([]model.WriteID, 0, len(ws))
	for _, w := range ws {
		h.open[w.ID] = w.Clone()
		ids = append(ids, w.ID)
	}
	for _, id := range ids {
		h.complete(id, true)
	}
	h.check()
	return len(ws)
}

func (h *harness) leave(member string, ok bool) {
	h.t.Helper()
	w := h.sp.ReleaseMember(h.now, model.MemberID(member))
	if w != nil {
		h.open[w.ID] = w.Clone()
		h.complete(w.ID, ok)
	}
	h.check()
}

func (h *harness) check() {
	h.t.Helper()
	if err := h.sp.CheckConsistency(); err != nil {
		h.t.Fatalf("consistency: %v", err)
	}
}

// states renders every cached offset: "0:ACQ/c1/1 1:AVL/-/2 2:ACK/-/1 3:ARC/-/5* 4:ARG/-/3"
// (state/owner/delivery count, * = pending).
func (h *harness) states() string {
	var parts []string
	h.sp.ForEachRecord(func(v model.RecordView) bool {
		owner := string(v.Owner)
		if owner == "" {
			owner = "-"
		}
		p := ""
		if v.Pending {
			p = "*"
		}
		name := v.State.String()[:3]
		if v.State == model.Archiving {
			name = "ARG" // ARCHIVING, not ARCHIVED
		}
		parts = append(parts, fmt.Sprintf("%d:%s/%s/%d%s", v.Offset, name, owner, v.DeliveryCount, p))
		return true
	})
	return strings.Join(parts, " ")
}

// span renders SPSO, SPEO and the in-flight window.
func (h *harness) span() string {
	return fmt.Sprintf("spso=%d speo=%d window=%d next=%d", h.sp.StartOffset(), h.sp.EndOffset(), h.sp.InFlightCount(), h.sp.NextFetchOffset())
}

func (h *harness) eq(what, got, want string) {
	h.t.Helper()
	if got != want {
		h.t.Errorf("%s:\n got  %s\n want %s", what, got, want)
	}
}
