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

// Every PinnedBy names a test of this package.
func TestPinnedByNamesATest(t *testing.T) {
	src, err := os.ReadFile("pin_kfake_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Kfake {
		if d.PinnedBy != "" && !strings.Contains(string(src), "func "+d.PinnedBy+"(t *testing.T)") {
			t.Errorf("%s: PinnedBy %s is not a test in pin_kfake_test.go", d.ID, d.PinnedBy)
		}
	}
}
