package reports_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// Streaming the time series while a run runs writes the same files as writing them from a
// result kept in memory, and the streamed result holds no sample.
func TestStreamedSeriesMatchesTheKeptOne(t *testing.T) {
	sc, err := scenarios.LoadAny("quickstart")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sc.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	kept, err := sim.Run(cfg, 1, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	if err := reports.WriteRun(a, &reports.Summary{}, kept, nil); err != nil {
		t.Fatal(err)
	}
	sf, err := reports.CreateSeriesFiles(b, cfg.MetricsIntervalMs)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := sim.Run(cfg, 1, sim.Options{OnSample: sf.Add})
	if err != nil {
		t.Fatal(err)
	}
	if err := sf.Close(); err != nil {
		t.Fatal(err)
	}
	if streamed.Metrics.Series != nil || streamed.TraceSHA256 != kept.TraceSHA256 {
		t.Fatalf("streamed run kept %d samples, trace %s vs %s", len(streamed.Metrics.Series), streamed.TraceSHA256, kept.TraceSHA256)
	}
	if err := reports.WriteRun(b, &reports.Summary{}, streamed, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"series.json", "metrics.csv", "groups.csv"} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(bytes.TrimSpace(x), bytes.TrimSpace(y)) {
			t.Errorf("%s differs: %d bytes kept, %d streamed", name, len(x), len(y))
		}
	}
}
