package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/spf13/cobra"
)

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files without running them",
		Long:  "Load each scenario file (or built-in name) strictly and report every problem with its file, line and column.",
		Example: `  sharesim validate my-scenario.yaml
  sharesim validate scenarios/library/*.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("validate needs at least one file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, a := range args {
				sc, err := scenarios.LoadAny(a)
				if err != nil {
					bad++
					fmt.Fprintln(cmd.OutOrStdout(), err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "ok %s (%s scenario %q)\n", a, sc.Kind(), sc.Name())
			}
			if bad > 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d scenarios have problems", bad, len(args))}
			}
			return nil
		},
	}
}

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the built-in scenarios",
		Example: "  sharesim list",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tQUESTIONS\tTITLE")
			for _, i := range scenarios.List() {
				q := make([]string, len(i.Questions))
				for k, n := range i.Questions {
					q[k] = fmt.Sprint(n)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", i.Name, i.Kind, strings.Join(q, ","), i.Title)
			}
			return tw.Flush()
		},
	}
}

func newChecksCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "checks",
		Short: "List the checks a run can apply",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, c := range checker.Catalogue {
				fmt.Fprintf(cmd.OutOrStdout(), "%s (%s)\n    %s\n", c.Name, c.When, c.Doc)
			}
			return nil
		},
	}
}

func newReplayCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "replay DIR",
		Short: "Re-run a result folder and confirm it reproduces the same trace",
		Long: `Re-run the scenario saved in a result folder (scenario.yaml, with every override applied)
with its seed, and compare the SHA-256 of the new trace with the one in summary.json.
Exit code 0 when they match, 1 when they differ.`,
		Example: `  sharesim run quickstart --out out/q
  sharesim replay out/q`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			sum, err := reports.ReadSummary(dir)
			if err != nil {
				return inputErr(err)
			}
			sc, err := scenarios.Load(filepath.Join(dir, "scenario.yaml"))
			if err != nil {
				return inputErr(err)
			}
			if sc.Kind() == scenarios.KindScripted {
				return runScripted(cmd.OutOrStdout(), sc, runFlags{})
			}
			o, err := simulate(sc, sum.Seed, simOpts{})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if o.res.TraceSHA256 != sum.TraceSHA256 {
				fmt.Fprintf(w, "DIFFERENT trace: recorded %s, replayed %s\n", sum.TraceSHA256, o.res.TraceSHA256)
				return checksFailed
			}
			fmt.Fprintf(w, "SAME trace %s (%s, seed %d, %d events)\n", sum.TraceSHA256, sum.Scenario, sum.Seed, o.res.Events)
			return nil
		},
	}
}

// scriptSummary is summary.json for a scripted scenario.
type scriptSummary struct {
	Scenario string              `json:"scenario"`
	Kind     string              `json:"kind"`
	Sharesim string              `json:"sharesim_version"`
	Verdict  string              `json:"verdict"`
	Steps    int                 `json:"steps"`
	Failures []scenarios.Failure `json:"failures"`
	Log      []string            `json:"log"`
}

func writeScriptResult(dir string, sc *scenarios.Scenario, res *scenarios.ScriptResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	s := scriptSummary{Scenario: sc.Name(), Kind: string(sc.Kind()), Sharesim: version, Verdict: "pass", Steps: res.Steps,
		Failures: res.Failures, Log: res.Log}
	if !res.Pass {
		s.Verdict = "fail"
	}
	if s.Failures == nil {
		s.Failures = []scenarios.Failure{}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing summary: %w", err)
	}
	yml, err := sc.Canonical()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "scenario.yaml"), yml, 0o644)
}
