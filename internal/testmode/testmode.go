// Package testmode tells tests whether the long checks are asked for, and benchmarks the
// process's CPU time (CPUSeconds).
//
// The default test command (go test -race ./...) stays under five minutes on two cores;
// checks that take longer (full-size built-in scenarios, long explorer and swarm runs,
// bigger property-test budgets) run only with the build tag long:
//
//	go test -race -tags long ./...
//
// A test reads Long and either skips (t.Skip) or scales itself down; it never fakes a
// result. CI's scheduled job runs the long tests.
package testmode
