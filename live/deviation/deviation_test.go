package deviation

import (
	"os"
	"strings"
	"testing"
)

func TestCatalogueIDsUniqueAndComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Kfake {
		if d.ID == "" || d.Title == "" || d.Kafka == "" || d.Theirs == "" || d.Broker != "kfake" {
			t.Errorf("entry %q is missing a field", d.ID)
		}
		if seen[d.ID] {
			t.Errorf("duplicate id %q", d.ID)
		}
		seen[d.ID] = true
		if got, ok := ByID("kfake", d.ID); !ok || got.ID != d.ID {
			t.Errorf("ByID(%q) = %v, %v", d.ID, got.ID, ok)
		}
	}
	if got := ForCheck("kfake", "nothing-below-spso-acquired"); len(got) != 1 || got[0].ID != "log-start-not-followed" {
		t.Errorf("ForCheck(nothing-below-spso-acquired) = %v", got)
	}
	if got := ForCheck("kafka", "linearizable"); len(got) != 0 {
		t.Errorf("a broker without a catalogue has no deviations, got %v", got)
	}
}

// Every entry is pinned: by a test of this package (PinnedBy "live/deviation.TestX", checked
// here) or by one of the differential test's pins ("live/peer.TestX", checked there by
// TestCatalogueNamesPins).
func TestPinnedByNamesATest(t *testing.T) {
	src, err := os.ReadFile("pin_kfake_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Kfake {
		if name, ok := strings.CutPrefix(d.PinnedBy, "live/deviation."); ok {
			if !strings.Contains(string(src), "func "+name+"(t *testing.T)") {
				t.Errorf("%s: PinnedBy %s is not a test in pin_kfake_test.go", d.ID, d.PinnedBy)
			}
			continue
		}
		if !strings.HasPrefix(d.PinnedBy, "live/peer.") {
			t.Errorf("%s: PinnedBy %q names no pin test of live/deviation or live/peer", d.ID, d.PinnedBy)
		}
	}
}
