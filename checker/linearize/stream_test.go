package linearize

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// streamAll hands a whole history to a Stream, the operations first, and finishes it: with
// no Advance it is Check.
func streamAll(h []sim.Op, hidden []sim.HiddenEvent, o Options) *Result {
	s := NewStream(o)
	for i := range h {
		s.Add(&h[i])
	}
	for i := range hidden {
		s.Hidden(&hidden[i])
	}
	return s.Finish()
}

func batchOf(client string, first, last int64, dc int16, call, ret int64) sim.Op {
	op := fetch(client, dc, call, ret)
	op.Acquired[0].First, op.Acquired[0].Last = first, last
	return op
}

func acksOf(client string, t model.AckType, code string, first, last int64, call, ret int64) sim.Op {
	op := ack(client, t, code, call, ret)
	op.Acks[0].First, op.Acks[0].Last = first, last
	return op
}

// Offsets below Advance's floor are checked and forgotten: the operations that name only
// them go, a later delivery of one is a failure of its own, a later acknowledgement of
// one is skipped, and the offsets above the floor are checked at the end.
func TestStreamForgetsFinishedOffsets(t *testing.T) {
	s := NewStream(testSpec(false))
	for _, op := range []sim.Op{
		batchOf("a", 0, 9, 1, 0, 2),
		acksOf("a", accept, "NONE", 0, 4, 10, 12),
	} {
		s.Add(&op)
	}
	s.Advance("g", "t/0", 5)
	sh := s.shares[shareKey{"g", "t/0"}]
	if len(sh.ops) != 1 || sh.floor != 5 {
		t.Fatalf("kept %d operations with floor %d; want the fetch (it names 5-9) with floor 5", len(sh.ops), sh.floor)
	}
	for _, op := range []sim.Op{
		acksOf("a", accept, "NONE", 3, 9, 20, 22), // 3-4 again: skipped; 5-9: checked
		batchOf("b", 2, 6, 2, 5000, 5002),         // 2-4 finished, 5-6 accepted: both fail
	} {
		s.Add(&op)
	}
	r := s.Finish()
	fs := r.Failures()
	if r.Verdict != porcupine.Illegal || len(fs) != 2 {
		t.Fatalf("verdict %s, failures %+v; want two", r.Verdict, fs)
	}
	if fs[0].Offsets != "2-4" || fs[0].Member != "b" || !strings.Contains(fs[0].Message, "finished offsets") {
		t.Errorf("first failure %+v, want the delivery of finished offsets 2-4 by b", fs[0])
	}
	if fs[1].Offsets != "5-6" || fs[1].Member != "b" {
		t.Errorf("second failure %+v, want offsets 5-6 by b", fs[1])
	}
	if r.Ops != 4 || r.Offsets != 10 {
		t.Errorf("%d operations over %d offsets, want 4 over 10", r.Ops, r.Offsets)
	}
	var buf bytes.Buffer
	if err := r.Visualize(&buf); err != nil || !strings.Contains(buf.String(), "<html") {
		t.Errorf("visualisation: %v", err)
	}
	// Only finished offsets delivered again: a page listing the failure.
	s = NewStream(testSpec(false))
	for _, op := range []sim.Op{batchOf("a", 0, 0, 1, 0, 2), acksOf("a", accept, "NONE", 0, 0, 10, 12)} {
		s.Add(&op)
	}
	s.Advance("g", "t/0", 1)
	late := batchOf("b", 0, 0, 2, 5000, 5002)
	s.Add(&late)
	r = s.Finish()
	buf.Reset()
	if err := r.Visualize(&buf); err != nil || !r.Failed() || !strings.Contains(buf.String(), "finished offsets") {
		t.Errorf("verdict %s, visualisation %q, %v", r.Verdict, buf.String(), err)
	}
}

// An acknowledgement cut to the offsets being checked keeps how many offsets it named in
// all: a two-offset acknowledgement failing with INVALID_RECORD_STATE proves nothing about
// either offset (Kafka may have failed it for the other one), a one-offset one proves the
// client did not hold it.
func TestStreamKeepsTheAcknowledgementSize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first int64 // the failing acknowledgement names first..1
		legal bool
	}{
		{"two offsets", 0, true},
		{"one offset", 1, false},
	} {
		h := []sim.Op{
			batchOf("a", 0, 1, 1, 0, 2),
			acksOf("a", accept, "NONE", 0, 0, 10, 12),
			acksOf("a", accept, irs, tc.first, 1, 20, 22),
		}
		want := porcupine.Illegal
		if tc.legal {
			want = porcupine.Ok
		}
		if r := Check(h, nil, testSpec(false)); r.Verdict != want {
			t.Fatalf("%s: Check says %s, want %s", tc.name, r.Verdict, want)
		}
		// Streamed, with offset 0 finished in between: the failing acknowledgement is cut
		// to offset 1 for the final check.
		s := NewStream(testSpec(false))
		s.Add(&h[0])
		s.Add(&h[1])
		s.Advance("g", "t/0", 1)
		s.Add(&h[2])
		if r := s.Finish(); r.Verdict != want {
			t.Errorf("%s: streamed verdict %s, want %s (failures %v)", tc.name, r.Verdict, want, r.Failures())
		}
	}
}

// The time limit bounds the time spent on a share-partition over the whole stream.
func TestStreamTimeLimitGivesUnknown(t *testing.T) {
	o := testSpec(false)
	o.TimeLimit = 1 // nanosecond
	s := NewStream(o)
	op := batchOf("a", 0, 0, 1, 0, 2)
	s.Add(&op)
	if r := s.Finish(); r.Verdict != porcupine.Unknown || len(r.Unknown()) != 1 || r.Failed() {
		t.Errorf("verdict %s, want Unknown", r.Verdict)
	}
}

// A failing class kept for the visualisation is copied out of the memory later checks
// reuse: the page drawn after many more ranges were checked is the page drawn right after
// the failure.
func TestStreamVisualisationSurvivesLaterChecks(t *testing.T) {
	failing := []sim.Op{
		batchOf("a", 0, 4, 1, 0, 2),
		batchOf("b", 0, 4, 2, 100, 102), // a still holds 0-4: a double hold
	}
	page := func(more int) string {
		s := NewStream(testSpec(false))
		for _, op := range failing {
			s.Add(&op)
		}
		s.Advance("g", "t/0", 5)
		for k := range more {
			first := int64(5 + 10*k)
			call := int64(10_000 * (k + 1))
			for _, op := range []sim.Op{batchOf("c", first, first+9, 1, call, call+2), acksOf("c", accept, "NONE", first, first+9, call+10, call+12)} {
				s.Add(&op)
			}
			s.Advance("g", "t/0", first+10)
		}
		r := s.Finish()
		if !r.Failed() {
			t.Fatalf("verdict %s, want the double hold found", r.Verdict)
		}
		var buf bytes.Buffer
		if err := r.Visualize(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if a, b := page(0), page(20); a != b {
		t.Errorf("the page changed after 20 more checked ranges (%d bytes, then %d)", len(a), len(b))
	}
}

// porcupine returns a failure before its other goroutines have stopped reading the
// inputs it was given, so a streamed check must not write over them: after a failing
// range, the next range is built in fresh memory and the failing range's inputs stay as
// they were.
func TestStreamLeavesFailedInputsAlone(t *testing.T) {
	s := NewStream(testSpec(false))
	for _, op := range []sim.Op{
		batchOf("a", 0, 4, 1, 0, 2),
		batchOf("b", 0, 4, 2, 100, 102), // a double hold: porcupine finds it
	} {
		s.Add(&op)
	}
	s.Advance("g", "t/0", 5)
	if !s.buf.stale {
		t.Fatal("a failing range did not mark its memory stale")
	}
	before := slices.Clone(s.buf.ins)
	inputs := s.buf.ins
	for k := range 5 {
		first, call := int64(5+10*k), int64(10_000*(k+1))
		for _, op := range []sim.Op{batchOf("c", first, first+9, 1, call, call+2), acksOf("c", accept, "NONE", first, first+9, call+10, call+12)} {
			s.Add(&op)
		}
		s.Advance("g", "t/0", first+10)
	}
	if len(before) == 0 || !slices.Equal(before, inputs) {
		t.Errorf("the failing range's inputs were written over (%d of them)", len(before))
	}
}
