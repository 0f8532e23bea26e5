package reports

import (
	"fmt"

	"gonum.org/v1/plot/plotter"

	"github.com/sharesim/sharesim/sim"
)

// kafkaMetersFigure draws Kafka's share-group meters per interval, from the groups' running
// counts in the time series: RecordAcknowledgementsPerSec by ack type (counted after the
// state write) and AcquisitionLockTimeoutPerSec (every offset of a firing timer), with
// sharesim's own lock timeouts (the records that came back) dashed beside it.
func kafkaMetersFigure(d *runData) figure {
	ch := d.timeChart("Kafka's meters: acknowledgements and lock timeouts", "offsets per second")
	ta := d.time()
	type meter struct {
		label string
		get   func(g *sim.GroupSample) int64
		dash  []float64
	}
	meters := []meter{
		{"RecordAcknowledgementsPerSec Accept", func(g *sim.GroupSample) int64 { return g.Kafka.AcceptCount }, nil},
		{"RecordAcknowledgementsPerSec Release", func(g *sim.GroupSample) int64 { return g.Kafka.ReleaseCount }, nil},
		{"RecordAcknowledgementsPerSec Reject", func(g *sim.GroupSample) int64 { return g.Kafka.RejectCount }, nil},
		{"RecordAcknowledgementsPerSec Renew", func(g *sim.GroupSample) int64 { return g.Kafka.RenewCount }, nil},
		{"AcquisitionLockTimeoutPerSec", func(g *sim.GroupSample) int64 { return g.Kafka.AcquisitionLockTimeoutCount }, nil},
		{"sharesim lock timeouts", func(g *sim.GroupSample) int64 { return g.LockTimeouts }, []float64{4, 3}},
	}
	types := d.groupTypes()
	multi := len(groupNames(d)) > 1
	n := 0
	for _, gname := range groupNames(d) {
		if types[gname] == "classic" {
			continue
		}
		for _, m := range meters {
			var xys plotter.XYs
			var any bool
			for i := 1; i < len(d.series); i++ {
				a, b := groupSample(&d.series[i-1], gname), groupSample(&d.series[i], gname)
				dt := float64(d.series[i].TimeMs-d.series[i-1].TimeMs) / 1000
				if a == nil || b == nil || dt <= 0 {
					continue
				}
				v := float64(m.get(b)-m.get(a)) / dt
				any = any || v != 0
				xys = append(xys, plotter.XY{X: ta.x(d.series[i].TimeMs), Y: v})
			}
			if !any {
				continue // a meter that never moved would only crowd the legend
			}
			label := m.label
			if multi {
				label += " (" + gname + ")"
			}
			ch.add(label, lineOf(xys, pal(n), 1.4, m.dash...))
			n++
		}
	}
	ch.p.Y.Min = 0
	if n == 0 {
		ch.p.Add(newNote("no acknowledgement or lock timeout in this run's samples"))
		ch.p.Y.Max = 1
	}
	return figure{Name: "kafka-meters", Title: "Kafka's meters: acknowledgements and lock timeouts",
		Caption: fmt.Sprintf("Kafka's RecordAcknowledgementsPerSec by ack type (offsets whose acknowledgement completed without error, after "+
			"its state write) and AcquisitionLockTimeoutPerSec (every offset of a firing lock timer, also those whose acknowledgement "+
			"was being written), per %s interval; dashed, sharesim's own lock timeouts (the records a firing lock made available "+
			"again or archived). docs/metrics.md, Kafka's metrics, maps each to its MBean.", d.intervalText()),
		W: figW, H: figH, Draw: ch.draw}
}

// groupSample is group g's entry of a sample (nil: none).
func groupSample(s *sim.Sample, g string) *sim.GroupSample {
	for i := range s.Groups {
		if s.Groups[i].Group == g {
			return &s.Groups[i]
		}
	}
	return nil
}

// kafkaTable puts the share groups' Kafka metrics beside sharesim's own figures: one row per
// Kafka name, with the figure sharesim reports for the nearest quantity.
func kafkaTable(gs []sim.GroupMetrics) *aggTable {
	t := &aggTable{Header: []string{"Kafka metric"}}
	var share []*sim.GroupMetrics
	for i := range gs {
		if gs[i].Kafka != nil {
			share = append(share, &gs[i])
			t.Header = append(t.Header, gs[i].Name)
		}
	}
	if len(share) == 0 {
		return nil
	}
	t.Header = append(t.Header, "sharesim's own figure")
	row := func(name string, f func(g *sim.GroupMetrics) string, own string) {
		r := []string{name}
		for _, g := range share {
			r = append(r, f(g))
		}
		t.Rows = append(t.Rows, append(r, own))
	}
	hist := func(h sim.KafkaHistogram, unit string) string {
		if h.Count == 0 || h.P50 == nil {
			return "no samples"
		}
		return fmt.Sprintf("p50 %d%s, p99 %d%s, max %d%s (%d samples)", *h.P50, unit, *h.P99, unit, *h.Max, unit, h.Count)
	}
	row("SharePartitionMetrics InFlightMessageCount (max, end)", func(g *sim.GroupMetrics) string {
		sp := g.Kafka.SharePartition
		return fmt.Sprintf("%d, %d", sp.InFlightMessageCountMax, sp.InFlightMessageCountEnd)
	}, "SPEO − SPSO + 1, every offset in the window, not the acquired records")
	row("SharePartitionMetrics InFlightBatchCount (max, end)", func(g *sim.GroupMetrics) string {
		sp := g.Kafka.SharePartition
		return fmt.Sprintf("%d, %d", sp.InFlightBatchCountMax, sp.InFlightBatchCountEnd)
	}, "entries of the in-flight cache")
	row("SharePartitionMetrics AcquisitionLockTimeoutPerSec (count; rate in the window)", func(g *sim.GroupMetrics) string {
		sp := g.Kafka.SharePartition
		return fmt.Sprintf("%d; %.3f/s", sp.AcquisitionLockTimeoutCount, sp.AcquisitionLockTimeoutPerSec)
	}, "lock timeouts (records that came back): see each group's card")
	row("SharePartitionMetrics FetchLockTimeMs", func(g *sim.GroupMetrics) string { return hist(g.Kafka.SharePartition.FetchLockTimeMs, " ms") }, "0 ms unless log_read_latency is set")
	row("SharePartitionMetrics FetchLockRatio", func(g *sim.GroupMetrics) string { return hist(g.Kafka.SharePartition.FetchLockRatio, "%") }, "Kafka's formula: 100 ÷ idle ms for a 0 ms hold")
	for _, t := range []string{"Accept", "Release", "Reject", "Renew"} {
		t := t
		row("ShareGroupMetrics RecordAcknowledgementsPerSec "+t+" (count; rate in the window)", func(g *sim.GroupMetrics) string {
			sg := g.Kafka.ShareGroup
			return fmt.Sprintf("%d; %.1f/s", sg.RecordAcknowledgementsCount[t], sg.RecordAcknowledgementsPerSec[t])
		}, "counted after the state write; completed counts each record once")
	}
	row("ShareGroupMetrics PartitionLoadTimeMs", func(g *sim.GroupMetrics) string { return hist(g.Kafka.ShareGroup.PartitionLoadTimeMs, " ms") }, "one sample per fetch that waited for the load")
	row("share-partition lag (end; max at a sample)", func(g *sim.GroupMetrics) string {
		l := g.Kafka.Lag
		return fmt.Sprintf("%d; %d", l.End, l.Max)
	}, "from the persisted state; sharesim's backlog at the end is the keep-up card's")
	row("consumer acknowledgements-send-total (rate)", func(g *sim.GroupMetrics) string {
		c := g.Kafka.Consumer
		return fmt.Sprintf("%d (%.1f/s)", c.AcknowledgementsSendTotal, c.AcknowledgementsSendRate)
	}, "counted when sent, GAP and RENEW included")
	row("consumer acknowledgements-error-total (rate)", func(g *sim.GroupMetrics) string {
		c := g.Kafka.Consumer
		return fmt.Sprintf("%d (%.3f/s)", c.AcknowledgementsErrorTotal, c.AcknowledgementsErrorRate)
	}, "acknowledgements failed + lost (timed out)")
	return t
}
