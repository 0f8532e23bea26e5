package rng

import (
	"math"
	"slices"
	"testing"
)

// The golden values below pin the generator. If any of these tests fails,
// the stream for a given seed has changed and every recorded simulation
// becomes unreproducible: treat that as a breaking change, not a test to
// update casually.

func TestGoldenUint64(t *testing.T) {
	cases := []struct {
		seed uint64
		want []uint64
	}{
		{1, []uint64{
			0xb3f2af6d0fc710c5, 0x853b559647364cea, 0x92f89756082a4514,
			0x642e1c7bc266a3a7, 0xb27a48e29a233673, 0x24c123126ffda722,
		}},
		{42, []uint64{
			0x15780b2e0c2ec716, 0x6104d9866d113a7e, 0xae17533239e499a1,
			0xecb8ad4703b360a1, 0xfde6dc7fe2ec5e64, 0xc50da53101795238,
		}},
	}
	for _, c := range cases {
		r := New(c.seed)
		for i, w := range c.want {
			if got := r.Uint64(); got != w {
				t.Fatalf("seed %d output %d: got %#016x, want %#016x", c.seed, i, got, w)
			}
		}
	}
}

// TestReferenceVectors checks the two building blocks against the outputs
// of the published reference algorithms, independently of our seeding.
func TestReferenceVectors(t *testing.T) {
	// SplitMix64 from state 1234567.
	x := uint64(1234567)
	for i, w := range []uint64{
		6457827717110365317, 3203168211198807973, 9817491932198370423,
		4593380528125082431, 16408922859458223821,
	} {
		if got := splitMix64(&x); got != w {
			t.Fatalf("splitmix64 output %d: got %d, want %d", i, got, w)
		}
	}
	// xoshiro256** from state {1, 2, 3, 4}.
	r := &Rand{s: [4]uint64{1, 2, 3, 4}}
	for i, w := range []uint64{
		11520, 0, 1509978240, 1215971899390074240,
		1216172134540287360, 607988272756665600,
	} {
		if got := r.Uint64(); got != w {
			t.Fatalf("xoshiro256** output %d: got %d, want %d", i, got, w)
		}
	}
}

func TestGoldenDerived(t *testing.T) {
	r := New(42)
	if got := r.Float64(); got != 0.08386297105988216 {
		t.Errorf("Float64 = %v", got)
	}
	if got := r.Intn(10); got != 3 {
		t.Errorf("Intn(10) = %v", got)
	}
	if got := r.Int63n(1e12); got != 680043411028 {
		t.Errorf("Int63n(1e12) = %v", got)
	}
	if got := r.Bool(1, 3); got != false {
		t.Errorf("Bool(1,3) = %v", got)
	}
	// ExpFloat64 and NormFloat64 use math.Log, whose last bit may differ
	// between architectures; compare with a tight relative tolerance.
	if got, want := r.ExpFloat64(), 4.804098590156366; math.Abs(got-want) > 1e-12*want {
		t.Errorf("ExpFloat64 = %v, want %v", got, want)
	}
	if got, want := r.NormFloat64(), 0.9357208304923753; math.Abs(got-want) > 1e-12*want {
		t.Errorf("NormFloat64 = %v, want %v", got, want)
	}
	if got, want := r.Perm(8), []int{4, 0, 2, 1, 7, 3, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("Perm(8) = %v, want %v", got, want)
	}
	if got := StreamSeed(42, "a"); got != 0x2a80f88195ed5b57 {
		t.Errorf("StreamSeed(42, a) = %#x", got)
	}
	if got := Derive(42, "consumer", 0); got != 0x93ef5b4d3aecf73e {
		t.Errorf("Derive(42, consumer, 0) = %#x", got)
	}
	if got := Derive(42, "consumer", 1); got != 0x6a9a1abb69979a72 {
		t.Errorf("Derive(42, consumer, 1) = %#x", got)
	}
}

func TestSeedResets(t *testing.T) {
	r := New(7)
	a := []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	r.Seed(7)
	b := []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	if !slices.Equal(a, b) {
		t.Fatalf("Seed(7) did not reset: %v vs %v", a, b)
	}
	if New(0).Uint64() == New(1).Uint64() {
		t.Fatal("seeds 0 and 1 start identically")
	}
}

func TestIntnRangeAndUniformity(t *testing.T) {
	const k = 37 // buckets, deliberately not a power of two
	const perBucket = 10000
	r := New(2024)
	var counts [k]int
	for range k * perBucket {
		v := r.Intn(k)
		if v < 0 || v >= k {
			t.Fatalf("Intn(%d) = %d out of range", k, v)
		}
		counts[v]++
	}
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c - perBucket)
		chi2 += d * d / perBucket
	}
	// 36 degrees of freedom: mean 36, sd ~8.5. 100 is ~7.5 sd out; with a
	// fixed seed this is a regression check, not a flaky statistical test.
	if chi2 > 100 {
		t.Fatalf("chi-square %.1f too large; counts %v", chi2, counts)
	}
	t.Logf("chi-square (df=36) = %.2f", chi2)
}

func TestBoundedRanges(t *testing.T) {
	r := New(5)
	for _, n := range []int64{1, 2, 3, 1000, 1<<62 + 1, math.MaxInt64} {
		for range 1000 {
			if v := r.Int63n(n); v < 0 || v >= n {
				t.Fatalf("Int63n(%d) = %d", n, v)
			}
		}
	}
	for _, n := range []uint64{1, 7, 1<<63 + 1<<62, math.MaxUint64} {
		for range 1000 {
			if v := r.Uint64n(n); v >= n {
				t.Fatalf("Uint64n(%d) = %d", n, v)
			}
		}
	}
	// Bias matters most for n near 2^64: with n = 3·2^62 a naive x%n would
	// give [0, 2^62) double weight, leaving only 1/4 in the upper third.
	n := uint64(3) << 62
	upper := 0
	const draws = 300000
	for range draws {
		if r.Uint64n(n) >= 2<<62 {
			upper++
		}
	}
	if f := float64(upper) / draws; math.Abs(f-1.0/3) > 0.005 {
		t.Fatalf("Uint64n(3<<62): upper-third fraction %.4f, want ~0.3333", f)
	}
}

func TestFloat64Range(t *testing.T) {
	r := New(99)
	const n = 1000000
	sum := 0.0
	for range n {
		f := r.Float64()
		if f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v out of [0,1)", f)
		}
		sum += f
	}
	if m := sum / n; math.Abs(m-0.5) > 0.002 {
		t.Fatalf("Float64 mean %.5f, want ~0.5", m)
	}
}

func TestBool(t *testing.T) {
	r := New(3)
	const n = 300000
	hits := 0
	for range n {
		if r.Bool(1, 3) {
			hits++
		}
	}
	if f := float64(hits) / n; math.Abs(f-1.0/3) > 0.005 {
		t.Fatalf("Bool(1,3) frequency %.4f, want ~0.3333", f)
	}
	for range 1000 {
		if r.Bool(0, 5) {
			t.Fatal("Bool(0,5) returned true")
		}
		if !r.Bool(5, 5) || !r.Bool(9, 5) {
			t.Fatal("Bool(num>=den) returned false")
		}
	}
	// Bool consumes the same draws whatever num is.
	a, b := New(11), New(11)
	for i := range 100 {
		a.Bool(uint64(i), 100)
		b.Bool(0, 100)
	}
	if a.Uint64() != b.Uint64() {
		t.Fatal("Bool draw count depends on num")
	}
}

func TestExpAndNorm(t *testing.T) {
	r := New(8)
	const n = 400000
	var es, ns, ns2 float64
	for range n {
		e := r.ExpFloat64()
		if e < 0 || math.IsInf(e, 0) || math.IsNaN(e) {
			t.Fatalf("ExpFloat64 = %v", e)
		}
		es += e
		z := r.NormFloat64()
		ns += z
		ns2 += z * z
	}
	if m := es / n; math.Abs(m-1) > 0.01 {
		t.Errorf("ExpFloat64 mean %.4f, want ~1", m)
	}
	mean := ns / n
	variance := ns2/n - mean*mean
	if math.Abs(mean) > 0.01 || math.Abs(variance-1) > 0.01 {
		t.Errorf("NormFloat64 mean %.4f var %.4f, want ~0 and ~1", mean, variance)
	}
}

func TestPermAndShuffle(t *testing.T) {
	r := New(4)
	for _, n := range []int{0, 1, 2, 10, 100} {
		p := r.Perm(n)
		s := slices.Clone(p)
		slices.Sort(s)
		for i, v := range s {
			if v != i {
				t.Fatalf("Perm(%d) = %v is not a permutation", n, p)
			}
		}
	}
	// All 6 orders of 3 elements should be about equally likely.
	const draws = 60000
	counts := map[[3]int]int{}
	for range draws {
		a := [3]int{0, 1, 2}
		r.Shuffle(3, func(i, j int) { a[i], a[j] = a[j], a[i] })
		counts[a]++
	}
	if len(counts) != 6 {
		t.Fatalf("saw %d distinct orders, want 6", len(counts))
	}
	for k, c := range counts {
		if math.Abs(float64(c)-draws/6) > 0.05*draws/6 {
			t.Errorf("order %v seen %d times, want ~%d", k, c, draws/6)
		}
	}
}

func TestPanicsOnProgrammingErrors(t *testing.T) {
	r := New(1)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Intn(0)", func() { r.Intn(0) }},
		{"Intn(-1)", func() { r.Intn(-1) }},
		{"Int63n(0)", func() { r.Int63n(0) }},
		{"Int63n(-5)", func() { r.Int63n(-5) }},
		{"Uint64n(0)", func() { r.Uint64n(0) }},
		{"Bool(1,0)", func() { r.Bool(1, 0) }},
		{"Perm(-1)", func() { r.Perm(-1) }},
		{"Shuffle(-1)", func() { r.Shuffle(-1, func(int, int) {}) }},
	} {
		name, f := c.name, c.f
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestStreamsSameObject(t *testing.T) {
	s := NewStreams(42)
	if s.Stream("a") != s.Stream("a") {
		t.Fatal("Stream(a) returned different objects")
	}
	if s.Stream("a") == s.Stream("b") {
		t.Fatal("Stream(a) and Stream(b) are the same object")
	}
	if s.Root() != 42 {
		t.Fatalf("Root() = %d", s.Root())
	}
}

func TestStreamIndependence(t *testing.T) {
	const n = 1000
	// Reference: stream "b" alone.
	ref := NewStreams(42).Stream("b")
	want := make([]uint64, n)
	for i := range want {
		want[i] = ref.Uint64()
	}
	// Same root, "a" created first and drawn from heavily, interleaved.
	s := NewStreams(42)
	a := s.Stream("a")
	b := s.Stream("b")
	for i := range n {
		for range i % 7 {
			a.Uint64()
			a.NormFloat64()
		}
		if got := b.Uint64(); got != want[i] {
			t.Fatalf("draw %d of stream b changed by draws on a: %#x vs %#x", i, got, want[i])
		}
	}
	// Stream b equals a fresh generator seeded with StreamSeed.
	direct := New(StreamSeed(42, "b"))
	for i := range n {
		if direct.Uint64() != want[i] {
			t.Fatalf("Stream(b) differs from New(StreamSeed(42, b)) at %d", i)
		}
	}
	// Different names and different roots give different streams.
	if NewStreams(42).Stream("a").Uint64() == want[0] {
		t.Fatal("streams a and b start identically")
	}
	if NewStreams(43).Stream("b").Uint64() == want[0] {
		t.Fatal("roots 42 and 43 give identical stream b")
	}
}

func TestDerive(t *testing.T) {
	s := NewStreams(9)
	seen := make(map[uint64]uint64)
	for i := range uint64(10000) {
		d := s.Derive("consumer", i)
		if d != Derive(9, "consumer", i) {
			t.Fatal("Streams.Derive and Derive disagree")
		}
		if j, dup := seen[d]; dup {
			t.Fatalf("Derive(consumer, %d) == Derive(consumer, %d)", i, j)
		}
		seen[d] = i
	}
	if s.Derive("consumer", 0) == s.Derive("producer", 0) {
		t.Fatal("Derive ignores the name")
	}
	if s.Derive("x", 0) == StreamSeed(9, "x") {
		t.Fatal("Derive collides with the stream seed")
	}
	// Derive consumes nothing from the stream of the same name.
	before := NewStreams(9).Stream("consumer").Uint64()
	s2 := NewStreams(9)
	s2.Derive("consumer", 3)
	if s2.Stream("consumer").Uint64() != before {
		t.Fatal("Derive disturbed the stream")
	}
}

var sinkU uint64
var sinkF float64

func BenchmarkUint64(b *testing.B) {
	r := New(1)
	var x uint64
	for b.Loop() {
		x += r.Uint64()
	}
	sinkU = x
}

func BenchmarkFloat64(b *testing.B) {
	r := New(1)
	var x float64
	for b.Loop() {
		x += r.Float64()
	}
	sinkF = x
}

func BenchmarkIntn(b *testing.B) {
	r := New(1)
	var x int
	for b.Loop() {
		x += r.Intn(1000)
	}
	sinkU = uint64(x)
}

func BenchmarkNormFloat64(b *testing.B) {
	r := New(1)
	var x float64
	for b.Loop() {
		x += r.NormFloat64()
	}
	sinkF = x
}

// A Deriver gives exactly the sub-seeds Derive's definition does, for any family.
func TestDeriverIsDerive(t *testing.T) {
	for _, root := range []uint64{0, 1, 9, 1 << 63} {
		for _, name := range []string{"", "key", "consumer"} {
			d := NewDeriver(root, name)
			for i := range uint64(1000) {
				idx := i * 0x9e3779b97f4a7c15
				want := mix64(mix64(StreamSeed(root, name)^domainDerive) ^ idx)
				if got := d.Derive(idx); got != want {
					t.Fatalf("NewDeriver(%d, %q).Derive(%d) = %d, want %d", root, name, idx, got, want)
				}
				if got := Derive(root, name, idx); got != want {
					t.Fatalf("Derive(%d, %q, %d) = %d, want %d", root, name, idx, got, want)
				}
			}
		}
	}
}

// BatchNormals changes no value: a generator computing normals ahead returns what a plain
// one returns, whatever other draws interrupt the normals and however often.
func TestBatchNormalsChangesNothing(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		plain, batched := New(seed), New(seed)
		batched.BatchNormals()
		pick := New(seed ^ 0xabcdef)
		for step := range 3000 {
			// Mostly normals, in runs of random length, as a processing stream draws them.
			op := pick.Intn(20)
			var a, b float64
			switch {
			case op < 14:
				a, b = plain.NormFloat64(), batched.NormFloat64()
			case op == 14:
				a, b = float64(plain.Uint64()), float64(batched.Uint64())
			case op == 15:
				a, b = float64(plain.Intn(1000)), float64(batched.Intn(1000))
			case op == 16:
				a, b = plain.Float64(), batched.Float64()
			case op == 17:
				a, b = plain.ExpFloat64(), batched.ExpFloat64()
			case op == 18:
				x, y := plain.Bool(3, 7), batched.Bool(3, 7)
				a, b = float64(boolInt(x)), float64(boolInt(y))
			default:
				if step%500 == 0 {
					plain.Seed(uint64(step))
					batched.Seed(uint64(step))
				}
				p, q := plain.Perm(5), batched.Perm(5)
				for i := range p {
					a, b = a*10+float64(p[i]), b*10+float64(q[i])
				}
			}
			if math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("seed %d step %d op %d: plain %v, batched %v", seed, step, op, a, b)
			}
		}
		// Long runs of normals only: the batch grows to its largest and is used up.
		for range 5000 {
			if a, b := plain.NormFloat64(), batched.NormFloat64(); a != b {
				t.Fatalf("seed %d: normals differ: %v %v", seed, a, b)
			}
		}
		if plain.Uint64() != batched.Uint64() {
			t.Fatalf("seed %d: states differ after the normals", seed)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
