package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/scenarios"
)

// docFiles are the documents whose examples TestDocExamples runs, from the repository root.
var docFiles = []string{"README.md", "docs/scenarios.md", "docs/checking.md", "docs/simulator.md", "docs/benchmarks.md", "docs/semantics.md", "docs/questions.md"}

// docCommand is one sharesim command of a document's sh block.
type docCommand struct {
	line   int
	args   []string
	stdout string // > FILE
}

// docExamples extracts, from a Markdown file, the sharesim commands of its sh blocks (a line
// continued with a backslash is joined; a trailing # comment dropped; "go run ./cmd/sharesim"
// counts as sharesim) and the YAML blocks that start with a "# NAME.yaml" comment.
func docExamples(t *testing.T, path string) (cmds []docCommand, files map[string]string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n, lang, inBlock := 0, "", false
	var pending string
	var yaml []string
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.HasPrefix(l, "```") {
			if !inBlock {
				inBlock, lang, yaml = true, strings.TrimPrefix(l, "```"), nil
				continue
			}
			inBlock = false
			if lang == "yaml" && len(yaml) > 0 && strings.HasPrefix(yaml[0], "# ") && strings.HasSuffix(yaml[0], ".yaml") {
				files[strings.TrimPrefix(yaml[0], "# ")] = strings.Join(yaml, "\n") + "\n"
			}
			continue
		}
		if !inBlock {
			continue
		}
		if lang == "yaml" {
			yaml = append(yaml, l)
			continue
		}
		if lang != "sh" {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			pending += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		l, pending = pending+l, ""
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		if strings.ContainsAny(l, "$*") {
			continue // a template for a job array or a CI matrix: its variables and globs need a shell
		}
		fields := strings.Fields(l)
		switch {
		case len(fields) > 2 && fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/sharesim":
			fields = fields[3:]
		case len(fields) > 0 && fields[0] == "sharesim":
			fields = fields[1:]
		default:
			continue // go test, go install: CI runs those
		}
		c := docCommand{line: n}
		for i := 0; i < len(fields); i++ {
			if fields[i] == ">" && i+1 < len(fields) {
				c.stdout = fields[i+1]
				break
			}
			c.args = append(c.args, strings.Trim(fields[i], "'"))
		}
		cmds = append(cmds, c)
	}
	return cmds, files
}

// expectedExit is the exit code a documented command must give: the ones that show a bug
// being caught fail (1); the rest pass.
func expectedExit(args []string) []int {
	line := strings.Join(args, " ")
	switch {
	case strings.HasPrefix(line, "check --bug"), strings.HasPrefix(line, "run counterexample.yaml"),
		strings.HasPrefix(line, "run ") && strings.Contains(line, "kafka.bug=spso-steps-back"):
		return []int{1}
	case strings.HasPrefix(line, "check merge"):
		return []int{0, 1, 3}
	case strings.HasPrefix(line, "check") && !strings.Contains(line, "--fix"):
		// The faithful core meets the documented Kafka findings (exit 1) unless the search
		// is cut short first (exit 3) or the scope cannot reach them (0).
		return []int{0, 1, 3}
	case strings.HasPrefix(line, "check") && !testmode.Long:
		return []int{0, 3} // bounded by --max-states: complete or cut short
	}
	return []int{0}
}

// scaleDown returns the arguments of a documented command for the default test run: the
// explorer bounded to 2 000 states, shrinking to 8 runs, sweeps to one seed, and built-in worlds above the
// library test's event budget scaled down (consumers and load alike). With the build tag
// long the commands run as written.
func scaleDown(t *testing.T, args []string) []string {
	if testmode.Long || len(args) == 0 {
		return args
	}
	out := append([]string(nil), args...)
	switch args[0] {
	case "check":
		if len(args) > 1 && args[1] == "merge" {
			return out
		}
		if len(args) > 1 && args[1] == "--bug" {
			return append(out, "--max-states", "30000") // the bug is a few steps deep
		}
		return append(out, "--max-states", "2000")
	case "shrink":
		return append(out, "--max-runs", "8")
	case "sweep":
		for i := range out {
			if out[i] == "--seeds" && i+1 < len(out) {
				out[i+1] = "1..1"
			}
		}
	}
	if (args[0] == "run" || args[0] == "sweep") && len(args) > 1 {
		// The command's own world, its --set overrides applied (a sweep's first values).
		var sets []string
		for i := 2; i+1 < len(args); i++ {
			if args[i] == "--set" {
				sets = append(sets, strings.SplitN(args[i+1], ",", 2)[0])
			}
		}
		if sc, err := loadScenario(args[1], sets); err == nil && sc.Kind() == scenarios.KindWorkload {
			cfg, _ := sc.SimConfig()
			if est := scenarios.EstimateCost(cfg).Events; est > libraryEventBudget() {
				factor := (est + libraryEventBudget() - 1) / libraryEventBudget()
				for gi, g := range cfg.Groups {
					for ci, c := range g.Consumers {
						out = append(out, "--set", "groups."+itoa(gi)+".consumers."+itoa(ci)+".count="+itoa(max(1, c.Count/int(factor))))
					}
				}
				for pi, p := range cfg.Producers {
					out = append(out, "--set", "producers."+itoa(pi)+".rate="+ftoa(p.RecordsPerSecond/float64(factor))+"/s")
				}
				if cfg.DurationMs > 60_000 {
					out = append(out, "--set", "duration=1m")
				}
			}
		}
	}
	return out
}

// Every sharesim command in the README and docs/ runs as written (scaled down in the default
// run) in a fresh folder that sees the repository's docs, scenarios and reports folders, in
// document order, with the exit code the text implies.
func TestDocExamples(t *testing.T) {
	self := cliBinary(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, doc := range docFiles {
		cmds, files := docExamples(t, filepath.Join(root, doc))
		if len(cmds) == 0 {
			continue
		}
		total += len(cmds)
		t.Run(strings.ReplaceAll(doc, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"docs", "scenarios", "reports"} {
				if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
					t.Fatal(err)
				}
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range cmds {
				args := scaleDown(t, c.args)
				cmd := exec.Command(self, append([]string{"--no-progress"}, args...)...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), asCLI+"=1", "GORACE="+quickRaceExit)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				// As printed, not scaled: a run or sweep must pass its cost check (the README's
				// sweep once stopped at "pass --yes").
				if len(c.args) > 0 && (c.args[0] == "run" || c.args[0] == "sweep") {
					dry := exec.Command(self, append([]string{"--no-progress"}, append(append([]string(nil), c.args...), "--dry-run")...)...)
					dry.Dir = dir
					dry.Env = cmd.Env
					if out, err := dry.CombinedOutput(); err != nil {
						t.Errorf("%s:%d: sharesim %s, as printed, fails its input or cost check: %v\n%s", doc, c.line, strings.Join(c.args, " "), err, out)
					}
				}
				ok := false
				want := expectedExit(c.args)
				for _, w := range want {
					ok = ok || w == code
				}
				if !ok {
					t.Errorf("%s:%d: sharesim %s: exit code %d, want %v\n%s%s", doc, c.line, strings.Join(args, " "), code, want, stdout.String(), stderr.String())
				}
				if c.stdout != "" {
					if err := os.WriteFile(filepath.Join(dir, c.stdout), stdout.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
	if total < 20 {
		t.Fatalf("found %d documented commands; the extraction is broken", total)
	}
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// The README's figures about progress, the cost confirmation and the hard limits are the
// program's: each sentence is checked against the value it states.
func TestReadmeFiguresMatchTheProgram(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(data)), " ")
	l := scenarios.Limits
	for _, want := range []string{
		"a line every " + strconv.Itoa(int(defaultProgressEvery.Seconds())) + " s otherwise",
		"asks for `--yes` above about " + strconv.FormatInt(confirmEvents/1_000_000, 10) + " M events or " + strconv.FormatInt(confirmBytes>>30, 10) + " GB",
		strconv.FormatInt(l.VirtualMs/86_400_000, 10) + " days of virtual time",
		"5 000 000 records/s (batches of at most 100 000 records)",
		"20 000 consumers",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if l.RecordsPerSecond != 5_000_000 || l.BatchRecords != 100_000 || l.Consumers != 20_000 || l.Records != 1_000_000_000 || l.PartitionsTimesConsumers != 20_000_000 {
		t.Errorf("scenarios.Limits changed (%+v): update the README's list of hard limits and this test", l)
	}
}
