package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The plots are golden files: the SVG of every figure of every fixture is compared byte for
// byte with testdata/golden/<fixture>/<figure>.svg.
//
// After a deliberate change to the plots, rewrite them with
//
//	go test ./reports -run Golden -update
//
// and read the diff (git diff --stat reports/testdata, then the files) before committing:
// look at the changed figures in a browser (the PNGs Render writes next to them show the same)
// to confirm that only what you meant to change changed.
var update = flag.Bool("update", false, "rewrite the golden SVG files in testdata/golden (read the diff before committing)")

func goldenDir(fixture string) string { return filepath.Join("testdata", "golden", fixture) }

// figuresOf draws a fixture's figures (without writing them) and returns their SVGs by name.
func figuresOf(t *testing.T, fixture string) map[string][]byte {
	t.Helper()
	dir := copyFixture(t, fixture)
	var figs []figure
	if strings.HasPrefix(fixture, "sweep-") {
		st, err := ReadSweep(dir)
		if err != nil {
			t.Fatal(err)
		}
		figs = sweepFigures(st)
	} else {
		d, err := loadRun(dir)
		if err != nil {
			t.Fatal(err)
		}
		figs = runFigures(d)
	}
	out := map[string][]byte{}
	for _, f := range figs {
		b, err := f.render("svg")
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

func TestGoldenSVG(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			svgs := figuresOf(t, fx.name)
			dir := goldenDir(fx.name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, b := range svgs {
					if err := os.WriteFile(filepath.Join(dir, name+".svg"), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
			var want []string
			for _, f := range files {
				want = append(want, strings.TrimSuffix(filepath.Base(f), ".svg"))
			}
			var got []string
			for name := range svgs {
				got = append(got, name)
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("figures %v, golden files %v (run with -update after a deliberate change and read the diff)", got, want)
			}
			for _, name := range got {
				golden, err := os.ReadFile(filepath.Join(dir, name+".svg"))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(golden, svgs[name]) {
					t.Errorf("%s.svg differs from %s (%d bytes, golden %d); run with -update after a deliberate change and read the diff",
						name, filepath.Join(dir, name+".svg"), len(svgs[name]), len(golden))
				}
			}
		})
	}
}

// Drawing the same folder twice gives the same bytes, PNG included (two figures: the PNGs
// are slow under the race detector).
func TestPlotsAreDeterministic(t *testing.T) {
	d, err := loadRun(copyFixture(t, "run-quickstart"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := runFigures(d), runFigures(d)
	for i := range a {
		if a[i].Name != "redeliveries" && a[i].Name != "timeline" {
			continue
		}
		for _, format := range []string{"svg", "png"} {
			x, err := a[i].render(format)
			if err != nil {
				t.Fatal(err)
			}
			y, err := b[i].render(format)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x, y) {
				t.Errorf("%s.%s differs between two drawings of the same run", a[i].Name, format)
			}
		}
	}
}
