package scenarios

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that every problem it reports is an
// *Error with a position (line 0 only for problems with the whole file), and that a
// scenario it accepts survives Canonical, Set and, for scripts, RunScript.
func FuzzParse(f *testing.F) {
	_ = fs.WalkDir(library, "library", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if data, err := library.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	for _, s := range []string{
		base, "", "---\n", "kind: scripted\nsteps: [{produce: [3]}, {fetch: c1, expect: {acquired: 0-2@1}}]\n",
		"kafka: {share.record.lock.duration.ms: 99999999999999999999}\n", "a: &x [*x]\n", "{", "- - -",
		"duration: 1.0000001ms\n", "topics: [{name: t, partitions: 0}]\n", "name: \"\\u0000\"\n",
		"kind: scripted\nsteps: [{ack: {member: c, ranges: [{0-1: [accept, x]}]}}]\n",
		"kind: scripted\nstate_epoch: 2\nsteps: [{produce: [3]}, {read: c1}, {advance: 1s}, {acquire: true, expect: {acquired: 0-2@1}}, {acquire: true}]\n",
		"kind: scripted\nsteps: [{produce: [3]}, {failover: {load: slow}}, {fetch: c1}, {load_state: {error: NOT_COORDINATOR}}, {load_state: true}, {reinitialize: {state_epoch: 1}}]\n",
		"kind: scripted\nsteps: [{produce: [3]}, {fetch: c1}, {ack: {member: c1, ranges: \"0:accept\", write: pending}}, {fail_write: {which: oldest, error: FENCED_STATE_EPOCH}}, {fail_next_write: {count: 2, error: GROUP_ID_NOT_FOUND}}, {read: c1}, {read: c1}]\n",
		"faults: [{kind: write-fail, at: 1s, duration: 1s, error: UNKNOWN_TOPIC_OR_PARTITION, reads: true}]\nlog_read_latency: 5ms\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			for _, p := range e.All() {
				if p.Line < 0 || p.Column < 0 || (p.Line == 0 && p.Path != "") {
					t.Fatalf("problem without a position: %+v", p)
				}
				if p.File != "fuzz.yaml" {
					t.Fatalf("problem without the file name: %+v", p)
				}
			}
			if strings.Contains(err.Error(), "goroutine ") {
				t.Fatalf("stack trace in message: %v", err)
			}
			return
		}
		out, err := s.Canonical()
		if err != nil {
			t.Fatalf("Canonical of an accepted scenario: %v", err)
		}
		if _, err := Parse("canonical.yaml", out); err != nil {
			t.Fatalf("Canonical output rejected: %v\n%s", err, out)
		}
		if err := s.Set("seed", "3"); err != nil {
			t.Fatalf("Set seed: %v", err)
		}
		if s.Kind() == KindScripted {
			sc, _ := s.Script()
			if len(sc.Steps) <= 200 {
				if _, err := RunScript(s); err != nil {
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("RunScript error %T: %v", err, err)
					}
				}
			}
		} else if _, err := s.SimConfig(); err != nil {
			t.Fatalf("SimConfig: %v", err)
		}
	})
}
