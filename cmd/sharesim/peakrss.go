package main

import (
	"os"
	"strconv"
	"strings"
)

// peakRSSEnv names a file into which the process writes its peak resident set size, in
// bytes, as it exits (VmHWM of /proc/self/status; nothing where /proc is missing). The
// memory bounds of the CLI tests read it instead of the child's rusage: Linux records the
// high-water mark of the address space that exec replaces in the child's ru_maxrss, and Go
// starts children with vfork, so a child of a large test process reports the parent's peak.
const peakRSSEnv = "SHARESIM_PEAK_RSS_FILE"

// exitWithPeakRSS writes the peak resident set to $SHARESIM_PEAK_RSS_FILE when it is set,
// then exits with code.
func exitWithPeakRSS(code int) {
	if path := os.Getenv(peakRSSEnv); path != "" {
		if peak, ok := peakRSS(); ok {
			_ = os.WriteFile(path, []byte(strconv.FormatInt(peak, 10)), 0o644)
		}
	}
	os.Exit(code)
}

// peakRSS reads this process's peak resident set size in bytes.
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10, true
				}
			}
		}
	}
	return 0, false
}
