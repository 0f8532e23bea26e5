// Package rng is the simulator's own pseudo-random number generator.
//
// The simulator must replay bit-for-bit from a seed, so it cannot depend on
// math/rand or math/rand/v2, whose output streams are not promised to stay
// the same across Go releases. Everything here is a pure function of the
// seed and of the sequence of calls made on a generator: there is no global
// state, no clock, no goroutine and no map iteration.
//
// The generator is xoshiro256** (Blackman and Vigna, 2018) with its 256-bit
// state filled from a 64-bit seed by SplitMix64. It is fast and statistically
// strong, but it is not cryptographically secure and must not be used where
// unpredictability matters.
//
// A *Rand is not safe for concurrent use; the simulator is single-threaded.
//
// Integer methods (Uint64, Uint64n, Int63n, Intn, Bool, Perm, Shuffle) are
// exact and identical on every platform. Float64 is exact as well. ExpFloat64
// and NormFloat64 call math.Log and math.Sqrt; Sqrt is correctly rounded
// everywhere, and the expressions are written so the compiler cannot fuse
// them into FMA instructions, but math.Log has architecture-specific
// implementations, so those two methods are only guaranteed to be
// reproducible for a given GOARCH.
package rng

import (
	"math"
	"math/bits"
)

// golden is 2^64 divided by the golden ratio, rounded to odd; it is the
// SplitMix64 increment.
const golden = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 output function: a bijection on uint64 with
// strong avalanche (every input bit affects every output bit).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// splitMix64 advances the SplitMix64 state *x by one step and returns the
// next output.
func splitMix64(x *uint64) uint64 {
	*x += golden
	return mix64(*x)
}

// Rand is a xoshiro256** generator. Its whole state is four uint64 words;
// the output of every method depends only on that state, which the method
// advances. The zero value is not usable (an all-zero state would emit zeros
// forever); construct a Rand with New.
type Rand struct {
	s  [4]uint64
	nb *normals // normals computed ahead (BatchNormals); nil: none
}

// New returns a generator seeded from seed. The four state words are the
// first four SplitMix64 outputs starting from seed; because SplitMix64's
// output function is a bijection and its four inputs are distinct, the
// state is never all zero. Every seed, including 0, is valid, and distinct
// seeds give distinct streams.
func New(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed resets r to the state New(seed) would have.
func (r *Rand) Seed(seed uint64) {
	x := seed
	for i := range r.s {
		r.s[i] = splitMix64(&x)
	}
	if r.nb != nil {
		r.nb.next, r.nb.n = 0, 0
	}
}

// Uint64 returns the next 64 uniformly distributed bits.
func (r *Rand) Uint64() uint64 {
	if r.nb != nil && r.nb.next < r.nb.n {
		r.settle()
	}
	return r.next()
}

// next is Uint64 on the generator's state as it is, normals computed ahead or not.
func (r *Rand) next() uint64 {
	s0, s1, s2, s3 := r.s[0], r.s[1], r.s[2], r.s[3]
	out := bits.RotateLeft64(s1*5, 7) * 9
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	r.s = [4]uint64{s0, s1, s2, bits.RotateLeft64(s3, 45)}
	return out
}

// Uint64n returns a uniformly distributed integer in [0, n), without modulo
// bias, using Lemire's multiply-and-reject method. It usually consumes one
// Uint64 and consumes more only with probability below n/2^64.
//
// n == 0 is a programming error and panics.
func (r *Rand) Uint64n(n uint64) uint64 {
	if n == 0 {
		panic("rng: Uint64n called with n == 0")
	}
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		// thresh = 2^64 mod n: the number of low values that would
		// over-represent some outputs. Rejecting them makes every
		// output equally likely.
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// Int63n returns a uniformly distributed integer in [0, n).
//
// n <= 0 is a programming error and panics.
func (r *Rand) Int63n(n int64) int64 {
	if n <= 0 {
		panic("rng: Int63n called with n <= 0")
	}
	return int64(r.Uint64n(uint64(n)))
}

// Intn returns a uniformly distributed integer in [0, n). It draws exactly
// what Int63n(int64(n)) would, so results do not depend on the size of int.
//
// n <= 0 is a programming error and panics.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		panic("rng: Intn called with n <= 0")
	}
	return int(r.Uint64n(uint64(n)))
}

// Float64 returns a uniformly distributed float64 in [0, 1): the top 53 bits
// of one Uint64 scaled by 2^-53, so every result is a multiple of 2^-53 and
// 1.0 is never returned.
func (r *Rand) Float64() float64 {
	return float64(r.Uint64()>>11) * 0x1p-53
}

// Bool returns true with probability exactly num/den, using integer
// arithmetic only (no floating-point rounding of the probability). It always
// consumes the same draws as Uint64n(den), whatever num is, so changing a
// probability does not shift later draws on this stream. num >= den always
// yields true and num == 0 always yields false.
//
// den == 0 is a programming error and panics.
func (r *Rand) Bool(num, den uint64) bool {
	if den == 0 {
		panic("rng: Bool called with den == 0")
	}
	return r.Uint64n(den) < num
}

// ExpFloat64 returns an exponentially distributed float64 with rate 1
// (mean 1), in [0, +Inf). It uses inversion, -ln(1-U), with U from Float64,
// so it consumes exactly one Uint64 and the result is finite (at most
// 53·ln 2 ≈ 36.7).
func (r *Rand) ExpFloat64() float64 {
	// 1-U lies in (0, 1], so the logarithm is finite and <= 0.
	return -math.Log(1 - r.Float64())
}

// NormFloat64 returns a standard normal float64 (mean 0, standard deviation
// 1) using Marsaglia's polar method. The method produces two independent
// normals per accepted pair; the second is discarded so that the generator
// carries no hidden state beyond its four words. Each call consumes an even
// number of Uint64 draws (two per attempt; an attempt is accepted with
// probability π/4).
func (r *Rand) NormFloat64() float64 {
	if b := r.nb; b != nil {
		if b.next == b.n {
			r.refill()
		}
		z := b.z[b.next]
		b.next++
		return z
	}
	return r.normal()
}

func (r *Rand) normal() float64 {
	for {
		u := 2*(float64(r.next()>>11)*0x1p-53) - 1
		v := 2*(float64(r.next()>>11)*0x1p-53) - 1
		// Explicit conversions force rounding after each product, so
		// no platform may fuse these into an FMA and change the result.
		s := float64(u*u) + float64(v*v)
		if s == 0 || s >= 1 {
			continue
		}
		return u * math.Sqrt(-2*math.Log(s)/s)
	}
}

// BatchNormals makes NormFloat64 compute its values several at a time, ahead of the calls
// that return them, which lets the processor overlap their logarithms, divisions and square
// roots instead of waiting for each in turn. It changes no value any method returns: the
// generator's state after each normal computed ahead is kept, and a call of any other method
// first puts the generator back to the state after the last normal returned, dropping the
// rest. For a generator that mostly draws normals (a stream of log-normal processing times);
// the batch shrinks while other draws keep interrupting it.
func (r *Rand) BatchNormals() {
	if r.nb == nil {
		r.nb = &normals{size: 1}
	}
}

// normalBatch is the most normals BatchNormals computes at a time.
const normalBatch = 32

// normals holds the normals computed ahead: z[next:n] are not returned yet, after[i] is the
// generator's state after z[i] and before the state before z[0]; r.s is after[n-1].
type normals struct {
	z       [normalBatch]float64
	after   [normalBatch][4]uint64
	before  [4]uint64
	next, n int
	size    int // the next batch's size: doubles when a batch is used up, halves when dropped
}

func (r *Rand) refill() {
	b := r.nb
	if b.n > 0 && b.size < normalBatch {
		b.size *= 2 // the last batch was used up
	}
	b.before = r.s
	for i := range b.size {
		b.z[i] = r.normal()
		b.after[i] = r.s
	}
	b.next, b.n = 0, b.size
}

// settle puts the generator back to the state after the last normal returned and drops the
// normals computed beyond it.
func (r *Rand) settle() {
	b := r.nb
	if b.next == 0 {
		r.s = b.before
	} else {
		r.s = b.after[b.next-1]
	}
	b.next, b.n = 0, 0
	b.size = max(1, b.size/2)
}

// Shuffle pseudo-randomly permutes n elements by calling swap(i, j) with
// 0 <= j <= i < n, using the Fisher–Yates algorithm from the top index
// down. It makes n-1 draws of Intn for n >= 2 and none otherwise. Every
// permutation is equally likely.
//
// n < 0 is a programming error and panics.
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	if n < 0 {
		panic("rng: Shuffle called with n < 0")
	}
	for i := n - 1; i > 0; i-- {
		swap(i, r.Intn(i+1))
	}
}

// Perm returns a uniformly random permutation of the integers [0, n),
// obtained by shuffling the identity with Shuffle.
//
// n < 0 is a programming error and panics.
func (r *Rand) Perm(n int) []int {
	if n < 0 {
		panic("rng: Perm called with n < 0")
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}
