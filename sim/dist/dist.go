// Package dist provides the probability distributions the simulator uses
// for processing times and latencies.
//
// # Units and the sampling model
//
// All values are virtual-time durations in integer milliseconds. Every
// distribution describes a real-valued random variable X (its "model"), and
// Sample returns X rounded to the nearest millisecond (halves away from
// zero) and clamped to [0, MaxMs]. Mean, Quantile and CDF describe the model
// X itself, before rounding and before the MaxMs cap, so an empirical
// quantile of samples differs from Quantile by at most half a millisecond
// (plus the cap, for values beyond MaxMs). For Uniform, X is chosen so that
// rounding yields exactly equally likely integers; see Uniform.
//
// # Determinism
//
// Sample draws only from the *rng.Rand it is given and keeps no state of its
// own, so a distribution value may be shared freely. The number of draws a
// Sample consumes is documented per distribution. Integer-valued paths
// (Constant, Uniform, and the choice in Bimodal) are exact on every
// platform. The others go through math.Log/math.Exp/math.Pow; expressions
// are written so the compiler cannot fuse them into FMA instructions, but
// those functions have architecture-specific implementations, so
// bit-identical samples are only guaranteed for a given GOARCH. (After
// rounding to whole milliseconds a difference would need a value within
// one ulp of a half-millisecond boundary.)
//
// Constructors validate their parameters and return an error wrapping
// ErrInvalid instead of panicking.
package dist

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/sharesim/sharesim/sim/rng"
)

// MaxMs is the largest value Sample ever returns: 10^12 ms, about 31.7
// years of virtual time. Heavy-tailed models (Pareto with a small shape, a
// wide log-normal) are capped here so that samples never overflow int64 and
// so that adding a sample to any plausible virtual clock cannot overflow
// either.
const MaxMs int64 = 1_000_000_000_000

// ErrInvalid is wrapped by every constructor error.
var ErrInvalid = errors.New("dist: invalid parameter")

// Dist is a distribution of non-negative durations in milliseconds.
type Dist interface {
	// Sample draws one duration in milliseconds from r. The result is
	// always in [0, MaxMs].
	Sample(r *rng.Rand) int64
	// Mean is the expected value of the model X in milliseconds. It
	// may be +Inf (Pareto with shape <= 1); it ignores the MaxMs cap.
	Mean() float64
	// Quantile returns the p-quantile of X in milliseconds, the smallest
	// x with CDF(x) >= p, for p in [0, 1]. Quantile(0) is the lower end
	// of the support and Quantile(1) the upper end (possibly +Inf). A p
	// outside [0, 1], or NaN, yields NaN.
	Quantile(p float64) float64
	// CDF returns P(X <= x) for x in milliseconds.
	CDF(x float64) float64
	// String is a stable, human-readable description such as
	// "lognormal{p50=8s,p99=40s}". It is suitable for reports and as a
	// map key; it never depends on anything but the parameters.
	String() string
}

// Must returns d, or panics if err is non-nil. It is meant for fixed
// parameters in tests and built-in scenarios.
func Must(d Dist, err error) Dist {
	if err != nil {
		panic(err)
	}
	return d
}

// z99 is the 0.99 quantile of the standard normal distribution.
const z99 = 2.3263478740408408

// toMs rounds a model value to whole milliseconds and clamps it to
// [0, MaxMs]. NaN maps to 0; it cannot arise from validated parameters.
func toMs(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	if x >= float64(MaxMs) {
		return MaxMs
	}
	return int64(math.Round(x))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func badP(p float64) bool { return !(p >= 0 && p <= 1) }

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// fmtMs renders a duration in milliseconds compactly and deterministically:
// whole hours, minutes or seconds use that unit ("2h", "90s"), other whole
// values use "ms", and fractional values use the shortest exact decimal
// followed by "ms".
func fmtMs(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		n := int64(x)
		switch {
		case n == 0:
			return "0ms"
		case n%3_600_000 == 0:
			return strconv.FormatInt(n/3_600_000, 10) + "h"
		case n%60_000 == 0:
			return strconv.FormatInt(n/60_000, 10) + "m"
		case n%1000 == 0:
			return strconv.FormatInt(n/1000, 10) + "s"
		default:
			return strconv.FormatInt(n, 10) + "ms"
		}
	}
	return strconv.FormatFloat(x, 'f', -1, 64) + "ms"
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// stdNormCDF is Φ, the standard normal CDF.
func stdNormCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// stdNormQuantile is Φ⁻¹, the standard normal quantile, for p in [0, 1].
func stdNormQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// ---------------------------------------------------------------------------

type constant struct{ ms int64 }

// Constant returns the distribution that is always ms milliseconds.
// Requires 0 <= ms <= MaxMs. Sample consumes no draws.
func Constant(ms int64) (Dist, error) {
	if ms < 0 || ms > MaxMs {
		return nil, invalid("Constant: ms must be in [0, %d], got %d", MaxMs, ms)
	}
	return constant{ms}, nil
}

func (d constant) Sample(*rng.Rand) int64 { return d.ms }
func (d constant) Mean() float64          { return float64(d.ms) }
func (d constant) String() string         { return "constant{" + fmtMs(float64(d.ms)) + "}" }

func (d constant) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	return float64(d.ms)
}

func (d constant) CDF(x float64) float64 {
	if x >= float64(d.ms) {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------------------

type uniform struct{ lo, hi int64 }

// Uniform returns the distribution whose samples are the integers
// minMs..maxMs inclusive, each equally likely. Requires
// 0 <= minMs <= maxMs <= MaxMs. Sampling is exact integer arithmetic and
// consumes one Int63n draw.
//
// Its model X is the continuous uniform distribution on
// [minMs-0.5, maxMs+0.5), which rounds to exactly that integer
// distribution; Mean is (minMs+maxMs)/2 and Quantile(p) is
// minMs - 0.5 + p·(maxMs-minMs+1).
func Uniform(minMs, maxMs int64) (Dist, error) {
	if minMs < 0 || maxMs > MaxMs || minMs > maxMs {
		return nil, invalid("Uniform: need 0 <= minMs <= maxMs <= %d, got minMs=%d maxMs=%d", MaxMs, minMs, maxMs)
	}
	return uniform{minMs, maxMs}, nil
}

func (d uniform) Sample(r *rng.Rand) int64 { return d.lo + r.Int63n(d.hi-d.lo+1) }
func (d uniform) Mean() float64            { return (float64(d.lo) + float64(d.hi)) / 2 }
func (d uniform) width() float64           { return float64(d.hi-d.lo) + 1 }

func (d uniform) String() string {
	return "uniform{min=" + fmtMs(float64(d.lo)) + ",max=" + fmtMs(float64(d.hi)) + "}"
}

func (d uniform) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	return float64(d.lo) - 0.5 + p*d.width()
}

func (d uniform) CDF(x float64) float64 {
	f := (x - (float64(d.lo) - 0.5)) / d.width()
	return math.Min(1, math.Max(0, f))
}

// ---------------------------------------------------------------------------

type exponential struct{ mean float64 }

// Exponential returns the exponential distribution with the given mean in
// milliseconds (rate 1/meanMs). Requires meanMs > 0 and finite. Sample
// consumes one draw (rng.Rand.ExpFloat64).
func Exponential(meanMs float64) (Dist, error) {
	if !(meanMs > 0) || !finite(meanMs) {
		return nil, invalid("Exponential: meanMs must be > 0 and finite, got %v", meanMs)
	}
	return exponential{meanMs}, nil
}

func (d exponential) Sample(r *rng.Rand) int64 { return toMs(d.mean * r.ExpFloat64()) }
func (d exponential) Mean() float64            { return d.mean }
func (d exponential) String() string           { return "exponential{mean=" + fmtMs(d.mean) + "}" }

func (d exponential) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	return -d.mean * math.Log1p(-p)
}

func (d exponential) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return -math.Expm1(-x / d.mean)
}

// ---------------------------------------------------------------------------

type lognormal struct {
	mu, sigma float64
	desc      string    // parameters as the caller gave them, for String
	exp       *expTable // expMs's table, looked up once
}

// LogNormal returns the log-normal distribution with X = exp(mu + sigma·Z),
// Z standard normal, X in milliseconds (so mu is the log of the median in
// ms). Requires mu finite and sigma > 0 and finite; use Constant for
// sigma = 0. Sample consumes the draws of one rng.Rand.NormFloat64.
func LogNormal(mu, sigma float64) (Dist, error) {
	if !finite(mu) {
		return nil, invalid("LogNormal: mu must be finite, got %v", mu)
	}
	if !(sigma > 0) || !finite(sigma) {
		return nil, invalid("LogNormal: sigma must be > 0 and finite, got %v", sigma)
	}
	return &lognormal{mu, sigma, "mu=" + fmtNum(mu) + ",sigma=" + fmtNum(sigma), expTableOnce()}, nil
}

// LogNormalP50P99 returns the log-normal distribution whose median is p50Ms
// and whose 0.99 quantile is p99Ms, both in milliseconds: mu = ln p50Ms and
// sigma = (ln p99Ms − ln p50Ms)/z, where z ≈ 2.3263 is the standard normal
// 0.99 quantile. Requires 0 < p50Ms < p99Ms, both finite. Sampling is as
// for LogNormal.
func LogNormalP50P99(p50Ms, p99Ms float64) (Dist, error) {
	if !(p50Ms > 0) || !finite(p50Ms) || !finite(p99Ms) || !(p99Ms > p50Ms) {
		return nil, invalid("LogNormalP50P99: need 0 < p50Ms < p99Ms, both finite, got p50Ms=%v p99Ms=%v", p50Ms, p99Ms)
	}
	mu := math.Log(p50Ms)
	sigma := (math.Log(p99Ms) - mu) / z99
	return &lognormal{mu, sigma, "p50=" + fmtMs(p50Ms) + ",p99=" + fmtMs(p99Ms), expTableOnce()}, nil
}

// The methods have pointer receivers: a sample (one per processed record) then reads the
// parameters where they are, not through a copy.

func (d *lognormal) Sample(r *rng.Rand) int64 {
	// The conversion keeps sigma*z rounded on its own, preventing FMA.
	return d.exp.ms(d.mu + float64(d.sigma*r.NormFloat64())) // toMs(math.Exp(·))
}

func (d *lognormal) Mean() float64  { return math.Exp(d.mu + d.sigma*d.sigma/2) }
func (d *lognormal) String() string { return "lognormal{" + d.desc + "}" }

func (d *lognormal) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	return math.Exp(d.mu + d.sigma*stdNormQuantile(p))
}

func (d *lognormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return stdNormCDF((math.Log(x) - d.mu) / d.sigma)
}

// ---------------------------------------------------------------------------

type pareto struct{ scale, shape float64 }

// Pareto returns the Pareto (type I) distribution with minimum scaleMs
// milliseconds and tail index shape: P(X > x) = (scaleMs/x)^shape for
// x >= scaleMs. Requires scaleMs > 0 and shape > 0, both finite. The mean
// is infinite for shape <= 1 and the variance for shape <= 2; samples are
// still capped at MaxMs. Sample consumes one draw (rng.Rand.ExpFloat64,
// using X = scaleMs·exp(E/shape)).
func Pareto(scaleMs, shape float64) (Dist, error) {
	if !(scaleMs > 0) || !finite(scaleMs) {
		return nil, invalid("Pareto: scaleMs must be > 0 and finite, got %v", scaleMs)
	}
	if !(shape > 0) || !finite(shape) {
		return nil, invalid("Pareto: shape must be > 0 and finite, got %v", shape)
	}
	return pareto{scaleMs, shape}, nil
}

func (d pareto) Sample(r *rng.Rand) int64 {
	return toMs(d.scale * math.Exp(r.ExpFloat64()/d.shape))
}

func (d pareto) String() string {
	return "pareto{scale=" + fmtMs(d.scale) + ",shape=" + fmtNum(d.shape) + "}"
}

func (d pareto) Mean() float64 {
	if d.shape <= 1 {
		return math.Inf(1)
	}
	return d.shape * d.scale / (d.shape - 1)
}

func (d pareto) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	return d.scale * math.Pow(1-p, -1/d.shape)
}

func (d pareto) CDF(x float64) float64 {
	if x <= d.scale {
		return 0
	}
	return 1 - math.Pow(d.scale/x, d.shape)
}

// ---------------------------------------------------------------------------

type normal struct {
	mean, sd float64
	// keep is P(Y >= 0) = Φ(mean/sd) for the untruncated Y ~ N(mean, sd²);
	// lowCDF is 1 - keep = Φ(-mean/sd).
	keep, lowCDF float64
}

// Normal returns the normal distribution N(meanMs, stddevMs²) truncated to
// [0, ∞): X is distributed as Y given Y >= 0. meanMs and stddevMs are the
// parameters of the untruncated Y; Mean reports the (larger) mean of the
// truncated X. Requires meanMs >= 0 (so at least half of Y's mass is kept)
// and stddevMs > 0, both finite; use Constant for stddevMs = 0.
//
// Sample uses rejection: it draws Y with rng.Rand.NormFloat64 until
// Y >= 0. Each attempt succeeds with probability Φ(meanMs/stddevMs) >= 1/2,
// so the expected number of attempts is at most 2.
func Normal(meanMs, stddevMs float64) (Dist, error) {
	if !(meanMs >= 0) || !finite(meanMs) {
		return nil, invalid("Normal: meanMs must be >= 0 and finite, got %v", meanMs)
	}
	if !(stddevMs > 0) || !finite(stddevMs) {
		return nil, invalid("Normal: stddevMs must be > 0 and finite, got %v", stddevMs)
	}
	keep := stdNormCDF(meanMs / stddevMs)
	return normal{meanMs, stddevMs, keep, stdNormCDF(-meanMs / stddevMs)}, nil
}

func (d normal) Sample(r *rng.Rand) int64 {
	for {
		y := d.mean + float64(d.sd*r.NormFloat64())
		if y >= 0 {
			return toMs(y)
		}
	}
}

func (d normal) String() string {
	return "normal{mean=" + fmtMs(d.mean) + ",stddev=" + fmtMs(d.sd) + ",min=0}"
}

func (d normal) Mean() float64 {
	// E[Y | Y >= 0] = mean + sd·φ(α)/(1-Φ(α)), α = -mean/sd.
	a := -d.mean / d.sd
	phi := math.Exp(-a*a/2) / math.Sqrt(2*math.Pi)
	return d.mean + d.sd*phi/d.keep
}

func (d normal) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	switch p {
	case 0:
		return 0
	case 1:
		return math.Inf(1)
	}
	q := math.Min(1, d.lowCDF+p*d.keep)
	return math.Max(0, d.mean+d.sd*stdNormQuantile(q))
}

func (d normal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return (stdNormCDF((x-d.mean)/d.sd) - d.lowCDF) / d.keep
}

// ---------------------------------------------------------------------------

type bimodal struct {
	a, b Dist
	pB   float64
}

// Bimodal returns the mixture that samples b with probability pB and a
// otherwise, for example mostly-fast processing with an occasional slow
// record. Requires a and b non-nil and pB in [0, 1]. Sample consumes one
// rng.Rand.Float64 draw for the choice (always, even when pB is 0 or 1),
// then the draws of the chosen component.
//
// Mean and CDF are the weighted combinations of the components'. Quantile
// has no closed form; it is found by bisection on CDF between the two
// components' p-quantiles (the mixture quantile always lies between them)
// to a relative precision of about 1e-12. When the answer is the lower
// component quantile itself (for example the value of a Constant component
// that holds enough mass) it is returned exactly.
func Bimodal(a, b Dist, pB float64) (Dist, error) {
	if a == nil || b == nil {
		return nil, invalid("Bimodal: components must be non-nil")
	}
	if !(pB >= 0 && pB <= 1) {
		return nil, invalid("Bimodal: pB must be in [0, 1], got %v", pB)
	}
	return bimodal{a, b, pB}, nil
}

func (d bimodal) Sample(r *rng.Rand) int64 {
	if r.Float64() < d.pB {
		return d.b.Sample(r)
	}
	return d.a.Sample(r)
}

func (d bimodal) String() string {
	return "bimodal{a=" + d.a.String() + ",b=" + d.b.String() + ",pB=" + fmtNum(d.pB) + "}"
}

func (d bimodal) Mean() float64 {
	switch d.pB {
	case 0:
		return d.a.Mean()
	case 1:
		return d.b.Mean()
	}
	// Explicit conversions prevent FMA fusion, keeping results identical
	// across platforms.
	return float64((1-d.pB)*d.a.Mean()) + float64(d.pB*d.b.Mean())
}

func (d bimodal) CDF(x float64) float64 {
	return float64((1-d.pB)*d.a.CDF(x)) + float64(d.pB*d.b.CDF(x))
}

func (d bimodal) Quantile(p float64) float64 {
	if badP(p) {
		return math.NaN()
	}
	switch d.pB {
	case 0:
		return d.a.Quantile(p)
	case 1:
		return d.b.Quantile(p)
	}
	lo, hi := d.a.Quantile(p), d.b.Quantile(p)
	if lo > hi {
		lo, hi = hi, lo
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return math.NaN()
	}
	// With both weights positive, the mixture's support ends where the
	// larger component's does, and starts where the smaller one's does.
	if p == 1 {
		return hi
	}
	if p == 0 {
		return lo
	}
	if math.IsInf(hi, 1) {
		return hi // only possible for a component without a finite quantile
	}
	if d.CDF(lo) >= p {
		return lo
	}
	// Invariant: CDF(x) < p for all x < lo, and CDF(hi) >= p. Bisect until
	// the bracket is tiny; the iteration cap keeps the cost bounded and
	// deterministic.
	for range 200 {
		if hi-lo <= 1e-12*math.Max(1, math.Abs(hi)) {
			break
		}
		mid := lo + (hi-lo)/2
		if d.CDF(mid) >= p {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
