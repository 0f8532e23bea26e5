//go:build !race

package testmode

// Race is false: the race detector is off.
const Race = false
