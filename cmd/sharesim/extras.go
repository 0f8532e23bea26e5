package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print sharesim's version, the Go version it was built with and the Kafka versions it models",
		Example: "  sharesim version\n  sharesim version --json",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := struct {
				Sharesim string   `json:"sharesim"`
				Go       string   `json:"go"`
				Kafka    []string `json:"kafka_versions"`
				Commit   string   `json:"commit,omitempty"`
			}{Sharesim: version, Go: runtime.Version(), Kafka: kafkaVersionNames()}
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						v.Commit = s.Value
					}
				}
			}
			if asJSON {
				return writeJSONTo(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sharesim %s (%s; models Kafka %s and %s)\n", v.Sharesim, v.Go,
				strings.Join(v.Kafka[:len(v.Kafka)-1], ", "), v.Kafka[len(v.Kafka)-1])
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// kafkaVersionNames lists the Kafka versions the core models, ascending.
func kafkaVersionNames() []string {
	var out []string
	for _, v := range model.Versions {
		out = append(out, v.String())
	}
	return out
}

func newShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in scenario's YAML, to read or to start one's own from",
		Example: `  sharesim show quickstart
  sharesim show quickstart > my-scenario.yaml`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := scenarios.BuiltinYAML(args[0])
			if err != nil {
				return inputErr(err)
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
}

// completeScenarios completes built-in scenario names (and, as the shell does, files).
func completeScenarios(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, in := range scenarios.List() {
		if strings.HasPrefix(in.Name, prefix) {
			out = append(out, in.Name+"\t"+in.Title)
		}
	}
	return out, cobra.ShellCompDirectiveDefault
}

// completeSet completes --set with the keys people reach for most and, after kafka.bug=,
// the bug zoo's names.
func completeSet(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if v, ok := strings.CutPrefix(prefix, "kafka.bug="); ok {
		var out []string
		for _, b := range model.BugNames() {
			if strings.HasPrefix(b, v) {
				out = append(out, "kafka.bug="+b)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	if v, ok := strings.CutPrefix(prefix, "checks="); ok {
		var out []string
		for _, c := range append([]string{"all", "none"}, checker.Names()...) {
			if strings.HasPrefix(c, v) {
				out = append(out, "checks="+c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	keys := []string{"duration=", "heal=", "seed=", "checks=", "kafka.bug=", "kafka.version=", "kafka.share.record.lock.duration.ms=",
		"kafka.group.share.delivery.count.limit=", "kafka.group.share.partition.max.record.locks=", "groups.0.consumers.0.count=", "producers.0.rate="}
	var out []string
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

func completeBugs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return model.BugNames(), cobra.ShellCompDirectiveNoFileComp
}

func completeMetrics(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return reports.MetricNames(), cobra.ShellCompDirectiveNoFileComp
}

func completeChecks(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return checker.Names(), cobra.ShellCompDirectiveNoFileComp
}

// wireCompletion adds completion of scenario names, --set, --bug, --metric and check names
// to the commands that take them, and --json to bugs.
func wireCompletion(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run", "sweep", "shrink", "validate":
			c.ValidArgsFunction = completeScenarios
		case "checks":
			c.ValidArgsFunction = completeChecks
		case "bugs":
			addBugsJSON(c)
		}
		if c.Flags().Lookup("set") != nil {
			_ = c.RegisterFlagCompletionFunc("set", completeSet)
		}
		if c.Flags().Lookup("bug") != nil {
			_ = c.RegisterFlagCompletionFunc("bug", completeBugs)
		}
		if c.Flags().Lookup("metric") != nil && c.Name() != "sweep" {
			_ = c.RegisterFlagCompletionFunc("metric", completeMetrics)
		}
	}
}

// addBugsJSON gives the bugs command a --json flag: the bug zoo as a JSON list.
func addBugsJSON(c *cobra.Command) {
	var asJSON bool
	c.Flags().BoolVar(&asJSON, "json", false, "print the bug zoo as JSON")
	text := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if !asJSON {
			return text(cmd, args)
		}
		type bug struct {
			Name string `json:"name"`
			Doc  string `json:"doc"`
			Ref  string `json:"ref"`
		}
		out := []bug{}
		for _, b := range model.Bugs() {
			out = append(out, bug{b.Name, b.Doc, b.Ref})
		}
		return writeJSONTo(cmd.OutOrStdout(), out)
	}
}
