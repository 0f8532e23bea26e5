package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI tests are scripts in testdata/script: each runs sharesim commands and checks their
// output, files and exit codes.
func TestMain(m *testing.M) {
	// The bad-input corpus runs this test binary as the CLI in a subprocess.
	if os.Getenv(asCLI) == "1" {
		exitWithPeakRSS(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := 0
	defer func() {
		if cliDir != "" {
			os.RemoveAll(cliDir)
		}
		os.Exit(code)
	}()
	testscript.Main(exitCode{m, &code}, map[string]func(){
		"sharesim": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// exitCode runs the tests and keeps their exit code instead of exiting, so that TestMain
// removes the shared binary first.
type exitCode struct {
	m    *testing.M
	code *int
}

func (e exitCode) Run() int {
	*e.code = e.m.Run()
	return *e.code
}

// The CLI subprocesses of the corpus, documentation and signal tests share one sharesim
// binary. In a race build it is a separate build without the race detector, made once:
// those tests check exit codes, messages, files and bounds of some 500 subprocesses, and a
// race binary runs each several times slower (the race detector still covers the CLI's
// concurrency through TestScripts, which runs it in this process's race build).
var (
	cliOnce sync.Once
	cliPath string
	cliDir  string
	// cliRace: the shared binary has the race detector (the build fell back to this one).
	cliRace bool
	cliErr  error
)

// cliBinary returns the shared sharesim binary (see cliOnce).
func cliBinary(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		self, err := os.Executable()
		if err != nil {
			cliErr = err
			return
		}
		cliPath, cliRace = self, raceEnabled
		if !raceEnabled {
			return // this test binary is as fast as a separate build
		}
		dir, err := os.MkdirTemp("", "sharesim-cli-")
		if err != nil {
			return
		}
		bin := filepath.Join(dir, "sharesim")
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building the shared sharesim binary failed, using the race test binary: %v\n%s", err, out)
			os.RemoveAll(dir)
			return
		}
		cliDir, cliPath, cliRace = dir, bin, false
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

func TestScripts(t *testing.T) {
	bin := cliBinary(t)
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Cmds: scriptCmds, Setup: func(env *testscript.Env) error {
		env.Setenv("GORACE", quickRaceExit)
		if cliDir != "" {
			// The shared binary first in PATH (see cliOnce); TestSweepWorkersRaceFree keeps
			// the race detector on the CLI's own goroutines.
			env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
		}
		return nil
	}})
}

// A sweep's workers, its progress and its runs.ndjson writer run concurrently: run in this
// process, so that a race build checks them (the CLI subprocesses do not have the race
// detector, see cliOnce).
// Not parallel: run binds its flags to package variables.
func TestSweepWorkersRaceFree(t *testing.T) {
	was := progressEvery
	defer func() { progressEvery = was }()
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr strings.Builder
	// Four runs on three workers: enough for the workers, the progress lines and the writer
	// to overlap (eight runs took twice as long under -race and overlapped no more).
	code := run([]string{"sweep", "quickstart", "--seeds", "1..2", "--set", "duration=5s,10s", "--jobs", "3", "--out", out, "--progress-every", "1ms"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "results in") {
		t.Errorf("no table:\n%s", stdout.String())
	}
}

// quickRaceExit is the GORACE setting of the CLI subprocesses the tests start. A program built
// with -race sleeps a second before it exits (atexit_sleep_ms, so that goroutines still
// running can report races); the tests start some 400 subprocesses, whose own goroutines
// have ended when the CLI returns, so 20 ms is enough and saves minutes of sleep.
const quickRaceExit = "atexit_sleep_ms=20"

// scriptCmds are the scripts' own commands:
//
//	exec_code N PROG ARGS...  runs PROG and asserts that it exits with code N.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"exec_code": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: exec_code N program args...")
		}
		want, err := strconv.Atoi(args[0])
		if err != nil {
			ts.Fatalf("exec_code: %q is not an exit code", args[0])
		}
		err = ts.Exec(args[1], args[2:]...)
		got := 0
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			got = ee.ExitCode()
		case err != nil:
			ts.Fatalf("exec_code: %v", err)
		}
		if got != want {
			ts.Fatalf("%s exited with code %d, want %d", args[1], got, want)
		}
	},
}
