package main

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// autoMemoryDoc describes the default budget of --memory.
const autoMemoryDoc = "half the physical memory, at most 8GiB"

// defaultMemory is the --memory auto budget: half of the physical memory (MemTotal in
// /proc/meminfo), at most 8 GiB; 8 GiB where the physical memory is not known.
func defaultMemory() int64 {
	const most = 8 << 30
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return most
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil && kb > 0 {
				return min(most, kb<<10/2)
			}
		}
	}
	return most
}

// parseMemory reads a --memory value: auto, 0 (no budget), or a number of bytes with an
// optional unit: K, M, G, T (or KiB, MiB, GiB, TiB; powers of 1024), KB, MB, GB, TB (powers
// of 1000).
func parseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "auto") {
		return defaultMemory(), nil
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}[unit]
	if err != nil || num == "" || mult == 0 || v*mult >= 1<<62 {
		return 0, usageErr("--memory %q: expected auto, 0 or a size such as 8GiB, 512MiB or 2G", s)
	}
	return int64(v * mult), nil
}

// minHeapLimit is the least soft memory limit limitHeap sets: below it the search's fixed
// buffers (the waves' candidates, the workers) alone would keep the collector running.
const minHeapLimit = 256 << 20

// limitHeap makes the Go runtime collect garbage harder as the heap nears 15/16 of the budget
// (a soft limit, at least minHeapLimit; the search's own stores keep within their shares of
// the budget, 11/16 in all) and returns the undo. A GOMEMLIMIT in the environment is left as
// it is.
func limitHeap(budget int64) func() {
	if budget <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(max(budget-budget/16, minHeapLimit))
	return func() { debug.SetMemoryLimit(old) }
}
