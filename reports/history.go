package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/sharesim/sharesim/internal/atomicfile"

	"github.com/sharesim/sharesim/sim"
)

// HistoryLine is one line of history.ndjson: an operation of the client-visible history or
// a hidden event, in the order the simulator recorded them (exactly one field is set).
type HistoryLine struct {
	Op     *sim.Op          `json:"op,omitempty"`
	Hidden *sim.HiddenEvent `json:"hidden,omitempty"`
}

// HistoryWriter streams the client-visible history and the hidden events into
// history.ndjson while the run goes on (`sharesim run --out DIR --history`): they are never
// held in memory, whatever the run's length. linearize.Check reads the same operations.
type HistoryWriter struct {
	f   *atomicfile.File
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

// CreateHistory creates path (history.ndjson) for streaming.
func CreateHistory(path string) (*HistoryWriter, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("writing the history: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	return &HistoryWriter{f: f, w: w, enc: json.NewEncoder(w)}, nil
}

// Op writes one operation (sim.Options.OnHistory).
func (h *HistoryWriter) Op(op *sim.Op) { h.line(HistoryLine{Op: op}) }

// Hidden writes one hidden event (sim.Options.OnHidden).
func (h *HistoryWriter) Hidden(ev *sim.HiddenEvent) { h.line(HistoryLine{Hidden: ev}) }

func (h *HistoryWriter) line(l HistoryLine) {
	if h.err == nil {
		h.err = h.enc.Encode(l)
	}
}

// Close flushes and closes the file, reporting the first error.
func (h *HistoryWriter) Close() error {
	if err := h.w.Flush(); h.err == nil {
		h.err = err
	}
	if err := h.f.Commit(); h.err == nil {
		h.err = err
	}
	if h.err != nil {
		return fmt.Errorf("writing the history: %w", h.err)
	}
	return nil
}
