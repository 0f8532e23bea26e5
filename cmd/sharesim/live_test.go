package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// sharesim live refuses what a client cannot do, naming the key, and bad flag
// combinations, before it starts anything (exit 2).
func TestLiveRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"live", "leader-failover"}, "faults[kind=leader-failover]"},
		{[]string{"live", "quickstart", "--tls"}, "--tls and --sasl-* need --bootstrap"},
		{[]string{"live", "quickstart", "--repeat", "0"}, "--repeat 0"},
		{[]string{"live", "quickstart", "--bootstrap", "localhost:1", "--sasl-mechanism", "GSSAPI", "--sasl-user", "u"}, "--sasl-mechanism"},
		{[]string{"live", "quickstart", "--time-scale", "-1"}, "--time-scale -1"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// Ctrl-C during sharesim live: production stops, the consumers finish, and the result
// folder is complete; the exit code is 3.
func TestLiveSIGINTLeavesCompleteFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to a subprocess")
	}
	// A subprocess that mostly waits on the wall clock: beside the other parallel tests
	// (the signal tests, the built-in runs) it takes no time of its own.
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "live", "quickstart", "--time-scale", "0.05", "--out", dir, "--no-progress")
	cmd.Env = append(os.Environ(), asCLI+"=1", "GORACE="+quickRaceExit)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitIncomplete {
		t.Fatalf("exit %v, want code 3\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "INTERRUPTED") {
		t.Errorf("the summary does not say the run was interrupted:\n%s", stdout.String())
	}
	for _, f := range []string{"history.ndjson", "live.json", "summary.txt", "index.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
}
