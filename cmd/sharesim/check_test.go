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
