package explore

import (
	"fmt"
	"math"
	"os"
	"time"
)

// Estimating a scope's size before the work. A short sample of the real search (the first
// levels, breadth first) gives the sizes of its first levels. The levels of these state spaces
// rise and fall (a bell in log scale: the log of the ratio between one level and the next
// falls about linearly with the depth until the peak, more slowly after it). The estimate fits
// a line to the log-ratios of the complete levels sampled (from level 3, where the first
// levels' irregular branching has settled), extends it until a level would hold less than one
// state, with half the slope past the peak, and adds up the levels. When the sample
// finishes the search, the count is exact.
//
// Measured on scopes that finish (TestEstimateWithinFactor): from a sample of a tenth of the
// states, within estimateFactor of the true count; it tends to be low, because the right tail
// of the real profile is longer than the fit's.

// estimateFactor is the error bound of Estimate measured on the scopes of
// TestEstimateWithinFactor with a sample of a tenth of their states.
const estimateFactor = 4

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

// Estimate samples the search of sc for at most sample (wall clock) or maxStates states
// (whichever comes first; 0: no bound of that kind) and estimates the whole. When the sample
// finishes the search, its Result is the search's (with liveness if sc asks for it).
func Estimate(sc Scope, sample time.Duration, maxStates int) (*SizeEstimate, error) {
	if sample > 0 {
		d := time.Now().Add(sample)
		if sc.Deadline.IsZero() || d.Before(sc.Deadline) {
			sc.Deadline = d
		}
	}
	if maxStates > 0 && (sc.MaxStates == 0 || maxStates < sc.MaxStates) {
		sc.MaxStates = maxStates
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

// fitLevels extends the level sizes L (L[0] the root) by the line fitted to their
// log-ratios and returns the total, the depth where the levels end, and false when there are
// too few levels to fit.
func fitLevels(L []int) (float64, int, bool) {
	if len(L) < 5 {
		return 0, 0, false
	}
	lr := make([]float64, len(L)-1)
	for i := range lr {
		lr[i] = math.Log(float64(max(L[i+1], 1)) / float64(max(L[i], 1)))
	}
	from := min(3, len(lr)-2)
	var sx, sy, sxx, sxy, n float64
	for x := from; x < len(lr); x++ {
		fx, fy := float64(x), lr[x]
		sx, sy, sxx, sxy, n = sx+fx, sy+fy, sxx+fx*fx, sxy+fx*fy, n+1
	}
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	// The levels must end: a fit that does not fall is replaced by a slow fall.
	slope = math.Min(slope, -0.05)
	total := 0.0
	for _, l := range L {
		total += float64(l)
	}
	r := (sy - slope*sx) / n
	r += slope * float64(len(lr)-1) // the fitted log-ratio at the last sampled level
	cur := float64(L[len(L)-1])
	depth := len(L) - 1
	for depth < 10000 {
		if r > 0 {
			r += slope
		} else {
			r += slope / 2
		}
		cur *= math.Exp(r)
		if cur < 1 || total > 1e18 {
			break
		}
		total += cur
		depth++
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
