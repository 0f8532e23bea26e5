package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI tests are scripts in testdata/script: each runs sharesim commands and checks their
// output, files and exit codes.
func TestMain(m *testing.M) {
	// The bad-input corpus runs this test binary as the CLI in a subprocess.
	if os.Getenv(asCLI) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	testscript.Main(m, map[string]func(){
		"sharesim": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Cmds: scriptCmds, Setup: func(env *testscript.Env) error {
		env.Setenv("GORACE", quickRaceExit)
		return nil
	}})
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
