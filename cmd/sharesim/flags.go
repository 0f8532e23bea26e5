package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// boundedDuration is a duration flag with a range: a value outside [min, max] is refused
// by name when the command line is parsed, before any work (a time.Duration above about
// 292 years overflows, and a negative time limit means nothing).
type boundedDuration struct {
	v        *time.Duration
	min, max time.Duration
	given    *bool // when not nil, set to true once the flag is given
}

func newBoundedDuration(v *time.Duration, min, max time.Duration) *boundedDuration {
	return &boundedDuration{v: v, min: min, max: max}
}

func (b *boundedDuration) String() string {
	if b.v == nil {
		return ""
	}
	return b.v.String()
}

func (b *boundedDuration) Type() string { return "duration" }

func (b *boundedDuration) Set(s string) error {
	want := fmt.Sprintf("a duration from %s to %s, like 500ms, 30s or 2m", b.min, b.max)
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if strings.Contains(err.Error(), "invalid duration") && looksNumeric(s) {
			return fmt.Errorf("too long; expected %s", want)
		}
		return fmt.Errorf("expected %s", want)
	}
	if d < b.min || d > b.max {
		return fmt.Errorf("outside the range; expected %s", want)
	}
	*b.v = d
	if b.given != nil {
		*b.given = true
	}
	return nil
}

// looksNumeric reports whether s is digits and units only (a duration too long for
// time.ParseDuration rather than a malformed one).
func looksNumeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || strings.ContainsRune("nsuµmh", c)) {
			return false
		}
	}
	return true
}

// nonNegative and atLeast refuse a count flag outside its range, before any work.
func atLeast(name string, v, lo int) error {
	if v < lo {
		return usageErr("--%s %d: expected at least %d", name, v, lo)
	}
	return nil
}

// outFlag returns --out's value; set to the empty string (an unset shell variable) it is
// a usage error, not "no --out".
func outFlag(cmd *cobra.Command, v string) (string, error) {
	if cmd.Flags().Changed("out") && strings.TrimSpace(v) == "" {
		return "", usageErr("--out %q: expected a folder (an empty value, perhaps an unset variable?)", v)
	}
	return v, nil
}

// strictHelpAndCompletion makes 'sharesim help NAME' and 'sharesim completion SHELL' usage
// errors for a NAME or SHELL that does not exist (cobra prints the usage with exit code 0).
func strictHelpAndCompletion(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			shells := []string{}
			for _, s := range c.Commands() {
				shells = append(shells, s.Name())
			}
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usageErr("completion %s: no such shell; expected one of %s", args[0], strings.Join(shells, ", "))
				}
				return cmd.Help()
			}
		case "help":
			run := c.Run
			c.Run = nil
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					if found, _, err := cmd.Root().Find(args); err != nil || found == nil || found == cmd.Root() {
						return usageErr("help %s: no such command; 'sharesim help' lists them", strings.Join(args, " "))
					}
				}
				run(cmd, args)
				return nil
			}
		}
	}
}
