//go:build race

package explore_test

// raceDetector is true under -race, which slows the explorer about tenfold; the largest
// CI scope is then left out (it runs without -race).
const raceDetector = true
