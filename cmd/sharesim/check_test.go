package main

import (
	"bytes"
	"strings"
	"testing"
)

// check's exit codes: a complete search without violation is the only 0; a search cut short
// by a bound says how far it got and exits 3, never PASS; bad bounds are usage errors.
func TestCheckExitCodes(t *testing.T) {
	small := []string{"check", "--members", "1", "--batches", "1,1", "--limit", "2", "--cap", "2", "--max-records", "2", "--failovers", "0", "--workers", "1"}
	cases := []struct {
		name  string
		args  []string
		code  int
		out   string // in stdout
		noOut string // never in stdout
	}{
		{"complete", append(small, "--fix", "all"), exitOK, "PASS: no invariant broken", "INCOMPLETE"},
		{"finding", small, exitFailed, "FINDING spso-below-log-start", "PASS"},
		{"json", append(small, "--fix", "all", "--json"), exitOK, `"verdict": "pass"`, "PASS"},
		{"json incomplete", append(small, "--json", "--depth", "2"), exitIncomplete, `"verdict": "incomplete"`, "PASS"},
		{"depth bound", append(small, "--depth", "3"), exitIncomplete, "INCOMPLETE: no violation in the first ", "PASS"},
		{"state bound", append(small, "--max-states", "50"), exitIncomplete, "; not complete (states bound reached)", "PASS"},
		{"violation", append(small, "--bug", "leave-decrements-count"), exitFailed, "FAIL: delivery-count-monotonic", "PASS"},
		{"negative workers", append(small, "--workers", "-1"), exitUsage, "", "PASS"},
		{"negative depth", append(small, "--depth", "-1"), exitUsage, "", "PASS"},
		{"negative max states", append(small, "--max-states", "-5"), exitUsage, "", "PASS"},
		{"bad memory", append(small, "--memory", "12x"), exitUsage, "", "PASS"},
		{"spilling", append(small, "--fix", "all", "--memory", "1"), exitOK, "spilled to disk at most", "INCOMPLETE"},
		{"json disk", append(small, "--fix", "all", "--memory", "1", "--json"), exitOK, `"disk_bytes": `, "PASS"},
		{"liveness over budget", append(small, "--fix", "all", "--memory", "1", "--liveness"), exitIncomplete, "", "PASS"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string(nil), c.args...)
			args = append(args, "--out", t.TempDir()+"/cex.yaml")
			code := run(args, &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, &stdout, &stderr)
			}
			if c.out != "" && !strings.Contains(stdout.String(), c.out) {
				t.Errorf("stdout lacks %q:\n%s", c.out, &stdout)
			}
			if strings.Contains(stdout.String(), c.noOut) {
				t.Errorf("stdout has %q:\n%s", c.noOut, &stdout)
			}
		})
	}
}

// --memory sizes: binary units by default and with -iB, decimal with -B; auto and 0.
func TestParseMemory(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1", 1}, {"512MiB", 512 << 20}, {"8GiB", 8 << 30}, {"8G", 8 << 30}, {"2gb", 2e9}, {"1.5k", 1536}, {" 3 MB ", 3e6}, {"auto", defaultMemory()},
	} {
		if got, err := parseMemory(c.in); err != nil || got != c.want {
			t.Errorf("parseMemory(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "x", "12x", "-1", "8 GiBs", "1e30G"} {
		if _, err := parseMemory(bad); err == nil {
			t.Errorf("parseMemory(%q): want an error", bad)
		}
	}
	if m := defaultMemory(); m <= 0 || m > 8<<30 {
		t.Errorf("default budget %d: want between 1 byte and 8 GiB", m)
	}
}
