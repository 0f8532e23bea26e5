package sim

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/rng"
)

// The trace's own formatting must give what strconv and a plain replacement give: the trace
// hash is over these bytes.
func TestAppendIntIsStrconv(t *testing.T) {
	vs := []int64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 12345, 3_599_999, -1, -10, -99, -100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 { // around every digit count
		vs = append(vs, p-1, p, p+1, 10*p-1, -p, -(10*p - 1))
	}
	for k := range 63 { // around every bit length
		vs = append(vs, 1<<k-1, 1<<k, 1<<k+1)
	}
	for v := int64(0); v < 200_000; v++ { // every value of up to five digits
		vs = append(vs, v)
	}
	r := rng.New(3)
	for range 200_000 { // and of every size, at random
		vs = append(vs, int64(r.Uint64()>>r.Intn(64)))
	}
	for _, v := range vs {
		for _, room := range []int{1, 64} { // with the buffer's room short, and not
			if got, want := string(appendInt(append(make([]byte, 0, room), 'x'), v)), "x"+strconv.FormatInt(v, 10); got != want {
				t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
			}
		}
	}
}

func TestBlankToUnderscore(t *testing.T) {
	blanks := strings.NewReplacer(" ", "_", "\n", "_", "\t", "_")
	for _, s := range []string{"", "a", "a b", "abcdefgh", "abcdefg ", " bcdefgh", "abcdefghi\tj", "x\ny",
		"é ü", "\x00\x1f\x7f\xff !", "worker-10#1", "NOT_LEADER_OR_FOLLOWER", "a very long message with words"} {
		b := []byte(s)
		blankToUnderscore(b)
		if want := blanks.Replace(s); string(b) != want {
			t.Errorf("blankToUnderscore(%q) = %q, want %q", s, b, want)
		}
	}
}

// A prepared field writes what str and num write, whether it fits the block copy or not,
// and with the buffer's room short or not.
func TestPreparedFieldsAreStr(t *testing.T) {
	for _, room := range []int{0, lineRoom} {
		for _, v := range []string{"", "orders/2", "worker-10#1", "a b\tc", strings.Repeat("long name ", 8)} {
			var a, b traceWriter
			a.buf, b.buf = make([]byte, 0, room), make([]byte, 0, room)
			f := valueField("client", v)
			a.f(&f).fnum(&fFirst, 12345).code(model.ErrNone).code(model.ErrInvalidRecordState).op(model.WriteAck).op(model.WriteKind(9))
			b.str("client", v).num("first", 12345).str("code", "NONE").str("code", model.ErrInvalidRecordState.String()).str("op", "ack").str("op", model.WriteKind(9).String())
			if string(a.buf) != string(b.buf) {
				t.Errorf("room %d, %q: prepared %q, str %q", room, v, a.buf, b.buf)
			}
		}
	}
}
