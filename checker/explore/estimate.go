package explore

import (
	"fmt"
	"math"
	"os"
	"time"
)

// Estimating a scope's size before the work. A short sample of the real search (its first
// levels, breadth first) gives the sizes of those levels. The levels of these state spaces
// rise and fall; the log of the ratio between one level and the one before falls with the
// depth, fast at first and then more slowly, about linearly in the log of the depth. The
// estimate fits that line to the sampled levels from depth 4 on, extends it until a level
// would hold less than one state, and adds up the levels. When the sample finishes the
// search, the count is exact.
//
// Measured on eight scopes that finish (their level profiles, from samples of 1 % to 30 % of
// their states): within a factor of 4 from 5 % of the states, 5 from 1 %; on the standard
// scope (over a billion states, a sample of its first 9 levels) it says some 0.4 G, low by
// more than that. TestEstimateWithinFactor checks the factor on five scopes.

// estimateFactor is the error bound of Estimate measured on scopes that finish, with a
// sample of at least a twentieth of their states and MinSampleLevels levels.
const estimateFactor = 5

// MinSampleLevels is the number of complete levels the estimate's sample takes at least.
const MinSampleLevels = 7

// EstimateFactor is the factor within which Estimate was measured to be (see estimate.go).
const EstimateFactor = estimateFactor

// SizeEstimate is what a sample of a search says of the whole.
type SizeEstimate struct {
	// Exact is true when the sample finished the search: States is then the count.
	Exact bool
	// States is the estimated number of states of the whole scope; SampleStates those the
	// sample reached, in SampleTime.
	States, SampleStates int
	SampleTime           time.Duration
	// Levels are the level sizes the sample completed.
	Levels []int
	// Depth is the estimated depth of the search.
	Depth int
	// Rate is the sample's states per second.
	Rate float64
	// Fitted is false when the sample completed too few levels for a fit: States is then the
	// sample's count, a lower bound.
	Fitted bool
	// Result is the sample's result (a violation or finding it met is already certain).
	Result *Result
}

// Seconds is the estimated time of the whole search at the sample's rate.
func (e *SizeEstimate) Seconds() float64 {
	if e.Rate <= 0 {
		return 0
	}
	return float64(e.States) / e.Rate
}

// Estimate samples the search of sc for about sample (wall clock), but at least until its
// first minLevels levels are complete (the fit needs them; 7 is what it was measured with),
// and estimates the whole. When the sample finishes the search, its Result is the search's
// (with liveness if sc asks for it).
func Estimate(sc Scope, sample time.Duration, minLevels int) (*SizeEstimate, error) {
	d := time.Now().Add(sample)
	if sc.Deadline.IsZero() || d.Before(sc.Deadline) {
		sc.Deadline = d
		sc.deadlineFrom = minLevels
	}
	res, err := Explore(sc, nil)
	if err != nil {
		return nil, err
	}
	e := &SizeEstimate{States: res.States, SampleStates: res.States, SampleTime: res.Elapsed, Rate: res.StatesPerSecond(), Result: res, Depth: res.Depth}
	if res.Complete || res.Violation != nil {
		e.Exact = res.Complete
		e.Levels = res.Levels
		return e, nil
	}
	// The last level is partial: the fit uses the complete ones.
	levels := res.Levels
	if len(levels) > 0 && res.Bounded != "depth" {
		levels = levels[:len(levels)-1]
	}
	e.Levels = levels
	total, depth, ok := fitLevels(levels)
	if ok {
		e.Fitted = true
		e.States = max(res.States, int(math.Min(total, 1e15)))
		e.Depth = depth
	}
	return e, nil
}

// fitLevels extends the level sizes L (L[0] the root) and returns the total, the depth where
// the levels end, and false when there are too few levels to fit. The log-ratio of level d to
// level d-1 is fitted, from d = 4 on (at least the last three), as a line in ln d; its slope
// is held at -1 or steeper, so that a sample whose last levels happen to grow faster still
// ends.
func fitLevels(L []int) (float64, int, bool) {
	if len(L) < 5 {
		return 0, 0, false
	}
	lr := func(d int) float64 { return math.Log(float64(max(L[d], 1)) / float64(max(L[d-1], 1))) }
	from := min(4, len(L)-3)
	var sx, sy, sxx, sxy, n float64
	for d := from; d < len(L); d++ {
		x, y := math.Log(float64(d)), lr(d)
		sx, sy, sxx, sxy, n = sx+x, sy+y, sxx+x*x, sxy+x*y, n+1
	}
	mx, my := sx/n, sy/n
	slope := (sxy - n*mx*my) / (sxx - n*mx*mx)
	slope = math.Min(slope, -1)
	total := 0.0
	for _, l := range L {
		total += float64(l)
	}
	cur := float64(L[len(L)-1])
	depth := len(L) - 1
	for depth < 100000 {
		d := depth + 1
		cur *= math.Exp(my + slope*(math.Log(float64(d))-mx))
		if cur < 1 || total > 1e18 {
			break
		}
		total += cur
		depth = d
	}
	return total, depth, true
}

// CheckTempDir checks that the search could spill into dir ("": the system's temporary
// directory): that a directory can be made there and removed.
func CheckTempDir(dir string) error {
	d, err := os.MkdirTemp(dir, "sharesim-explore-probe-")
	if err != nil {
		if dir == "" {
			dir = os.TempDir()
		}
		return fmt.Errorf("cannot make the spill directory in %s: %w", dir, err)
	}
	return os.Remove(d)
}
