package checker

// histPipe runs the history checks on a goroutine of their own, beside the simulation:
// the checker batches its messages (histMsg) and hands each full batch over; the goroutine
// applies them in order, so the checks see exactly what they would see on the
// simulation's goroutine. At most pipeDepth batches wait, so a slow goroutine holds the
// simulation back rather than letting memory grow.
type histPipe struct {
	batch []histMsg
	full  chan []histMsg // a nil batch asks for a signal on idle
	free  chan []histMsg
	idle  chan struct{}
	done  chan struct{}
}

const (
	pipeBatch = 512
	pipeDepth = 4
)

func startHistPipe(h *histChecks) *histPipe {
	p := &histPipe{batch: make([]histMsg, 0, pipeBatch), full: make(chan []histMsg, pipeDepth),
		free: make(chan []histMsg, pipeDepth+2), idle: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for b := range p.full {
			if b == nil {
				p.idle <- struct{}{}
				continue
			}
			for i := range b {
				h.apply(&b[i])
			}
			p.free <- b[:0]
		}
	}()
	return p
}

// send queues one message.
func (p *histPipe) send(m *histMsg) {
	p.batch = append(p.batch, *m)
	if len(p.batch) == pipeBatch {
		p.flush()
	}
}

func (p *histPipe) flush() {
	if len(p.batch) == 0 {
		return
	}
	p.full <- p.batch
	select {
	case p.batch = <-p.free:
	default:
		p.batch = make([]histMsg, 0, pipeBatch)
	}
}

// wait hands over what is queued and waits until every message sent is applied.
func (p *histPipe) wait() {
	p.flush()
	p.full <- nil
	<-p.idle
}

// close hands over what is left and waits until every message is applied.
func (p *histPipe) close() {
	p.flush()
	close(p.full)
	<-p.done
}

// Close stops the history checks' goroutine, if any, once every message is applied. Finish
// calls it; a run that does not finish (interrupted, cut short) must call it instead.
func (c *Checker) Close() {
	if c.pipe != nil {
		c.pipe.close()
		c.pipe = nil
	}
	c.beside = false
}
