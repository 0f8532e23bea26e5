package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"math/bits"
	"slices"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/eventq"
	"github.com/sharesim/sharesim/sim/rng"
)

// engine is what every actor shares: the configuration, the virtual clock, the event queue,
// the random streams, the trace and the coverage marks. World owns the one engine of a run;
// each actor holds a pointer to it.
type engine struct {
	cfg  Config
	opts Options
	seed uint64

	// Random streams (streamWorkload, ...): each actor draws only from its own.
	streams                               *rng.Streams
	rWork, rProc, rFault, rNet, rSchedule *rng.Rand
	rProd                                 *rng.Rand

	now     int64                // the virtual clock, ms
	q       *eventq.Queue[event] // ordered by (time, sequence number)
	events  int64                // events run so far
	endMs   int64                // the run ends after the last event at or before it
	healing bool                 // the healing phase started (faults stop, producers stop)

	trace traceWriter
	marks map[string]int64 // coverage marks (Result.Marks)
	err   error            // set by an actor to end the run with an error
}

// PRNG stream names. Each subsystem draws only from its own stream, so adding a draw in one
// never changes what another sees.
const (
	streamWorkload   = "workload"
	streamProcessing = "processing"
	streamFaults     = "faults"
	streamNetwork    = "network"
	streamScheduler  = "scheduler"
	streamProducer   = "producer" // accumulator-mode producers: send times, sizes, partitions, latencies
)

type evKind uint8

const (
	evProduce                 evKind = iota + 1 // a: producer
	evRequestArrive                             // ref: request reaches its broker
	evResponseArrive                            // ref: response reaches its client
	evRequestTimeout                            // ref: the client gives up on a request
	evMaxWait                                   // ref: a parked fetch's wait ends
	evWriteApply                                // ref: a state write reaches the share coordinator
	evLoadDone                                  // a: share-partition whose state read completed
	evExpire                                    // a: share-partition with a lock deadline due
	evProcessDone                               // a: consumer finished one record
	evRenew                                     // a: consumer renews its locks
	evHeartbeat                                 // a: consumer heartbeats
	evSessionCheck                              // a: consumer, x: membership token
	evConsumerStart                             // a: consumer (re)starts
	evFault                                     // a: fault index
	evFaultEnd                                  // a: fault index, b: target
	evRetention                                 // a: topic
	evCompaction                                // a: partition, x: offset
	evTxnCommit                                 // a: producer, x: transaction id
	evMetrics                                   // sample the metrics
	evHeal                                      // the main phase ends
	evClassicPoll                               // a: classic consumer (classic.go)
	evProduceArrive                             // a: producer, ref: its produce request reaches the leader
	evProduceResponse                           // a: producer, ref: the answer reaches the producer
	evClassicFetch                              // a: classic consumer, x: fetch id; the fetch reaches its broker
	evClassicFetchWait                          // a: classic consumer, x: fetch id; fetch.max.wait.ms ends
	evClassicFetchDone                          // a: classic consumer, x: fetch id; the answer reaches it
	evClassicDone                               // a: classic consumer, x: record sequence; processing ends
	evClassicCommit                             // a: group, b: partition index, x: offset; a commit arrives
	evClassicPollTimeout                        // a: classic consumer, x: poll count; max.poll.interval.ms
	evClassicRebalanceTimeout                   // a: group, x: rebalance token
	evConnReset                                 // a: consumer, gen: its dead incarnation; the brokers see the connections reset
	evLogRead                                   // ref: fetch, a: share-partition whose log read completed
	evDLQAttempt                                // ref: a DLQ produce attempt's answer reaches the leader
)

// event is one queued event. Consumer events carry the consumer's incarnation generation;
// an event of an older generation is stale and ignored.
type event struct {
	kind evKind
	gen  uint32
	a, b int32
	ref  int32
	x    int64
}

func (en *engine) push(at int64, e event) eventq.Handle {
	if at < en.now {
		at = en.now
	}
	return en.q.Push(at, e)
}

func (en *engine) mark(name string) { en.marks[name]++ }

// traceWriter hashes every trace line and optionally keeps or writes it. Lines are gathered
// in buf and hashed hashChunk bytes at a time (the hash of a stream does not depend on how it
// is cut into writes); from is where the current line starts in buf.
type traceWriter struct {
	h    hash.Hash
	out  io.Writer
	keep bool
	kept []string
	buf  []byte
	from int
	err  error
	tap  func(line []byte) // sees every line (the record sample's notable lines)
}

// hashChunk is how many bytes of lines are gathered before they are hashed.
const hashChunk = 8 << 10

func (t *traceWriter) init(o Options) {
	t.h = sha256.New()
	t.out = o.TraceWriter
	t.keep = o.KeepTrace
	t.buf = make([]byte, 0, hashChunk+lineRoom)
}

// line starts a trace line for the current event.
func (en *engine) line(kind string) *traceWriter {
	t := &en.trace
	t.from = len(t.buf)
	t.buf = appendInt(t.buf, en.now)
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, kind...)
	return t
}

// lineOf is line for a kind prepared as a field (" kind"), for the lines written on every
// batch of records.
func (en *engine) lineOf(kind *field) *traceWriter {
	t := &en.trace
	t.from = len(t.buf)
	t.buf = appendInt(t.buf, en.now)
	return t.f(kind)
}

// A field is a piece of a trace line prepared once, for the lines written on every batch of
// records: " key=value" with the value's blanks already underscores (a partition's name, a
// client's), " key=" for a number to follow, or " kind". Appending one is a copy of
// fieldRoom bytes, not a call into memmove (whose size dispatch costs more than copying a
// few bytes).
type field struct {
	n int
	b [fieldRoom]byte // the field when it fits (n ≤ fieldRoom)
	s string          // the field
}

// fieldRoom is the longest field copied as a block; a trace line starts with at least
// lineRoom bytes free in the buffer, room for several.
const (
	fieldRoom = 32
	lineRoom  = 256
)

// prepared is the field s as it is (it holds no blank that should be an underscore).
func prepared(s string) field {
	f := field{n: len(s), s: s}
	copy(f.b[:], s)
	return f
}

// valueField is the field " key=value" as str writes it.
func valueField(key, value string) field {
	b := []byte(" " + key + "=" + value)
	blankToUnderscore(b[len(key)+2:])
	return prepared(string(b))
}

// f appends a prepared field.
func (t *traceWriter) f(fl *field) *traceWriter {
	l := len(t.buf)
	if fl.n <= fieldRoom && cap(t.buf)-l >= fieldRoom {
		*(*[fieldRoom]byte)(t.buf[l : l+fieldRoom]) = fl.b
		t.buf = t.buf[:l+fl.n]
	} else {
		t.buf = append(t.buf, fl.s...)
	}
	return t
}

// fnum appends key (prepared as " key=") and v.
func (t *traceWriter) fnum(key *field, v int64) *traceWriter {
	t.f(key)
	t.buf = appendInt(t.buf, v)
	return t
}

// code appends " code=" and c's name.
func (t *traceWriter) code(c model.ErrorCode) *traceWriter {
	if c == model.ErrNone {
		return t.f(&fCodeNone)
	}
	return t.str("code", c.String())
}

// Fields of the lines written for every batch of records (produce, acquire, ack, write).
var (
	fProduce, fAcquire, fAck, fWrite  = prepared(" produce"), prepared(" acquire"), prepared(" ack"), prepared(" write")
	fFirst, fLast, fBatches, fWriteID = prepared(" first="), prepared(" last="), prepared(" batches="), prepared(" write=")
	fID, fRanges, fCodeNone           = prepared(" id="), prepared(" ranges="), prepared(" code=NONE")
	// fWriteOp[k] is " op=" and write kind k's name.
	fWriteOp = func() (ops [model.WriteDLQ + 1]field) {
		for k := range ops {
			ops[k] = valueField("op", model.WriteKind(k).String())
		}
		return ops
	}()
)

// opField appends " op=" and the write kind's name.
func (t *traceWriter) op(k model.WriteKind) *traceWriter {
	if int(k) < len(fWriteOp) {
		return t.f(&fWriteOp[k])
	}
	return t.str("op", k.String())
}

// str appends key=v; spaces in v become underscores, so that a line always splits into its
// key=value pairs at spaces (an error message keeps every word).
func (t *traceWriter) str(key, v string) *traceWriter {
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, '=')
	at := len(t.buf)
	t.buf = append(t.buf, v...)
	blankToUnderscore(t.buf[at:])
	return t
}

// blankToUnderscore replaces spaces, tabs and newlines with underscores in place. It looks at
// eight bytes at a time for any byte below '!' (all three are), and at single bytes only in
// a word that has one.
func blankToUnderscore(b []byte) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x-ones*'!')&^x&highs != 0 { // some byte < '!' (exact for "any")
			underscoreBlanks(b[i : i+8])
		}
	}
	underscoreBlanks(b[i:])
}

func underscoreBlanks(b []byte) {
	for i, c := range b {
		if c == ' ' || c == '\n' || c == '\t' {
			b[i] = '_'
		}
	}
}

func (t *traceWriter) num(key string, v int64) *traceWriter {
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, '=')
	t.buf = appendInt(t.buf, v)
	return t
}

func (t *traceWriter) ranges(key *field, rs []model.AcquiredRange) *traceWriter {
	t.f(key)
	for i, r := range rs {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		t.buf = appendInt(t.buf, r.First)
		t.buf = append(t.buf, '-')
		t.buf = appendInt(t.buf, r.Last)
		t.buf = append(t.buf, '@')
		t.buf = appendInt(t.buf, int64(r.DeliveryCount))
	}
	return t
}

func (t *traceWriter) end() {
	t.buf = append(t.buf, '\n')
	line := t.buf[t.from:]
	if t.out != nil && t.err == nil {
		_, t.err = t.out.Write(line)
	}
	if t.keep {
		t.kept = append(t.kept, string(line[:len(line)-1]))
	}
	if t.tap != nil {
		t.tap(line)
	}
	if len(t.buf) >= hashChunk {
		t.flush()
	}
}

// flush hashes the lines gathered so far.
func (t *traceWriter) flush() {
	t.h.Write(t.buf)
	t.buf = t.buf[:0]
	t.from = 0
}

// sum is the SHA-256 of every line so far.
func (t *traceWriter) sum() string {
	t.flush()
	return hex.EncodeToString(t.h.Sum(nil))
}

// appendInt appends v in decimal, as strconv.AppendInt(b, v, 10) does: below 10¹⁶ (times,
// offsets, counts) eight digits at a time in one word (digits8), above two at a time.
func appendInt(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
	if u >= 1e16 {
		return appendUintLong(b, u)
	}
	at := len(b)
	if cap(b)-at < 16 {
		b = slices.Grow(b, 16)
	}
	d := b[at : at+16]
	hi, lo := u, uint64(0)
	if u >= 1e8 {
		hi, lo = u/1e8, u%1e8
	}
	x := digits8(hi)
	// Leading zero digits are zero bytes at the word's low end (a lone 0 keeps its last).
	skip := bits.TrailingZeros64(x|1<<56) / 8
	binary.LittleEndian.PutUint64(d, (x+ascii8)>>(8*skip))
	n := 8 - skip
	if u >= 1e8 {
		binary.LittleEndian.PutUint64(d[n:], digits8(lo)+ascii8)
		n += 8
	}
	return b[:at+n]
}

// ascii8 turns eight digit values into their characters.
const ascii8 = 0x3030303030303030

// digits8 returns the eight decimal digits of x < 10⁸ as byte values, the most significant
// in the lowest byte (so that a little-endian store writes them in reading order). Each step
// splits every lane in two by a multiplication exact in its range: 10486/2²⁰ for ÷100 below
// 10⁴, 103/2¹⁰ for ÷10 below 100.
func digits8(x uint64) uint64 {
	hi := x / 1e4
	v := hi | (x-hi*1e4)<<32 // two lanes of four digits
	q := v * 10486 >> 20 & 0x0000007f0000007f
	v = q | (v-q*100)<<16 // four lanes of two digits
	q = v * 103 >> 10 & 0x000f000f000f000f
	return q | (v-q*10)<<8 // eight lanes of one digit
}

// appendUintLong is appendInt for u ≥ 10¹⁶: two digits at a time.
func appendUintLong(b []byte, u uint64) []byte {
	// Count the digits, make room for them, and write them from the last, two at a time.
	n := (bits.Len64(u)*1233)>>12 + 1 // ⌊log10 u⌋+1, or one more
	if u < pow10[n-1] {
		n--
	}
	at := len(b)
	if cap(b)-at < n {
		b = slices.Grow(b, n)
	}
	b = b[:at+n]
	d := b[at : at+n]
	i := n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		u = q
		i -= 2
		d[i], d[i+1] = digitPairs[r], digitPairs[r+1]
	}
	if u >= 10 {
		d[0], d[1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		d[0] = byte('0' + u)
	}
	return b
}

// pow10[i] is 10^i.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
