package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
)

// Render writes every plot as SVG and PNG and one index.html that shows each of them. The
// PNGs are slow under the race detector: the default run draws a run with two groups and a
// sweep; the build tag long draws every fixture.
func TestRenderWritesPlotsAndPage(t *testing.T) {
	for _, fx := range fixtures {
		if fx.name == "run-quickstart" && !testmode.Long {
			continue // drawn by TestGoldenSVG and TestPlotsAreDeterministic as well
		}
		t.Run(fx.name, func(t *testing.T) {
			dir := copyFixture(t, fx.name)
			files, err := Render(dir)
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(dir, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			svgs := 0
			for _, f := range files {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("Render listed %s but did not write it: %v", f, err)
				}
				if name, ok := strings.CutSuffix(f, ".svg"); ok {
					svgs++
					if !bytes.Contains(page, []byte(`id="fig-`+name+`"`)) {
						t.Errorf("index.html does not show %s", f)
					}
					if !hasFile(files, name+".png") {
						t.Errorf("%s has no PNG", f)
					}
				}
			}
			if svgs < 6 {
				t.Errorf("only %d plots: %v", svgs, files)
			}
			if got := bytes.Count(page, []byte("<svg ")); got != svgs {
				t.Errorf("index.html inlines %d SVGs, want %d", got, svgs)
			}
			checkSelfContained(t, page)
		})
	}
}

// checkSelfContained fails if the page would load anything: scripts, style sheets, fonts,
// images, frames, or any URL with a scheme other than a local link.
func checkSelfContained(t *testing.T, page []byte) {
	t.Helper()
	for _, bad := range []string{"<script", "<link", "<iframe", "<img", "<object", "<embed", "@import", "url(", "@font-face"} {
		if bytes.Contains(bytes.ToLower(page), []byte(bad)) {
			t.Errorf("index.html contains %q: it must not load anything", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(?i)(?:src|href)\s*=\s*"([^"]*)"`).FindAllSubmatch(page, -1) {
		u := string(m[1])
		if strings.Contains(u, "//") || strings.Contains(u, ":") && !strings.HasPrefix(u, "#") {
			t.Errorf("index.html refers to %q: only local files next to it and anchors are allowed", u)
		}
	}
}

// The page shows the verdict, each violation with its reproduce command, the scenario and its
// settings, and links porcupine's visualisation when a checker left one.
func TestRunPageContent(t *testing.T) {
	dir := copyFixture(t, "run-quickstart")
	sum, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum.Verdict = "fail"
	sum.Violations = []Violation{{Check: "no-accepted-redelivery", Message: "offset 42 of orders/0 was delivered again after ACCEPT",
		TimeMs: 61_000, Reproduce: "sharesim run quickstart --seed 1"}}
	if err := writeJSON(filepath.Join(dir, "summary.json"), sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, LinearizabilityFile), []byte("<html></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := render(dir, true); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, want := range []string{
		`<span class="verdict FAIL"`, "no-accepted-redelivery", "offset 42 of orders/0 was delivered again after ACCEPT",
		"<code>sharesim run quickstart --seed 1</code>", `href="linearizability.html"`,
		"A small share group with default settings", "Answers questions 1, 16.", "share.record.lock.duration.ms",
		"name: quickstart", "70 record deliveries were redeliveries: 70 after their lock expired.", "records were processed successfully more than once, 60 duplicate processings in all", "SharePartitionMetrics InFlightMessageCount", "The backlog of all partitions together peaked at",
	} {
		if !strings.Contains(string(page), strings.ReplaceAll(want, "'", "&#39;")) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}

// A folder without the report's data files (written by an older sharesim) still gets a page:
// the time-series plots say that their data is missing.
func TestRenderWithoutSeries(t *testing.T) {
	dir := copyFixture(t, "run-quickstart")
	os.Remove(filepath.Join(dir, "series.json"))
	os.Remove(filepath.Join(dir, "records.json"))
	if _, err := render(dir, true); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !bytes.Contains(page, []byte("no sampled records")) {
		t.Error("the timeline does not say that records.json is missing")
	}
}

func TestRenderRejectsOtherFolders(t *testing.T) {
	if _, err := Render(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a result folder") {
		t.Errorf("empty folder: got %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario":"x","kind":"scripted","verdict":"pass"}`), 0o644)
	if _, err := Render(dir); err == nil || !strings.Contains(err.Error(), "scripted") {
		t.Errorf("scripted folder: got %v", err)
	}
}

func TestXValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		unit string
		ok   bool
	}{{"30s", 30, "s", true}, {"1m", 60, "s", true}, {"500ms", 0.5, "s", true}, {"4", 4, "", true}, {"100/s", 100, "/s", true},
		{"classic", 0, "", false}, {"1/2000", 0, "", false}} {
		got, unit, ok := xValue(c.in)
		if got != c.want || unit != c.unit || ok != c.ok {
			t.Errorf("xValue(%q) = %v %q %v, want %v %q %v", c.in, got, unit, ok, c.want, c.unit, c.ok)
		}
	}
}

// A summary with almost nothing in it (an older or hand-made folder) still draws: every plot
// says what it lacks instead of failing.
func TestRenderMinimalSummary(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario":"bare","verdict":"pass","metrics":{},"headline":{}}`), 0o644)
	files, err := render(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 9 {
		t.Errorf("wrote %v", files)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !bytes.Contains(page, []byte("no scenario.yaml in the folder")) {
		t.Error("the page does not say that scenario.yaml is missing")
	}
}
