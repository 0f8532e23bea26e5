//go:build !long

package testmode

// Long is false: the default test run (no build tag long) keeps to its time budget.
const Long = false
