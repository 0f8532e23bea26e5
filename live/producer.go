package live

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/rng"
)

// Record headers live mode writes: a unique id, the producer's time (ms since the run's
// start) and the poison mark.
const (
	hdrID     = "sharesim-id"
	hdrTime   = "sharesim-t"
	hdrPoison = "sharesim-poison"
)

// producerOpts maps a scenario producer's batching to kgo's options.
func producerOpts(p *sim.Producer) []kgo.Opt {
	opts := []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}
	if p.Keys > 0 {
		opts = []kgo.Opt{kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil))}
	}
	if p.BatchBytes > 0 {
		opts = append(opts, kgo.ProducerBatchMaxBytes(int32(p.BatchBytes)), kgo.ProducerLinger(time.Duration(p.LingerMs)*time.Millisecond))
		if p.MaxInFlight > 0 {
			opts = append(opts, kgo.MaxProduceRequestsInflightPerBroker(p.MaxInFlight))
		}
		if p.BufferMemory > 0 {
			opts = append(opts, kgo.MaxBufferedBytes(int(p.BufferMemory)))
		}
		if p.MaxRequestBytes > 0 {
			opts = append(opts, kgo.BrokerMaxWriteBytes(int32(p.MaxRequestBytes)))
		}
	} else {
		// A fixed batch is produced at once to one partition; a short linger keeps its
		// records in one producer batch.
		opts = append(opts, kgo.ProducerLinger(2*time.Millisecond))
	}
	return opts
}

// producer runs one scenario producer until its stop time or stop is closed.
func (r *runner) producer(p sim.Producer, idx int, stop <-chan struct{}) error {
	topic := r.cfg.Topics[0]
	for _, t := range r.cfg.Topics {
		if t.Name == p.Topic {
			topic = t
		}
	}
	opts := append(r.cl.baseOpts(nil), producerOpts(&p)...)
	opts = append(opts, kgo.DefaultProduceTopic(r.cl.topic(p.Topic)), kgo.ClientID("sharesim-"+p.Name))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("producer %s: %w", p.Name, err)
	}
	rnd := rng.New(rng.Derive(r.seed, "live/produce/"+p.Name, uint64(idx)))
	end := r.cfg.DurationMs
	if p.StopMs > 0 {
		end = min(end, p.StopMs)
	}
	batch := max(p.BatchRecords, 1)
	if p.Rate == sim.RateBursts {
		batch = p.BurstRecords
	}
	gapMs := func() float64 {
		switch p.Rate {
		case sim.RateBursts:
			return float64(p.BurstEveryMs)
		case sim.RatePoisson:
			return rnd.ExpFloat64() * float64(batch) * 1000 / p.RecordsPerSecond
		}
		return float64(batch) * 1000 / p.RecordsPerSecond
	}
	var wg sync.WaitGroup
	var failMu sync.Mutex
	var failed int
	var firstErr error
	seq, part := 0, 0
	parts := producerParts{n: topic.Partitions}
	at := float64(p.StartMs)
	for at < float64(end) {
		wait := r.startAt.Add(time.Duration(at * float64(time.Millisecond))).Sub(time.Now())
		if !sleepCtx(stop, wait) {
			break
		}
		now := r.rec.callMs()
		for k := 0; k < batch; k++ {
			seq++
			rec := &kgo.Record{Partition: int32(part)}
			id := p.Name + "-" + strconv.Itoa(seq)
			rec.Headers = []kgo.RecordHeader{{Key: hdrID, Value: []byte(id)}, {Key: hdrTime, Value: []byte(strconv.FormatInt(now, 10))}}
			if p.PoisonPerMillion > 0 && rnd.Int63n(1_000_000) < p.PoisonPerMillion {
				rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: hdrPoison, Value: []byte("1")})
			}
			if p.Keys > 0 {
				rec.Key = []byte("k" + strconv.Itoa(rnd.Intn(p.Keys)))
			}
			size := int64(sim.DefaultRecordBytes)
			if p.RecordSize != nil {
				size = max(1, p.RecordSize.Sample(rnd))
			}
			rec.Value = make([]byte, min(size, 1<<20))
			copy(rec.Value, id)
			wg.Add(1)
			cl.Produce(context.Background(), rec, func(rec *kgo.Record, err error) {
				defer wg.Done()
				if err != nil {
					// Counted, one note at the end: notes must not grow with the run.
					failMu.Lock()
					if failed++; firstErr == nil {
						firstErr = err
					}
					failMu.Unlock()
					return
				}
				r.meter.produce(partOf(r.cl, rec), rec.Offset, now)
			})
		}
		if n := parts.update(r, cl, p.Name, p.Topic); p.Keys == 0 {
			part = (part + 1) % n
		}
		at += gapMs()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Flush(ctx); err != nil {
		r.note(fmt.Sprintf("producer %s: flushing at the end: %v", p.Name, err))
	}
	cl.Close() // fails what is still buffered, so every callback has run after Wait
	wg.Wait()
	if failed > 0 {
		r.note(fmt.Sprintf("producer %s: %d records failed (the first: %v)", p.Name, failed, firstErr))
	}
	return nil
}
