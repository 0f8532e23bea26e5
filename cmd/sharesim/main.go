// Command sharesim runs share-group scenarios, sweeps their parameters, validates scenario
// files and replays result folders.
//
// Exit codes: 0 every check passed, 1 a check failed, 2 bad input or usage, 3 the run was
// cut short or a check could not decide (incomplete: max_events reached, linearizability
// unknown within --lin-time-limit, a sweep interrupted).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// version is sharesim's version, recorded in every summary.json.
const version = "0.1.0"

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
	// exitIncomplete: nothing failed, but the work was cut short or a check could not
	// decide, so nothing can be said to pass.
	exitIncomplete = 3
)

// exitError carries an exit code with an optional message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func inputErr(err error) error { return &exitError{code: exitUsage, err: err} }

// checksFailed is returned when a run completed but a check failed.
var checksFailed = &exitError{code: exitFailed}

func main() {
	exitWithPeakRSS(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "sharesim:", ee.err)
		}
		return ee.code
	}
	// Anything else comes from argument parsing (unknown flag, wrong argument count).
	fmt.Fprintln(stderr, "sharesim:", err)
	fmt.Fprintln(stderr, "Run 'sharesim --help' for usage.")
	return exitUsage
}

var flagParseErr = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (strconv\.Parse(Uint|Int|Float|Bool)|time: invalid duration|time: unknown unit|time: missing unit).*$`)

var flagOwnErr = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)

// flagMessage rewrites the flag parser's conversion errors (strconv's wording) into what the
// flag expects.
func flagMessage(err error) string {
	m := flagParseErr.FindStringSubmatch(err.Error())
	if m == nil {
		// A flag's own check (boundedDuration): --flag "value": its message.
		if m := flagOwnErr.FindStringSubmatch(err.Error()); m != nil {
			name := m[2]
			if i := strings.Index(name, "--"); i >= 0 {
				name = name[i:]
			}
			return fmt.Sprintf("%s %q: %s", name, m[1], m[3])
		}
		return err.Error()
	}
	name := m[2]
	if i := strings.Index(name, "--"); i >= 0 {
		name = name[i:]
	}
	want := "a valid value"
	switch m[4] {
	case "Uint":
		want = "a whole number from 0 to 18446744073709551615"
	case "Int":
		want = "a whole number"
	case "Float":
		want = "a number"
	case "Bool":
		want = "true or false"
	case "":
		want = "a duration like 500ms, 30s or 2m"
	}
	return fmt.Sprintf("%s %q: expected %s", name, m[1], want)
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "sharesim",
		Short: "A deterministic simulator and model checker for Kafka share groups (KIP-932)",
		Long: `sharesim simulates Apache Kafka share groups under virtual time and checks what they do.

One seed reproduces a run byte for byte.

Exit codes:
  0  every check passed
  1  a check failed
  2  bad input or usage (nothing was run, or the run's results could not be written)
  3  incomplete: the run was cut short (max_events reached) or a check could not decide
     (linearizability unknown within --lin-time-limit), or a sweep was interrupted`,
		Example: `  sharesim list
  sharesim run quickstart
  sharesim run slow-processing-vs-lock --set kafka.share.record.lock.duration.ms=60s --out out/lock60
  sharesim sweep slow-processing-vs-lock --seeds 1..5 --set kafka.share.record.lock.duration.ms=30s,45s,60s --yes --out out/sweep
  sharesim show quickstart > my-scenario.yaml
  sharesim validate my-scenario.yaml
  sharesim replay out/lock60`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see 'sharesim %s --help')", flagMessage(err), c.Name())
	})
	root.PersistentFlags().BoolVar(&progressOff, "no-progress", false, "print no progress on stderr")
	progressEveryGiven = false
	every := newBoundedDuration(&progressEvery, time.Millisecond, 24*time.Hour)
	every.given = &progressEveryGiven
	root.PersistentFlags().Var(every, "progress-every", "period of the progress line when stderr is not a terminal (with check --progress: instead of every second)")
	_ = root.PersistentFlags().MarkHidden("progress-every")
	root.AddCommand(newRunCmd(), newSweepCmd(), newMergeCmd(), newValidateCmd(), newListCmd(), newReplayCmd(), newChecksCmd(), newReportCmd())
	root.AddCommand(newCheckCmd(), newBugsCmd(), newShrinkCmd(), newVersionCmd(), newShowCmd())
	root.AddCommand(newLiveCmd())
	wireCompletion(root)
	strictHelpAndCompletion(root)
	return root
}
