package peer

import (
	"fmt"
	"strings"
)

// Replay runs a fixed sequence on a fresh share-partition of b and the model, and returns a
// line per step with both outcomes, and the index of the first step with an unexplained
// disagreement (−1 if none).
func Replay(b *Broker, s Setup, steps []Step) (lines []string, failAt int, err error) {
	p, err := NewPair(b, s)
	if err != nil {
		return nil, -1, err
	}
	for i, st := range steps {
		r, err := p.Do(st)
		if err != nil {
			return lines, -1, err
		}
		tag := ""
		switch {
		case r.Unexplained:
			tag = "  ← UNEXPLAINED"
		case r.Deviation != "":
			tag = "  ← " + r.Deviation
		}
		lines = append(lines, fmt.Sprintf("%3d. %-48s %s%s", i+1, st, r.Describe(st), tag))
		if r.Unexplained {
			return lines, i, nil
		}
		if !r.GoOn {
			return lines, -1, nil
		}
	}
	return lines, -1, nil
}

// Minimize removes steps from a sequence that ends in an unexplained disagreement as long
// as what is left still ends in one (one step at a time, until no single removal keeps the
// failure), and returns the shortest sequence found with its step-by-step replay.
func Minimize(b *Broker, s Setup, steps []Step) ([]Step, string, error) {
	cur := append([]Step(nil), steps...)
	lines, at, err := Replay(b, s, cur)
	if err != nil {
		return nil, "", err
	}
	if at < 0 {
		return cur, strings.Join(lines, "\n"), nil
	}
	cur = cur[:at+1]
	for changed := true; changed; {
		changed = false
		for i := len(cur) - 1; i >= 0; i-- {
			try := append(append([]Step(nil), cur[:i]...), cur[i+1:]...)
			l, at, err := Replay(b, s, try)
			if err != nil {
				return nil, "", err
			}
			if at >= 0 {
				cur, lines, changed = try[:at+1], l, true
				break
			}
		}
	}
	return cur, strings.Join(lines, "\n"), nil
}
