package live

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
	"github.com/sharesim/sharesim/sim/rng"
)

// Scaling records what --time-scale did to a scenario: every duration multiplied by
// Factor and every rate divided by it, except where a broker's minimum held a value up.
type Scaling struct {
	Factor float64 `json:"factor"`
	// Scaled lists each duration (and rate) that was scaled: "lock duration 30s → 1.5s".
	Scaled []string `json:"scaled"`
	// Floors lists the values a broker minimum kept above their scaled value, naming the
	// minimum; the prediction uses the same floored value.
	Floors []string `json:"floors,omitempty"`
}

// Floor is a minimum a broker puts on one setting.
type Floor struct {
	// Ms is the smallest value the broker accepts.
	Ms int64
	// Why names the broker setting behind it.
	Why string
}

// Floors are the broker's minimums for the settings a live run changes; zero Ms: none.
type Floors struct {
	LockMs, SessionTimeoutMs, HeartbeatMs Floor
}

// scaledDist is a distribution whose samples are the inner one's times Factor: what the
// simulator samples (milliseconds, rounded) and what live mode waits (SampleDuration, not
// rounded, so a 0.5 ms mean stays 0.5 ms).
type scaledDist struct {
	inner dist.Dist
	f     float64
}

func (d scaledDist) Sample(r *rng.Rand) int64 {
	return min(int64(math.Round(float64(d.inner.Sample(r))*d.f)), dist.MaxMs)
}
func (d scaledDist) Mean() float64              { return d.inner.Mean() * d.f }
func (d scaledDist) Quantile(p float64) float64 { return d.inner.Quantile(p) * d.f }
func (d scaledDist) CDF(x float64) float64      { return d.inner.CDF(x / d.f) }
func (d scaledDist) String() string             { return fmt.Sprintf("%s×%g", d.inner.String(), d.f) }

// SampleDuration draws one wait from d for live mode.
func SampleDuration(d dist.Dist, r *rng.Rand) time.Duration {
	if s, ok := d.(scaledDist); ok {
		return time.Duration(float64(s.inner.Sample(r)) * s.f * float64(time.Millisecond))
	}
	return time.Duration(d.Sample(r)) * time.Millisecond
}

// Scale returns cfg with every duration multiplied by f and every rate divided by it, so
// the scenario's records are the same in a run f times as long; floors hold the settings a
// broker does not let go lower (the result uses the floored value, so the simulator predicts
// what the broker is asked to do).
func Scale(cfg sim.Config, f float64, floors Floors) (sim.Config, Scaling, error) {
	if !(f > 0) || f > 1000 {
		return cfg, Scaling{}, fmt.Errorf("--time-scale %g: expected a factor > 0 and at most 1000", f)
	}
	s := Scaling{Factor: f}
	out := cfg
	ms := func(what string, v *int64) {
		if *v <= 0 || f == 1 {
			return
		}
		nv := int64(math.Round(float64(*v) * f))
		if nv < 1 {
			nv = 1
		}
		s.Scaled = append(s.Scaled, fmt.Sprintf("%s %s → %s", what, fmtMs(*v), fmtMs(nv)))
		*v = nv
	}
	floored := func(what string, v *int64, fl Floor) {
		ms(what, v)
		if fl.Ms > 0 && *v > 0 && *v < fl.Ms {
			s.Floors = append(s.Floors, fmt.Sprintf("%s kept at %s, not %s: %s", what, fmtMs(fl.Ms), fmtMs(*v), fl.Why))
			*v = fl.Ms
		}
	}
	d := func(what string, v *dist.Dist) {
		if *v == nil || f == 1 {
			return
		}
		s.Scaled = append(s.Scaled, fmt.Sprintf("%s %s × %g", what, (*v).String(), f))
		*v = scaledDist{inner: *v, f: f}
	}
	if floors.LockMs.Ms == 0 && f < 1 {
		// The embedded broker has no lock minimum: the model's range check is relaxed the
		// same way (model.Config.RelaxRanges) so the prediction runs the scaled lock.
		out.Kafka.RelaxRanges = true
	}
	lock := out.Kafka.RecordLockDurationMs
	floored("acquisition lock (share.record.lock.duration.ms)", &lock, floors.LockMs)
	out.Kafka.RecordLockDurationMs = lock
	ms("duration", &out.DurationMs)
	ms("heal", &out.HealMs)
	ms("warmup", &out.WarmupMs)
	ms("metrics interval", &out.MetricsIntervalMs)
	floored("session timeout", &out.Membership.SessionTimeoutMs, floors.SessionTimeoutMs)
	floored("heartbeat interval", &out.Membership.HeartbeatIntervalMs, floors.HeartbeatMs)
	ms("request timeout", &out.Network.RequestTimeoutMs)
	ms("connection reset delay", &out.Network.ResetDelayMs)
	d("network latency", &out.Network.Latency)
	d("log read latency", &out.LogReadLatency)
	d("share coordinator write latency", &out.Coordinator.WriteLatency)
	d("share coordinator read latency", &out.Coordinator.ReadLatency)
	out.Topics = append([]sim.Topic(nil), cfg.Topics...)
	for i := range out.Topics {
		t := &out.Topics[i]
		ms("topic "+t.Name+" retention.ms", &t.RetentionMs)
		ms("topic "+t.Name+" retention check interval", &t.RetentionCheckIntervalMs)
		ms("topic "+t.Name+" log.roll.ms", &t.SegmentMs)
	}
	out.Producers = append([]sim.Producer(nil), cfg.Producers...)
	for i := range out.Producers {
		p := &out.Producers[i]
		if f != 1 {
			nr := p.RecordsPerSecond / f
			s.Scaled = append(s.Scaled, fmt.Sprintf("producer %s rate %g/s → %g/s", p.Name, p.RecordsPerSecond, nr))
			p.RecordsPerSecond = nr
		}
		ms("producer "+p.Name+" burst interval", &p.BurstEveryMs)
		ms("producer "+p.Name+" linger.ms", &p.LingerMs)
		ms("producer "+p.Name+" start", &p.StartMs)
		ms("producer "+p.Name+" stop", &p.StopMs)
		ms("producer "+p.Name+" transaction commit delay", &p.TxnCommitDelayMs)
	}
	out.Groups = append([]sim.Group(nil), cfg.Groups...)
	for i := range out.Groups {
		g := &out.Groups[i]
		ms("group "+g.Name+" auto.commit.interval.ms", &g.AutoCommitIntervalMs)
		g.Consumers = append([]sim.ConsumerSpec(nil), g.Consumers...)
		for j := range g.Consumers {
			c := &g.Consumers[j]
			d("consumer "+c.Name+" processing", &c.Processing)
			ms("consumer "+c.Name+" start", &c.StartMs)
			ms("consumer "+c.Name+" fetch.max.wait.ms", &c.MaxWaitMs)
			ms("consumer "+c.Name+" renew interval", &c.RenewEveryMs)
			ms("consumer "+c.Name+" restart after crash", &c.RestartAfterCrashMs)
			ms("consumer "+c.Name+" max.poll.interval.ms", &c.MaxPollIntervalMs)
		}
	}
	out.Faults = append([]sim.Fault(nil), cfg.Faults...)
	for i := range out.Faults {
		ft := &out.Faults[i]
		what := "fault " + ft.Kind.String()
		ms(what+" at", &ft.AtMs)
		ms(what+" every", &ft.EveryMs)
		ms(what+" until", &ft.UntilMs)
		ms(what+" duration", &ft.DurationMs)
		ms(what+" restart after", &ft.RestartAfterMs)
		if ft.Kind == sim.FaultCoordinatorSlow {
			ms(what+" latency", &ft.ValueMs)
		}
		if ft.Kind == sim.FaultConfigChange {
			// A lock duration set at run time shrinks like the scenario's own lock.
			ft.Set = append([]model.ConfigEntry(nil), ft.Set...)
			for j := range ft.Set {
				if e := &ft.Set[j]; e.Key == "share.record.lock.duration.ms" {
					if v, err := strconv.ParseInt(e.Value, 10, 64); err == nil {
						floored(what+" share.record.lock.duration.ms", &v, floors.LockMs)
						e.Value = strconv.FormatInt(v, 10)
					}
				}
			}
		}
	}
	return out, s, out.Validate()
}

// fmtMs prints milliseconds the way scenarios write durations.
func fmtMs(v int64) string {
	switch {
	case v%3_600_000 == 0 && v >= 3_600_000:
		return fmt.Sprintf("%dh", v/3_600_000)
	case v%60_000 == 0 && v >= 60_000:
		return fmt.Sprintf("%dm", v/60_000)
	case v%1000 == 0 && v >= 1000:
		return fmt.Sprintf("%ds", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%gs", float64(v)/1000)
	}
	return fmt.Sprintf("%dms", v)
}
