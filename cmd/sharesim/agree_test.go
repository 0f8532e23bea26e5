package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// The printed summary, summary.json, groups.csv and index.html of a run say the same thing,
// and docs/metrics.md defines every figure summary.json carries: checked on every built-in
// workload, shortened (heavy ones scaled down).
func TestOutputsAgreeOnEveryBuiltin(t *testing.T) {
	glossary, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatalf("docs/metrics.md: %v", err)
	}
	var (
		mu           sync.Mutex
		undocumented = map[string]bool{}
	)
	t.Run("builtins", func(t *testing.T) { // returns once its parallel subtests are done
		for _, in := range scenarios.List() {
			if in.Kind != scenarios.KindWorkload {
				continue
			}
			t.Run(in.Name, func(t *testing.T) {
				t.Parallel()
				sets := shortScaledSets(t, in.Name, "10s", "checks=none") // outputs, not checks: those run in the library test
				dir := t.TempDir()
				var out bytes.Buffer
				page := pageChecked[in.Name] || testmode.Long
				// The default run draws the page without the PNG files (the page links them, it
				// does not show them; rasterising them under -race took 4 CPU-s a page); with
				// the build tag long the CLI draws the whole report.
				err := runScenario(&out, io.Discard, strings.NewReader(""), in.Name, runFlags{out: dir, sets: sets, yes: true, noReport: !testmode.Long})
				if err != nil && err != checksFailed {
					t.Fatal(err)
				}
				if page && !testmode.Long {
					if _, err := reports.RenderPage(dir); err != nil {
						t.Fatal(err)
					}
				}
				sum, err := reports.ReadSummary(dir)
				if err != nil {
					t.Fatal(err)
				}
				printed := out.String()
				var html []byte
				if page {
					if html, err = os.ReadFile(filepath.Join(dir, "index.html")); err != nil {
						t.Fatal(err)
					}
				}
				last := lastGroupRows(t, filepath.Join(dir, "groups.csv"))
				if len(sum.Groups) != len(sum.Metrics.Groups) {
					t.Fatalf("%d headlines for %d groups", len(sum.Groups), len(sum.Metrics.Groups))
				}
				for i := range sum.Metrics.Groups {
					g := &sum.Metrics.Groups[i]
					h := sum.Groups[i]
					if !reflect.DeepEqual(h, reports.HeadlineOf(g)) {
						t.Errorf("group %s: summary.json's headline differs from its metrics", g.Name)
					}
					// The printed summary.
					for _, want := range []string{
						fmt.Sprintf("group %s (%s, %d consumers) over the window %s–%s", g.Name, g.Type, len(g.Consumers), fmtDuration(g.Window.StartMs), fmtDuration(g.Window.EndMs)),
						fmt.Sprintf("duplicates %.1f per hour (%d in the window", g.Rates.DuplicatesPerHour, g.InWindow.Duplicates),
						fmt.Sprintf("produced %d, completed %d", g.Totals.Produced, g.Totals.Completed),
					} {
						if !strings.Contains(printed, want) {
							t.Errorf("the printed summary lacks %q:\n%s", want, printed)
						}
					}
					arrived := fmt.Sprintf("%.1f records/s arrived", g.Rates.ArrivalPerSec)
					if !g.KeepUp.KeptUp {
						arrived = fmt.Sprintf("%.1f records/s arrived, %.1f/s finished", g.KeepUp.ArrivalPerSec, g.KeepUp.FinishedPerSec)
					}
					if !strings.Contains(printed, arrived) {
						t.Errorf("the printed summary lacks %q", arrived)
					}
					// The report page.
					for _, want := range []string{fmt.Sprintf("%.1f per hour", g.Rates.DuplicatesPerHour), fmt.Sprintf("%.1f/s", g.Rates.ArrivalPerSec), fmt.Sprintf("%.3f", g.DeliveriesPerRecord)} {
						if page && !bytes.Contains(html, []byte(want)) {
							t.Errorf("index.html lacks %q for group %s", want, g.Name)
						}
					}
					// The time series ends where the totals are.
					row, ok := last[g.Name]
					if !ok {
						t.Fatalf("groups.csv has no row for %s", g.Name)
					}
					for col, want := range map[string]int64{"produced": g.Totals.Produced, "deliveries": g.Totals.Deliveries, "redeliveries": g.Totals.Redeliveries,
						"duplicates": g.Totals.Duplicates, "processed_ok": g.Totals.ProcessedOK, "completed": g.Totals.Completed, "lock_timeouts": g.Totals.AcquisitionLockTimeouts} {
						if row[col] != want {
							t.Errorf("groups.csv ends with %s %s = %d, summary.json says %d", g.Name, col, row[col], want)
						}
					}
					// Kafka's meters: the series' running counts end at the summary's totals.
					if k := g.Kafka; k != nil {
						sg := k.ShareGroup.RecordAcknowledgementsCount
						for col, want := range map[string]int64{"AcquisitionLockTimeoutPerSec_count": k.SharePartition.AcquisitionLockTimeoutCount,
							"RecordAcknowledgementsPerSec_Accept_count": sg["Accept"], "RecordAcknowledgementsPerSec_Release_count": sg["Release"],
							"RecordAcknowledgementsPerSec_Reject_count": sg["Reject"], "RecordAcknowledgementsPerSec_Renew_count": sg["Renew"],
							"acknowledgements-send-total": k.Consumer.AcknowledgementsSendTotal, "acknowledgements-error-total": k.Consumer.AcknowledgementsErrorTotal} {
							if row[col] != want {
								t.Errorf("groups.csv ends with %s %s = %d, summary.json says %d", g.Name, col, row[col], want)
							}
						}
					}
				}
				for _, k := range jsonKeys(sum.Metrics.Groups) {
					if !bytes.Contains(glossary, []byte("`"+k+"`")) {
						mu.Lock()
						undocumented[k] = true
						mu.Unlock()
					}
				}
			})
		}
	})
	if len(undocumented) > 0 {
		var ks []string
		for k := range undocumented {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		t.Errorf("docs/metrics.md does not define %s", strings.Join(ks, ", "))
	}
}

// pageChecked are the built-ins whose report page the default run draws and compares (every
// one with the build tag long): one share group, a share and a classic group, one that does
// not keep up, one with retention.
var pageChecked = map[string]bool{"quickstart": true, "share-vs-classic-parallelism": true, "in-flight-cap": true, "retention-while-down": true}

// lastGroupRows reads groups.csv and returns each group's last row.
func lastGroupRows(t *testing.T, path string) map[string]map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("groups.csv: %v (%d rows)", err, len(rows))
	}
	out := map[string]map[string]int64{}
	for _, r := range rows[1:] {
		m := map[string]int64{}
		for i, col := range rows[0] {
			if v, err := strconv.ParseInt(r[i], 10, 64); err == nil {
				m[col] = v
			}
		}
		out[r[1]] = m
	}
	return out
}

var jsonKeyRE = regexp.MustCompile(`^[a-zA-Z_0-9]+$`)

// jsonKeys lists every object key of v's JSON form, recursively (not map keys of
// free-form maps such as causes).
func jsonKeys(v []sim.GroupMetrics) []string {
	b, _ := json.Marshal(v)
	var x any
	json.Unmarshal(b, &x)
	seen := map[string]bool{}
	var walk func(x any, free bool)
	walk = func(x any, free bool) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				if !free && jsonKeyRE.MatchString(k) {
					seen[k] = true
				}
				walk(v, freeForm[k])
			}
		case []any:
			for _, e := range x {
				walk(e, false)
			}
		}
	}
	walk(x, false)
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// freeForm are the maps whose keys are data (causes, states, ack types), not field names.
var freeForm = map[string]bool{"duplicates_by_cause": true, "finished": true, "terminal_in_cache": true, "unfinished": true, "RecordAcknowledgements": true}
