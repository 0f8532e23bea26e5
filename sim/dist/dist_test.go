package dist

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim/rng"
)

const nSamples = 200000

// sampleSorted draws n samples from d with a fixed seed and returns them
// sorted, checking the [0, MaxMs] invariant on the way.
func sampleSorted(t *testing.T, d Dist, seed uint64, n int) []int64 {
	t.Helper()
	r := rng.New(seed)
	xs := make([]int64, n)
	for i := range xs {
		x := d.Sample(r)
		if x < 0 || x > MaxMs {
			t.Fatalf("%v: sample %d out of [0, MaxMs]", d, x)
		}
		xs[i] = x
	}
	slices.Sort(xs)
	return xs
}

func empiricalMean(xs []int64) float64 {
	s := 0.0
	for _, x := range xs {
		s += float64(x)
	}
	return s / float64(len(xs))
}

// empiricalQuantile is the smallest sample with at least p of the samples
// at or below it.
func empiricalQuantile(sorted []int64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return float64(sorted[max(0, min(i, len(sorted)-1))])
}

func within(got, want, rel float64) bool {
	// 1 ms of slack on top of the relative tolerance absorbs rounding.
	return math.Abs(got-want) <= rel*math.Abs(want)+1
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return 0
	}
	return 100 * (got - want) / want
}

func TestEmpiricalMatchesModel(t *testing.T) {
	cases := []struct {
		d       Dist
		meanTol float64 // relative; 0 skips the mean check
		ps      []float64
		qTol    float64
	}{
		{Must(Constant(5000)), 1e-12, []float64{0.01, 0.5, 0.99}, 0},
		{Must(Uniform(1000, 3000)), 0.005, []float64{0.1, 0.5, 0.9}, 0.01},
		{Must(Uniform(7, 7)), 1e-12, []float64{0.5}, 0},
		{Must(Exponential(8000)), 0.01, []float64{0.5, 0.9, 0.99}, 0.03},
		{Must(LogNormalP50P99(8000, 40000)), 0.02, []float64{0.5, 0.9, 0.99}, 0.03},
		{Must(LogNormal(math.Log(200), 1)), 0.02, []float64{0.1, 0.5, 0.99}, 0.03},
		{Must(Pareto(1000, 3)), 0.02, []float64{0.5, 0.9, 0.99}, 0.03},
		{Must(Normal(1000, 1000)), 0.01, []float64{0.1, 0.5, 0.99}, 0.03},
		{Must(Normal(50000, 5000)), 0.01, []float64{0.01, 0.5, 0.99}, 0.03},
		{Must(Bimodal(Must(Constant(100)), Must(LogNormalP50P99(8000, 40000)), 0.1)),
			0.03, []float64{0.5, 0.95, 0.99}, 0.03},
		{Must(Bimodal(Must(LogNormalP50P99(200, 1000)), Must(LogNormalP50P99(10000, 30000)), 0.3)),
			0.03, []float64{0.25, 0.5, 0.75, 0.99}, 0.03},
	}
	for i, c := range cases {
		t.Run(c.d.String(), func(t *testing.T) {
			xs := sampleSorted(t, c.d, uint64(100+i), nSamples)
			if c.meanTol > 0 {
				got, want := empiricalMean(xs), c.d.Mean()
				if !within(got, want, c.meanTol) {
					t.Errorf("mean: empirical %.2f, model %.2f", got, want)
				}
				t.Logf("mean: empirical %.2f, model %.2f (%+.3f%%)", got, want, relErr(got, want))
			}
			for _, p := range c.ps {
				got, want := empiricalQuantile(xs, p), c.d.Quantile(p)
				if !within(got, want, c.qTol) {
					t.Errorf("p%g: empirical %.2f, model %.2f", p*100, got, want)
				}
				t.Logf("p%g: empirical %.2f, model %.2f (%+.3f%%)", p*100, got, want, relErr(got, want))
			}
		})
	}
}

func TestLogNormalP50P99Exact(t *testing.T) {
	d := Must(LogNormalP50P99(8000, 40000))
	if q := d.Quantile(0.5); math.Abs(q-8000) > 1e-6 {
		t.Errorf("Quantile(0.5) = %v, want 8000", q)
	}
	if q := d.Quantile(0.99); math.Abs(q-40000) > 1e-6 {
		t.Errorf("Quantile(0.99) = %v, want 40000", q)
	}
}

// TestQuantileCDFRoundTrip checks that Quantile inverts CDF for the
// continuous models, including the numerical Bimodal quantile.
func TestQuantileCDFRoundTrip(t *testing.T) {
	ds := []Dist{
		Must(Uniform(10, 20)),
		Must(Exponential(500)),
		Must(LogNormalP50P99(8000, 40000)),
		Must(Pareto(100, 1.5)),
		Must(Normal(100, 300)),
		Must(Bimodal(Must(LogNormal(3, 0.5)), Must(Exponential(5000)), 0.2)),
		Must(Bimodal(Must(Uniform(0, 10)), Must(Bimodal(Must(Exponential(50)), Must(Pareto(10, 2)), 0.5)), 0.6)),
	}
	for _, d := range ds {
		for _, p := range []float64{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999} {
			q := d.Quantile(p)
			if c := d.CDF(q); math.Abs(c-p) > 1e-9 {
				t.Errorf("%v: CDF(Quantile(%g)) = %g", d, p, c)
			}
		}
		for _, p := range []float64{-0.1, 1.1, math.NaN()} {
			if q := d.Quantile(p); !math.IsNaN(q) {
				t.Errorf("%v: Quantile(%v) = %v, want NaN", d, p, q)
			}
		}
	}
}

func TestQuantileEdges(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		d      Dist
		q0, q1 float64
	}{
		{Must(Constant(3)), 3, 3},
		{Must(Uniform(0, 9)), -0.5, 9.5},
		{Must(Exponential(10)), 0, inf},
		{Must(LogNormal(1, 1)), 0, inf},
		{Must(Pareto(5, 2)), 5, inf},
		{Must(Normal(10, 1)), 0, inf},
		{Must(Bimodal(Must(Constant(3)), Must(Uniform(5, 9)), 0.5)), 3, 9.5},
	}
	for _, c := range cases {
		if q := c.d.Quantile(0); q != c.q0 {
			t.Errorf("%v: Quantile(0) = %v, want %v", c.d, q, c.q0)
		}
		if q := c.d.Quantile(1); q != c.q1 {
			t.Errorf("%v: Quantile(1) = %v, want %v", c.d, q, c.q1)
		}
	}
	// The mixture quantile lands exactly on a Constant component's value.
	d := Must(Bimodal(Must(Constant(100)), Must(Exponential(1000)), 0.1))
	if q := d.Quantile(0.5); q != 100 {
		t.Errorf("Bimodal Quantile(0.5) = %v, want exactly 100", q)
	}
	if m := Must(Pareto(1, 1)).Mean(); !math.IsInf(m, 1) {
		t.Errorf("Pareto shape 1 mean = %v, want +Inf", m)
	}
}

func TestUniformCoversEndpoints(t *testing.T) {
	xs := sampleSorted(t, Must(Uniform(3, 6)), 1, 40000)
	counts := map[int64]int{}
	for _, x := range xs {
		counts[x]++
	}
	for v := int64(3); v <= 6; v++ {
		if c := counts[v]; math.Abs(float64(c)-10000) > 400 {
			t.Errorf("value %d seen %d times, want ~10000", v, c)
		}
	}
	if len(counts) != 4 {
		t.Errorf("saw values %v, want only 3..6", counts)
	}
}

func TestHeavyTailsAreCapped(t *testing.T) {
	for _, d := range []Dist{
		Must(Pareto(1000, 0.05)),
		Must(LogNormal(40, 1)), // median e^40 ≈ 2.4e17 ms, far beyond MaxMs
		Must(Exponential(1e15)),
	} {
		xs := sampleSorted(t, d, 5, 10000)
		if xs[len(xs)-1] != MaxMs {
			t.Errorf("%v: largest sample %d, want the cap %d", d, xs[len(xs)-1], MaxMs)
		}
	}
}

func TestConstructorsRejectBadParameters(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := Must(Constant(1))
	cases := []struct {
		name string
		f    func() (Dist, error)
	}{
		{"Constant", func() (Dist, error) { return Constant(-1) }},
		{"Constant", func() (Dist, error) { return Constant(MaxMs + 1) }},
		{"Uniform", func() (Dist, error) { return Uniform(5, 4) }},
		{"Uniform", func() (Dist, error) { return Uniform(-1, 3) }},
		{"Uniform", func() (Dist, error) { return Uniform(0, MaxMs+1) }},
		{"Exponential", func() (Dist, error) { return Exponential(0) }},
		{"Exponential", func() (Dist, error) { return Exponential(-1) }},
		{"Exponential", func() (Dist, error) { return Exponential(nan) }},
		{"Exponential", func() (Dist, error) { return Exponential(inf) }},
		{"LogNormalP50P99", func() (Dist, error) { return LogNormalP50P99(0, 10) }},
		{"LogNormalP50P99", func() (Dist, error) { return LogNormalP50P99(10, 10) }},
		{"LogNormalP50P99", func() (Dist, error) { return LogNormalP50P99(10, 5) }},
		{"LogNormalP50P99", func() (Dist, error) { return LogNormalP50P99(nan, 5) }},
		{"LogNormalP50P99", func() (Dist, error) { return LogNormalP50P99(10, inf) }},
		{"LogNormal", func() (Dist, error) { return LogNormal(0, 0) }},
		{"LogNormal", func() (Dist, error) { return LogNormal(0, -1) }},
		{"LogNormal", func() (Dist, error) { return LogNormal(0, inf) }},
		{"LogNormal", func() (Dist, error) { return LogNormal(nan, 1) }},
		{"LogNormal", func() (Dist, error) { return LogNormal(-inf, 1) }},
		{"Pareto", func() (Dist, error) { return Pareto(0, 1) }},
		{"Pareto", func() (Dist, error) { return Pareto(-1, 1) }},
		{"Pareto", func() (Dist, error) { return Pareto(1, 0) }},
		{"Pareto", func() (Dist, error) { return Pareto(1, nan) }},
		{"Pareto", func() (Dist, error) { return Pareto(inf, 1) }},
		{"Bimodal", func() (Dist, error) { return Bimodal(nil, ok, 0.5) }},
		{"Bimodal", func() (Dist, error) { return Bimodal(ok, nil, 0.5) }},
		{"Bimodal", func() (Dist, error) { return Bimodal(ok, ok, -0.1) }},
		{"Bimodal", func() (Dist, error) { return Bimodal(ok, ok, 1.1) }},
		{"Bimodal", func() (Dist, error) { return Bimodal(ok, ok, nan) }},
		{"Normal", func() (Dist, error) { return Normal(-1, 1) }},
		{"Normal", func() (Dist, error) { return Normal(1, 0) }},
		{"Normal", func() (Dist, error) { return Normal(1, -1) }},
		{"Normal", func() (Dist, error) { return Normal(nan, 1) }},
		{"Normal", func() (Dist, error) { return Normal(1, inf) }},
	}
	for _, c := range cases {
		d, err := c.f()
		if err == nil {
			t.Errorf("%s: accepted bad parameters, got %v", c.name, d)
			continue
		}
		if d != nil {
			t.Errorf("%s: returned non-nil Dist with error", c.name)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %q does not wrap ErrInvalid", c.name, err)
		}
		if !strings.Contains(err.Error(), c.name+":") {
			t.Errorf("%s: error %q does not name the constructor", c.name, err)
		}
	}
	// Boundary values that must be accepted.
	for _, f := range []func() (Dist, error){
		func() (Dist, error) { return Constant(0) },
		func() (Dist, error) { return Constant(MaxMs) },
		func() (Dist, error) { return Uniform(0, MaxMs) },
		func() (Dist, error) { return Normal(0, 1) },
		func() (Dist, error) { return Bimodal(ok, ok, 0) },
		func() (Dist, error) { return Bimodal(ok, ok, 1) },
		func() (Dist, error) { return Pareto(1, 0.01) },
	} {
		if _, err := f(); err != nil {
			t.Errorf("rejected valid parameters: %v", err)
		}
	}
}

func TestString(t *testing.T) {
	cases := []struct {
		d    Dist
		want string
	}{
		{Must(Constant(0)), "constant{0ms}"},
		{Must(Constant(1500)), "constant{1500ms}"},
		{Must(Uniform(100, 2000)), "uniform{min=100ms,max=2s}"},
		{Must(Exponential(90000)), "exponential{mean=90s}"},
		{Must(Exponential(7200000)), "exponential{mean=2h}"},
		{Must(Exponential(2.5)), "exponential{mean=2.5ms}"},
		{Must(LogNormalP50P99(8000, 40000)), "lognormal{p50=8s,p99=40s}"},
		{Must(LogNormal(2, 0.5)), "lognormal{mu=2,sigma=0.5}"},
		{Must(Pareto(100, 1.5)), "pareto{scale=100ms,shape=1.5}"},
		{Must(Normal(8000, 2000)), "normal{mean=8s,stddev=2s,min=0}"},
		{Must(Bimodal(Must(Constant(60000)), Must(Exponential(50)), 0.25)),
			"bimodal{a=constant{1m},b=exponential{mean=50ms},pB=0.25}"},
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func allDists() []Dist {
	return []Dist{
		Must(Constant(5)),
		Must(Uniform(10, 1000)),
		Must(Exponential(800)),
		Must(LogNormalP50P99(8000, 40000)),
		Must(Pareto(100, 1.2)),
		Must(Normal(1000, 800)),
		Must(Bimodal(Must(Constant(10)), Must(LogNormalP50P99(500, 5000)), 0.5)),
	}
}

func TestDeterminism(t *testing.T) {
	for _, d := range allDists() {
		a, b := rng.New(77), rng.New(77)
		for i := range 10000 {
			if x, y := d.Sample(a), d.Sample(b); x != y {
				t.Fatalf("%v: sample %d differs: %d vs %d", d, i, x, y)
			}
		}
		// The generators must also have consumed the same draws.
		if a.Uint64() != b.Uint64() {
			t.Fatalf("%v: draw counts diverged", d)
		}
	}
}

// TestGoldenSamples pins the first samples for seed 1. A failure means
// sampling changed and recorded simulations will no longer replay.
func TestGoldenSamples(t *testing.T) {
	want := map[string][]int64{
		"constant{5ms}":                                                  {5, 5, 5, 5, 5, 5},
		"uniform{min=10ms,max=1s}":                                       {706, 525, 578, 397, 700, 152},
		"exponential{mean=800ms}":                                        {971, 588, 683, 397, 956, 124},
		"lognormal{p50=8s,p99=40s}":                                      {29463, 19693, 10834, 5077, 16923, 11342},
		"pareto{scale=100ms,shape=1.2}":                                  {275, 184, 204, 151, 271, 114},
		"normal{mean=1s,stddev=800ms,min=0}":                             {2508, 2042, 1351, 474, 1866, 1404},
		"bimodal{a=constant{10ms},b=lognormal{p50=500ms,p99=5s},pB=0.5}": {10, 10, 10, 772, 367, 10},
	}
	for _, d := range allDists() {
		w, ok := want[d.String()]
		if !ok {
			t.Fatalf("no golden values for %v", d)
		}
		r := rng.New(1)
		got := make([]int64, len(w))
		for i := range got {
			got[i] = d.Sample(r)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%v: first samples %v, want %v", d, got, w)
		}
	}
}

var sink int64

func BenchmarkSample(b *testing.B) {
	for _, d := range allDists() {
		b.Run(d.String(), func(b *testing.B) {
			r := rng.New(1)
			var s int64
			for b.Loop() {
				s += d.Sample(r)
			}
			sink = s
		})
	}
}

// expMs is toMs(math.Exp(y)) for every y: around each threshold of its table (every float
// within a few thousand ulps), on a fine sweep of the table's whole range, and beyond it.
func TestExpMsIsRoundedExp(t *testing.T) {
	tab := expTableOnce()
	if tab == nil {
		t.Fatal("the threshold table did not build: math.Exp is not monotonic near a half-way point")
	}
	check := func(y float64) {
		if got, want := expMs(y), toMs(math.Exp(y)); got != want {
			t.Fatalf("expMs(%v) = %d, toMs(math.Exp) = %d", y, got, want)
		}
	}
	for _, th := range tab.yt {
		k := orderKey(th)
		for d := uint64(0); d < 2000; d++ {
			check(fromKey(k - d))
			check(fromKey(k + d))
		}
	}
	lo, hi := tab.yt[0]-3, tab.yt[expTableMax-1]+3
	for i := 0; i <= 2_000_000; i++ {
		check(lo + (hi-lo)*float64(i)/2_000_000)
	}
	for _, y := range []float64{math.Inf(-1), -800, -1e-300, 0, 1e-300, 30, 700, 710, math.Inf(1)} {
		check(y)
	}
}
