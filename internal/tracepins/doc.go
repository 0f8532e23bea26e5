// Package tracepins holds one test: the pinned event-trace SHA-256 of every built-in
// scenario (on every Kafka version it runs on), every documented example, every bug-zoo
// workload (faithful and with each bug) and the printed result of every scripted scenario,
// each at seed 1 on a short run. A refactor of the simulator must keep every hash; a change
// of behaviour changes one, and the commit that updates testdata/pins.txt
// (go test ./internal/tracepins -update) says why.
//
// The same runs pin their figures too (testdata/figures.txt): the SHA-256 of the metrics,
// final states, marks, config changes and record sample as JSON. Speed work must keep
// those as well; a commit that changes a figure on purpose updates that file and says why.
//
// Every built-in and example bigger than 40 000 estimated events is pinned twice: at its
// short size and, under "small/", scaled down further. The default run (go test -race)
// runs the small one in place of the full one (the race detector finds nothing in a
// one-goroutine simulation and slows it some ten times); a run without -race, or with the
// build tag long, runs and compares both. -update writes both, so it runs without -race.
package tracepins
