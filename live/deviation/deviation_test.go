package deviation

import "testing"

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
