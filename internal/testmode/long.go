//go:build long

package testmode

// Long is true: the build tag long asks for the long checks.
const Long = true
