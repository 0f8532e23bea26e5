//go:build race

package testmode

// Race is true: the race detector is on (go test -race, the default run). It slows
// single-goroutine work some five to ten times and finds nothing in it, so a test of such
// work may run a smaller size under Race, provided the full size runs with the build tag
// long (which CI runs nightly, also under -race: a test keeps its full size when Long).
const Race = true
