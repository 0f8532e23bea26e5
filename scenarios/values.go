package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/sim"
)

// Parsers for the value syntaxes of scenario files: durations, rates and probabilities.
// They return a short description of the problem; the decoder adds the position.

// maxDurationMs bounds every duration (about 31.7 years, the same cap as sim/dist), so
// that sums of durations cannot overflow.
const maxDurationMs = 1_000_000_000_000

var durationUnits = []struct {
	name string
	ms   float64
}{
	// Longest names first so that "ms" is not read as "m" followed by "s".
	{"ms", 1}, {"s", 1000}, {"m", 60_000}, {"h", 3_600_000}, {"d", 86_400_000},
}

var errDurationSyntax = errors.New("bad duration")

// parseDuration parses "30s", "500ms", "1h", "2m30s", "1.5s", "7d" into milliseconds.
// The result must be a whole number of milliseconds in [0, maxDurationMs].
func parseDuration(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errDurationSyntax
	}
	if s == "0" {
		return 0, nil
	}
	total := 0.0
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, errDurationSyntax
		}
		num := rest[:i]
		rest = rest[i:]
		j := 0
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || strings.Count(num, ".") > 1 {
			return 0, errDurationSyntax
		}
		found := false
		for _, u := range durationUnits {
			if u.name == unit {
				total += v * u.ms
				found = true
				break
			}
		}
		if !found {
			return 0, errDurationSyntax
		}
	}
	if total > maxDurationMs {
		return 0, fmt.Errorf("too large (at most %s)", formatMs(maxDurationMs))
	}
	ms := math.Round(total)
	if math.Abs(total-ms) > 1e-6*math.Max(1, total) {
		return 0, fmt.Errorf("not a whole number of milliseconds")
	}
	return int64(ms), nil
}

// formatMs renders milliseconds in the duration syntax, the largest exact unit first
// (90000 → "1m30s").
func formatMs(ms int64) string {
	if ms == 0 {
		return "0s"
	}
	neg := ms < 0
	if neg {
		ms = -ms
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for _, u := range []struct {
		name string
		ms   int64
	}{{"d", 86_400_000}, {"h", 3_600_000}, {"m", 60_000}, {"s", 1000}, {"ms", 1}} {
		if ms >= u.ms {
			fmt.Fprintf(&b, "%d%s", ms/u.ms, u.name)
			ms %= u.ms
		}
	}
	return b.String()
}

// parseRate parses "200/s", "12/m", "3600/h" (or a plain number, per second) into records
// per second.
func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, unit, hasUnit := strings.Cut(s, "/")
	per := 1.0
	if hasUnit {
		switch strings.TrimSpace(unit) {
		case "s":
		case "m":
			per = 60
		case "h":
			per = 3600
		default:
			return 0, fmt.Errorf("unknown unit /%s", strings.TrimSpace(unit))
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("bad number")
	}
	if v <= 0 {
		return 0, errors.New("not positive")
	}
	r := v / per
	if r > 1e9 {
		return 0, errors.New("too large (at most 1000000000/s)")
	}
	if r < MinRate {
		return 0, fmt.Errorf("too small (at least %g/s, about one record in 4 months)", MinRate)
	}
	return r, nil
}

// MinRate is the lowest rate a producer may be given, records/s (one record in about 116
// days). Below it a producer's gap between two batches reaches beyond any run (366 days
// at most) and beyond what a millisecond count can hold once multiplied by a batch: a
// rate of 1e-300/s once overflowed the batch time and spun at virtual time 0.
const MinRate = sim.MinProducerRate

// formatRate renders records per second in the rate syntax.
func formatRate(r float64) string {
	return strconv.FormatFloat(r, 'g', -1, 64) + "/s"
}

// parseProbability parses "1/10000", "0.5%", "0.0001", "1e-4" into a value in [0, 1].
func parseProbability(s string) (float64, error) {
	s = strings.TrimSpace(s)
	var v float64
	switch {
	case strings.HasSuffix(s, "%"):
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		if err != nil {
			return 0, errors.New("bad number")
		}
		v = f / 100
	case strings.Contains(s, "/"):
		a, b, _ := strings.Cut(s, "/")
		x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if err1 != nil || err2 != nil {
			return 0, errors.New("bad fraction")
		}
		if y == 0 {
			return 0, errors.New("division by zero")
		}
		v = x / y
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, errors.New("bad number")
		}
		v = f
	}
	if math.IsNaN(v) || v < 0 || v > 1 {
		return 0, errors.New("outside [0, 1]")
	}
	return v, nil
}

// perMillion converts a probability to the simulator's parts per million.
func perMillion(p float64) (int64, error) {
	pm := int64(math.Round(p * 1e6))
	if p > 0 && pm == 0 {
		return 0, errors.New("below 1/1000000, the simulator's resolution")
	}
	return pm, nil
}
