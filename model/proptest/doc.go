// Package proptest holds the property tests that drive the share-partition core
// (package model) and the naive reference specification (package model/refspec) with
// the same random operations and compare everything they show after every step. It
// has no non-test code; run it with `go test ./model/proptest`.
package proptest
