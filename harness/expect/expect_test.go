package expect

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		expr    string
		want    string // String() of the check, or the error's substring
		wantErr bool
	}{
		{"lost-write == 0", "lost-write == 0", false},
		{"  offset-reuse>0 ", "offset-reuse > 0", false},
		{"errors.NOT_ENOUGH_REPLICAS > 0", "errors.NOT_ENOUGH_REPLICAS > 0", false},
		{"offline_seconds <= 60.5", "offline_seconds <= 60.5", false},
		{"leader_after_fault == 1", "leader_after_fault == 1", false},
		{"acked >= 100", "acked >= 100", false},
		{"lost-write = 0", "want `metric op number`", true},
		{"lost-write == zero", "is not a number", true},
		{"lost-write == NaN", "is not a number", true},
		{"lost-writes == 0", "unknown metric", true},
		{"errors.not_enough > 0", "errors.<KAFKA_ERROR_NAME>", true},
		{"errors. > 0", "errors.<KAFKA_ERROR_NAME>", true},
		{"", "want `metric op number`", true},
	} {
		c, err := Parse(tc.expr, nil)
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%q) = %v, %v; want error containing %q", tc.expr, c, err, tc.want)
			}
			continue
		}
		if err != nil || c.String() != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.expr, c.String(), err, tc.want)
		}
	}
}

func must(t *testing.T, expr string, when map[string]string) Check {
	t.Helper()
	c, err := Parse(expr, when)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInvariant: a check is an invariant when a run where nothing
// happened (its metric 0) holds it; a story's expectation of its faults'
// effect is not.
func TestInvariant(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"lost-write == 0", true},
		{"offset-reuse <= 0", true},
		{"offline_seconds <= 60", true},
		{"send_errors < 10", true},
		{"lost-write != 3", true},
		{"lost-write > 0", false},
		{"offset-reuse >= 1", false},
		{"leader_after_fault == 1", false},
		{"errors.NOT_ENOUGH_REPLICAS > 0", false},
		{"acked >= 100", false},
		{"lost-write != 0", false},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			if got := must(t, tc.expr, nil).Invariant(); got != tc.want {
				t.Errorf("Invariant() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	lossWhenUnclean := []Check{
		must(t, "lost-write > 0", map[string]string{"unclean": "true"}),
		must(t, "lost-write == 0", map[string]string{"unclean": "false"}),
		must(t, "offline_seconds <= 60", map[string]string{"unclean": "false"}),
		must(t, "offset-reuse == 0", map[string]string{"unclean": "false"}),
	}
	checked := Metrics{"lost-write": 0, "offset-reuse": 0, Acked: 500, OfflineSeconds: 20}
	for _, tc := range []struct {
		name     string
		checks   []Check
		settings map[string]string
		metrics  Metrics
		want     Status
		results  int
	}{
		{"unclean off, no loss, short outage", lossWhenUnclean, map[string]string{"unclean": "false"}, checked, Match, 3},
		{"unclean off but loss", lossWhenUnclean, map[string]string{"unclean": "false"},
			Metrics{"lost-write": 3, "offset-reuse": 2, Acked: 500, OfflineSeconds: 20}, Differ, 3},
		{"unclean off, outage too long", lossWhenUnclean, map[string]string{"unclean": "off"},
			Metrics{"lost-write": 0, "offset-reuse": 0, Acked: 500, OfflineSeconds: 61}, Differ, 3},
		{"unclean on, loss expected and found", lossWhenUnclean, map[string]string{"unclean": "true"},
			Metrics{"lost-write": 9, Acked: 500}, Match, 1},
		{"unclean on, no loss: a new finding", lossWhenUnclean, map[string]string{"unclean": "on"}, checked, Differ, 1},
		{"setting absent: nothing applies", lossWhenUnclean, map[string]string{"elr": "true"}, checked, NoExpectation, 0},
		{"metric not measured", []Check{must(t, "leader_after_fault == 1", nil)}, nil, checked, Unjudged, 1},
		{"unmeasured and differing: differs", []Check{must(t, "leader_after_fault == 1", nil), must(t, "lost-write > 0", nil)},
			nil, checked, Differ, 2},
		{"error count absent from a counted run is 0", []Check{must(t, "errors.NOT_ENOUGH_REPLICAS > 0", nil)}, nil, checked, Differ, 1},
		{"error count present", []Check{must(t, "errors.NOT_ENOUGH_REPLICAS > 0", nil)}, nil,
			Metrics{Acked: 3, "errors.NOT_ENOUGH_REPLICAS": 40}, Match, 1},
		{"error count of an unchecked run is unmeasured", []Check{must(t, "errors.NOT_ENOUGH_REPLICAS > 0", nil)}, nil,
			Metrics{}, Unjudged, 1},
		{"no checks", nil, nil, checked, NoExpectation, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, rs := Judge(tc.checks, tc.settings, tc.metrics)
			if st != tc.want || len(rs) != tc.results {
				t.Errorf("Judge = %s with %d results %v; want %s with %d", st, len(rs), rs, tc.want, tc.results)
			}
		})
	}
}

func TestSpecYAML(t *testing.T) {
	src := `outcome:
  - lost-write == 0
  - {check: "lost-write > 0", when: {unclean: "true"}}
  - check: "bogus == 1"
  - {check: "offset-reuse > 0", when: {colour: blue}}
`
	var doc struct {
		Expectation Spec `yaml:"outcome"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	known := func(k string) error {
		if k == "unclean" {
			return nil
		}
		return errors.New("not a setting")
	}
	checks, errs := doc.Expectation.Checks("outcome", known)
	if len(checks) != 2 {
		t.Errorf("got %d checks, want 2: %v", len(checks), checks)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"outcome[2].check: ", "unknown metric \"bogus\"", "outcome[3].when.colour: not a setting"} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors %q lack %q", joined, want)
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil || !strings.Contains(string(out), "- lost-write == 0\n") {
		t.Errorf("marshal: %v\n%s", err, out)
	}
}
