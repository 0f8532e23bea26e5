package proptest

import (
	"flag"

	"pgregory.net/rapid"
)

// Known core/spec disagreements that the semantics doc decides against the core. While
// one is open, a random case that runs into it is discarded (rapid counts it as
// invalid) instead of failing, so that the property keeps looking for new ones. Each has
// a scripted reproduction in scripts_test.go. -proptest.strict turns the filter off.
const (
	bugAcquireBelowSPSO = "acquire-below-spso"
)

var strict = flag.Bool("proptest.strict", false, "fail on known core bugs instead of discarding the case")

var openBugs = map[string]bool{
	bugAcquireBelowSPSO: true,
}

func knownCoreBug(t *rapid.T, bug, format string, args ...any) {
	if openBugs[bug] && !*strict {
		t.Skipf("known core bug "+bug+": "+format, args...)
	}
}
