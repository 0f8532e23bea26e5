package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interruption is how a command notices SIGINT (Ctrl-C) and SIGTERM: the first one
// cancels Context and sets Interrupted, so that the command finishes its current step,
// writes what it has with an "interrupted" verdict and exits with exitIncomplete, removing
// its temporary files. The first signal also gives the signals back to their default
// action, so a second one ends a command that does not stop.
type interruption struct {
	ctx    context.Context
	cancel context.CancelFunc
	hit    atomic.Bool
	ch     chan os.Signal
	done   chan struct{}
}

// catchInterrupts starts catching SIGINT and SIGTERM; Stop ends it.
func catchInterrupts() *interruption {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interruption{ctx: ctx, cancel: cancel, ch: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-in.ch:
			in.hit.Store(true)
			signal.Stop(in.ch) // a second signal has its default effect
			cancel()
		case <-in.done:
		}
	}()
	return in
}

// Context is canceled at the first signal.
func (in *interruption) Context() context.Context { return in.ctx }

// Interrupted reports whether a signal came (safe from any goroutine; sim.Options.Stop).
func (in *interruption) Interrupted() bool { return in != nil && in.hit.Load() }

// Stop stops catching the signals.
func (in *interruption) Stop() {
	signal.Stop(in.ch)
	select {
	case <-in.done:
	default:
		close(in.done)
	}
	in.cancel()
}
