package model_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// benchLoop acquires fetchRecords offsets at a time from an endless log of producer batches
// of batchSize records, accepts them (whole acquired ranges in one call, or one call per
// record) and completes every write. One benchmark op is one record.
func benchLoop(b *testing.B, batchSize, fetchRecords int, perRecord bool) {
	sp, err := model.New(model.DefaultConfig(), 0)
	if err != nil {
		b.Fatal(err)
	}
	p := model.FetchParams{MaxRecords: fetchRecords, BatchSize: fetchRecords}
	nBatches := (fetchRecords + batchSize - 1) / batchSize
	log := make([]model.LogBatch, nBatches)
	var out []model.AcquiredRange
	acks := make([]model.AckRange, 0, 64)
	one := []model.AckType{model.AckAccept}
	single := make([]model.AckRange, 1)
	b.ReportAllocs()
	b.ResetTimer()
	now := int64(0)
	for done := 0; done < b.N; {
		f := sp.NextFetchOffset()
		for i := range log {
			first := f + int64(i*batchSize)
			log[i] = model.LogBatch{First: first, Last: first + int64(batchSize) - 1}
		}
		out, err = sp.Acquire(now, "c1", p, log, out[:0])
		if err != nil || len(out) == 0 {
			b.Fatalf("acquire: %v %v", out, err)
		}
		if perRecord {
			for _, r := range out {
				for off := r.First; off <= r.Last; off++ {
					single[0] = model.AckRange{First: off, Last: off, Types: one}
					w, err := sp.Acknowledge(now, "c1", single)
					if err != nil {
						b.Fatal(err)
					}
					if err := sp.CompleteWrite(now, w.ID, nil); err != nil {
						b.Fatal(err)
					}
					done++
				}
			}
		} else {
			acks = acks[:0]
			for _, r := range out {
				acks = append(acks, model.AckRange{First: r.First, Last: r.Last, Types: one})
				done += int(r.Last - r.First + 1)
			}
			w, err := sp.Acknowledge(now, "c1", acks)
			if err != nil {
				b.Fatal(err)
			}
			if err := sp.CompleteWrite(now, w.ID, nil); err != nil {
				b.Fatal(err)
			}
		}
		now++
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAcquireAccept measures acquire + accept throughput per record for producer
// batches of 1, 50 and 500 records, acknowledged per acquired range or per record.
func BenchmarkAcquireAccept(b *testing.B) {
	for _, batchSize := range []int{1, 50, 500} {
		for _, perRecord := range []bool{false, true} {
			mode := "range-acks"
			if perRecord {
				mode = "record-acks"
			}
			b.Run(fmt.Sprintf("batch=%d/%s", batchSize, mode), func(b *testing.B) {
				benchLoop(b, batchSize, 500, perRecord)
			})
		}
	}
}

// BenchmarkExpireRedeliver measures the lock-expiry path: acquire 500 records, let the
// lock fire, complete the expiry write, re-acquire (redelivery), accept.
func BenchmarkExpireRedeliver(b *testing.B) {
	cfg := model.DefaultConfig()
	cfg.DeliveryCountLimit = 10
	sp, _ := model.New(cfg, 0)
	p := model.FetchParams{MaxRecords: 500, BatchSize: 500}
	log := []model.LogBatch{{}}
	var out []model.AcquiredRange
	var ws []*model.Write
	one := []model.AckType{model.AckAccept}
	b.ReportAllocs()
	b.ResetTimer()
	now := int64(0)
	for done := 0; done < b.N; done += 500 {
		f := sp.NextFetchOffset()
		log[0] = model.LogBatch{First: f, Last: f + 499}
		out, _ = sp.Acquire(now, "c1", p, log, out[:0])
		now += cfg.RecordLockDurationMs
		ws = sp.ExpireLocks(now, ws[:0])
		for _, w := range ws {
			_ = sp.CompleteWrite(now, w.ID, nil)
		}
		out, _ = sp.Acquire(now, "c2", p, log, out[:0])
		w, err := sp.Acknowledge(now, "c2", []model.AckRange{{First: out[0].First, Last: out[0].Last, Types: one}})
		if err != nil {
			b.Fatal(err)
		}
		_ = sp.CompleteWrite(now, w.ID, nil)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// inFlightBytes builds a window of window records tracked per offset (record_limit fetches
// of 100 from producer batches of 10 000) and returns the bytes allocated per in-flight
// record (an upper bound on what stays live: it includes slices outgrown on the way).
func inFlightBytes(window int64) (float64, int64) {
	cfg := model.DefaultConfig()
	cfg.PartitionMaxRecordLocks = int(window)
	sp, _ := model.New(cfg, 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out []model.AcquiredRange
	p := model.FetchParams{MaxRecords: 100, BatchSize: 100, Mode: model.RecordLimit}
	for {
		f := sp.NextFetchOffset()
		log := []model.LogBatch{{First: f - f%10000, Last: f - f%10000 + 9999}}
		out, _ = sp.Acquire(0, "c1", p, log, out[:0])
		if len(out) == 0 {
			break
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := sp.InFlightCount()
	runtime.KeepAlive(sp)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n), n
}

// TestMemoryPerInFlightRecord pins the memory cost of per-offset tracking: 32 bytes of
// state per record plus the cache and lock entries must stay under 64 bytes per record.
func TestMemoryPerInFlightRecord(t *testing.T) {
	perRecord, n := inFlightBytes(10000)
	t.Logf("in-flight window %d records, %.1f bytes per record", n, perRecord)
	if n != 10000 {
		t.Fatalf("window %d, want 10000", n)
	}
	if perRecord > 64 {
		t.Errorf("%.1f bytes per in-flight record, want <= 64", perRecord)
	}
}

// BenchmarkMemoryPerInFlightRecord reports bytes per in-flight record (B/record).
func BenchmarkMemoryPerInFlightRecord(b *testing.B) {
	var perRecord float64
	for i := 0; i < b.N; i++ {
		perRecord, _ = inFlightBytes(10000)
	}
	b.ReportMetric(perRecord, "B/record")
}
