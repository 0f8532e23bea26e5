package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/atomicfile"
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
	var asJSON, questions bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios and the questions they answer",
		Long: `List the built-in scenarios with the numbers of the user questions each answers
(docs/questions.md#qN; --questions prints the questions with their scenarios). 'sharesim
show NAME' prints one's YAML.`,
		Example: "  sharesim list\n  sharesim list --questions\n  sharesim list --json",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if questions {
				by := map[int][]string{}
				for _, in := range scenarios.List() {
					for _, q := range in.Questions {
						by[q] = append(by[q], in.Name)
					}
				}
				for _, q := range scenarios.Questions {
					names := strings.Join(by[q.N], ", ")
					if names == "" {
						names = "no built-in scenario yet"
					}
					fmt.Fprintf(w, "%d. %s\n   docs/questions.md#%s; answered by %s\n", q.N, q.Text, scenarios.QuestionAnchor(q.N), names)
				}
				return nil
			}
			if asJSON {
				type item struct {
					Name      string   `json:"name"`
					Kind      string   `json:"kind"`
					Title     string   `json:"title"`
					Questions []int    `json:"questions"`
					Links     []string `json:"question_links"`
				}
				out := []item{}
				for _, i := range scenarios.List() {
					it := item{Name: i.Name, Kind: string(i.Kind), Title: i.Title, Questions: i.Questions, Links: []string{}}
					if it.Questions == nil {
						it.Questions = []int{}
					}
					for _, q := range i.Questions {
						it.Links = append(it.Links, "docs/questions.md#"+scenarios.QuestionAnchor(q))
					}
					out = append(out, it)
				}
				return writeJSONTo(w, out)
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tQUESTIONS\tTITLE")
			for _, i := range scenarios.List() {
				q := make([]string, len(i.Questions))
				for k, n := range i.Questions {
					q[k] = fmt.Sprint(n)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", i.Name, i.Kind, strings.Join(q, ","), i.Title)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(w, "\nQuestion N is docs/questions.md#qN; 'sharesim list --questions' prints them.")
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&questions, "questions", false, "print the user questions with the scenarios that answer them")
	return cmd
}

func newChecksCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "checks [NAME...]",
		Short: "List the checks a run can apply",
		Long: `List the checks a run can apply (all of them, or the ones named), with when each runs:
event (after every simulator event), deep (a full scan of the share-partitions after every
event), history (on the client-visible history at the end) or end (after the run).
A scenario selects them with its checks key; --set checks=... overrides it.`,
		Example: `  sharesim checks
  sharesim checks linearizable liveness
  sharesim checks --json
  sharesim run quickstart --set 'checks=[liveness, no-silent-loss]'
  sharesim run quickstart --set checks=none`,
		RunE: func(cmd *cobra.Command, args []string) error {
			want := map[string]bool{}
			for _, a := range args {
				found := false
				for _, c := range checker.Catalogue {
					found = found || c.Name == a
				}
				if !found {
					return usageErr("no check %q; expected one of %s", a, strings.Join(checker.Names(), ", "))
				}
				want[a] = true
			}
			type check struct {
				Name string `json:"name"`
				When string `json:"when"`
				Doc  string `json:"doc"`
			}
			out := []check{}
			for _, c := range checker.Catalogue {
				if len(want) == 0 || want[c.Name] {
					out = append(out, check{c.Name, c.When, c.Doc})
				}
			}
			if asJSON {
				return writeJSONTo(cmd.OutOrStdout(), out)
			}
			for _, c := range out {
				fmt.Fprintf(cmd.OutOrStdout(), "%s (%s)\n    %s\n", c.Name, c.When, c.Doc)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
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
			// A run cut short (interrupted, max_events) is replayed as far as it went: its
			// first sum.Events events give the same trace.
			so := simOpts{}
			if sum.CutShort != "" {
				so.stopAfter = sum.Events
			}
			o, err := simulate(sc, sum.Seed, so)
			if err != nil && !(sum.CutShort != "" && isIncomplete(err) && o != nil) {
				return err
			}
			w := cmd.OutOrStdout()
			if o.res.TraceSHA256 != sum.TraceSHA256 {
				fmt.Fprintf(w, "DIFFERENT trace: recorded %s, replayed %s\n", sum.TraceSHA256, o.res.TraceSHA256)
				return checksFailed
			}
			cut := ""
			if sum.CutShort != "" {
				cut = fmt.Sprintf("; the recorded run was cut short (%s, verdict %s): its first %d events replayed", sum.CutShort, sum.Verdict, sum.Events)
			}
			fmt.Fprintf(w, "SAME trace %s (%s, seed %d, %d events%s)\n", sum.TraceSHA256, sum.Scenario, sum.Seed, o.res.Events, cut)
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
	if err := atomicfile.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n')); err != nil {
		return fmt.Errorf("writing summary: %w", err)
	}
	yml, err := sc.Canonical()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "scenario.yaml"), yml)
}
