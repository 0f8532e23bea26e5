package linearize

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Replaying a class whose operations do not overlap in time gives porcupine's verdict, on
// every class of simulated fault-heavy histories, as recorded and with random operations
// made wrong (a delivery count off by one, an acknowledgement reported to another client,
// an acceptance turned into a release), so that illegal classes are compared too.
func TestReplayAgreesWithTheSearch(t *testing.T) {
	m := newModel()
	var decided [2]int // illegal, legal
	skipped := 0
	compare := func(t *testing.T, h []sim.Op, hidden []sim.HiddenEvent, o Options) {
		o = o.withDefaults()
		for _, sh := range splitShares(h, hidden) {
			e, clients := buildEnv(sh, h, o.Spec)
			e.inForce = o.InForce[sh.group]
			var rb replayBuf
			for _, c := range buildClasses(sh, h, e, clients, nil) {
				legal, ok := rb.run(c.ops)
				if !ok {
					skipped++
					continue
				}
				want := checkParts(m, [][]porcupine.Operation{c.ops}, time.Minute)
				if want == porcupine.Unknown || legal != (want == porcupine.Ok) {
					t.Fatalf("%s/%s offsets %s: replay says legal=%v, porcupine %s", sh.group, sh.partition, rangesString(c.ranges), legal, want)
				}
				if legal {
					decided[1]++
				} else {
					decided[0]++
				}
			}
		}
	}
	worlds := []struct {
		name string
		cfg  sim.Config
	}{
		{"faulty-4.2", testworlds.Faulty(model.Kafka42)},
		{"faulty-4.1", testworlds.Faulty(model.Kafka41)},
		{"busy", busyWorld()},
		{"chaos-4.2", chaosWorld(model.Kafka42, true)},
	}
	for _, w := range worlds {
		t.Run(w.name, func(t *testing.T) {
			res := runHistory(t, w.cfg, 1)
			o := OptionsFor(w.cfg)
			compare(t, res.History, res.HiddenEvents, o)
			rng := rand.New(rand.NewPCG(1, 2))
			for range 3 {
				h := slices.Clone(res.History)
				for range len(h) / 20 {
					op := &h[rng.IntN(len(h))]
					switch {
					case op.Kind == "fetch" && len(op.Acquired) > 0:
						op.Acquired = slices.Clone(op.Acquired)
						op.Acquired[0].DeliveryCount += int16(1 - 2*rng.IntN(2))
					case op.Kind == "ack" && rng.IntN(2) == 0:
						op.Client = h[rng.IntN(len(h))].Client
					case op.Kind == "ack" && len(op.Acks) > 0:
						op.Acks = slices.Clone(op.Acks)
						op.Acks[0].Types = []model.AckType{model.AckRelease}
					}
				}
				compare(t, h, res.HiddenEvents, o)
			}
		})
	}
	t.Logf("classes decided by replay: %d legal, %d illegal; %d with overlapping operations left to the search", decided[1], decided[0], skipped)
	if decided[0] < 50 || decided[1] < 50 {
		t.Errorf("too few classes compared: %d legal, %d illegal", decided[1], decided[0])
	}
}
