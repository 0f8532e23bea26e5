package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI tests are scripts in testdata/script: each runs sharesim commands and checks their
// output, files and exit codes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"sharesim": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
