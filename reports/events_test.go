package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// strictObject parses one JSON object, failing on a repeated key (encoding/json would keep
// the last value silently, as jq and Python do).
func strictObject(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %v", err)
	}
	out := map[string]any{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := kt.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("key %q repeated", k)
		}
		out[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return out, nil
}

// eventKinds reads the documented event kinds from docs/events.schema.json.
func eventKinds(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../docs/events.schema.json")
	if err != nil {
		t.Fatalf("the events schema: %v", err)
	}
	var schema struct {
		Properties struct {
			Kind struct {
				Enum []string `json:"enum"`
			} `json:"kind"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatalf("docs/events.schema.json: %v", err)
	}
	kinds := map[string]bool{}
	for _, k := range schema.Properties.Kind.Enum {
		kinds[k] = true
	}
	if len(kinds) == 0 {
		t.Fatal("docs/events.schema.json lists no event kinds")
	}
	return kinds
}

// Every line of events.ndjson of several eventful runs is one JSON object with unique keys,
// an integer time t ≥ 0, a documented kind, and only integer or string values.
func TestEventsNDJSONLinesAreStrictAndDocumented(t *testing.T) {
	kinds := eventKinds(t)
	seen := map[string]bool{}
	for _, name := range []string{"chaos-swarm", "quickstart", "leader-failover", "coordinator-trouble", "read-committed-long-txn", "retention-while-down"} {
		sc, err := scenarios.LoadAny(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := sc.SimConfig()
		if err != nil {
			t.Fatal(err)
		}
		// Two minutes of each run show every kind of event; the build tag long reads ten.
		limit := int64(120_000)
		if testmode.Long {
			limit = 600_000
		}
		if cfg.DurationMs > limit {
			cfg.DurationMs, cfg.HealMs = limit, min(cfg.HealMs, limit/5)
		}
		res, err := sim.Run(cfg, 2, sim.Options{KeepTrace: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, line := range res.Trace {
			obj, err := strictObject(reports.TraceLineJSON(line))
			if err != nil {
				t.Fatalf("%s line %d %q: %v", name, i+1, line, err)
			}
			ts, ok := obj["t"].(json.Number)
			if n, err := ts.Int64(); !ok || err != nil || n < 0 {
				t.Fatalf("%s line %d: t = %v", name, i+1, obj["t"])
			}
			kind, _ := obj["kind"].(string)
			if !kinds[kind] {
				t.Fatalf("%s line %d: kind %q is not in docs/events.schema.json", name, i+1, kind)
			}
			seen[kind] = true
			for k, v := range obj {
				switch v.(type) {
				case json.Number, string:
				default:
					t.Fatalf("%s line %d: %s = %v (%T)", name, i+1, k, v, v)
				}
			}
		}
	}
	for _, k := range []string{"write", "fault", "acquire", "ack", "expire"} {
		if !seen[k] {
			t.Errorf("no %q event in the runs: the test lost its coverage", k)
		}
	}
}

// A trace line that repeated a key keeps both values under distinct keys.
func TestTraceLineJSONNeverRepeatsAKey(t *testing.T) {
	obj, err := strictObject(reports.TraceLineJSON("258 write p=orders/1 kind=ack t=3 p=x"))
	if err != nil {
		t.Fatal(err)
	}
	if obj["kind"] != "write" || obj["kind_2"] != "ack" || obj["p_2"] != "x" || obj["t_2"] != json.Number("3") {
		t.Fatalf("%v", obj)
	}
}
