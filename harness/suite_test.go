package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

func TestPlanSeeds(t *testing.T) {
	s, err := LoadSuite("seeds")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanSuite(s, SuiteOptions{Kafka: []string{"3.9.x", "4.1.2"}})
	if err != nil {
		t.Fatal(err)
	}
	// 12 stories, s7/s8/s9 twice each: 15 cells per version.
	if len(plan) != 30 {
		t.Fatalf("%d cells, want 30", len(plan))
	}
	byID := map[string]Cell{}
	for _, pc := range plan {
		byID[pc.Row.ID] = pc
	}
	for id, want := range map[string]string{
		"s8/elr=on/3.9.2":        report.CellNotApplicable,
		"s7/elr=on/3.9.2":        report.CellNotApplicable,
		"s7/elr=off/3.9.2":       "",
		"s8/elr=on/4.1.2":        "",
		"s9/unclean=true/4.1.2":  "",
		"s1/-/3.9.2":             "",
		"s12/-/4.1.2":            "",
		"s9/unclean=false/3.9.2": "",
	} {
		pc, ok := byID[id]
		if !ok {
			t.Errorf("no cell %s", id)
			continue
		}
		if pc.Row.Status != want || (want == "") != (pc.Scenario != nil) {
			t.Errorf("cell %s: status %q (scenario loaded %v), want %q", id, pc.Row.Status, pc.Scenario != nil, want)
		}
	}
	if pc := byID["s9/unclean=true/4.1.2"]; pc.Scenario.Settings()["unclean"] != "true" || pc.Scenario.Cluster.Kafka != "4.1.2" {
		t.Errorf("s9 unclean=true cell: settings %v on %s", pc.Scenario.Settings(), pc.Scenario.Cluster.Kafka)
	}
}

func TestPlanSuiteBadInput(t *testing.T) {
	s, _ := LoadSuite("seeds")
	for _, tc := range []struct {
		name string
		opts SuiteOptions
		want string
	}{
		{"unknown version line", SuiteOptions{Kafka: []string{"5.0.x"}}, "--kafka"},
		{"unknown scenario in --only", SuiteOptions{Only: []string{"s99"}}, "--only s99"},
		{"bad --set", SuiteOptions{Only: []string{"s1"}, Kafka: []string{"4.1.2"}, Sets: []string{"workload.acks=2"}}, "workload.acks"},
	} {
		_, err := PlanSuite(s, tc.opts)
		var bad *scenario.BadInputError
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want bad input naming %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadSuiteFileProblems(t *testing.T) {
	if _, err := LoadSuite("no-such-suite"); err == nil || !strings.Contains(err.Error(), "seeds") {
		t.Errorf("unknown suite: %v", err)
	}
}

func TestSuiteExitCode(t *testing.T) {
	cells := func(st ...string) []report.Row {
		var out []report.Row
		for _, s := range st {
			out = append(out, report.Row{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		cells []report.Row
		want  int
	}{
		{cells(report.CellMatch, report.CellNotApplicable), 0},
		{cells(report.CellMatch, report.CellUnjudged), 2},
		{cells(report.CellNoExpectation), 2},
		{cells(report.CellUnjudged, report.CellDiffer), 1},
	} {
		r := BatchResult{Rows: tc.cells, Page: report.SuitePage}
		if got := r.ExitCode(); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.cells, got, tc.want)
		}
	}
}

func TestCellID(t *testing.T) {
	if got := cellID("s9", map[string]string{"unclean": "true", "elr": "off"}, "4.1.2", 2, 3); got != "s9/elr=off,unclean=true,run=2/4.1.2" {
		t.Errorf("cellID = %q", got)
	}
	if got := cellID("s1", nil, "4.4.0", 1, 1); got != "s1/-/4.4.0" {
		t.Errorf("cellID = %q", got)
	}
}

// TestPlanBuiltinSuites plans the transaction and group suites on 3.9 and
// 4.4: the cells a version rules out are not applicable (naming the field),
// and every other cell's scenario has the setting its ID names.
func TestPlanBuiltinSuites(t *testing.T) {
	for _, tc := range []struct {
		suite, why string
		cells      int
		na         func(id string) bool
		field      string // what a not-applicable reason names
	}{
		{"transactions", "t1, t2 × 2 levels, t3 × 2 settings × 2 levels, t4 × 2 settings, on 2 versions", 20,
			func(id string) bool { return strings.Contains(id, "txn.version=") && strings.HasSuffix(id, "3.9.2") }, "transaction_version"},
		{"shares", "w1, w2, w4 × share.version 1, 2, on 2 versions: share groups need 4.1", 12,
			func(id string) bool { return strings.HasSuffix(id, "3.9.2") }, "share"},
		{"groups", "g1-g3 × franz classic, franz consumer, kafka-go, on 2 versions", 18,
			func(id string) bool {
				return strings.Contains(id, "group.protocol=consumer") && strings.HasSuffix(id, "3.9.2")
			}, "workload.group.protocol"},
		{"quorum", "q1-q5 on 2 versions: q5's auto-join needs 4.2", 10,
			func(id string) bool { return strings.HasPrefix(id, "q5/") && strings.HasSuffix(id, "3.9.2") }, "quorum.auto_join"},
	} {
		t.Run(tc.suite, func(t *testing.T) {
			s, err := LoadSuite(tc.suite)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := PlanSuite(s, SuiteOptions{Kafka: []string{"3.9.x", "4.4.0"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan) != tc.cells {
				t.Fatalf("%d cells, want %d (%s)", len(plan), tc.cells, tc.why)
			}
			for _, pc := range plan {
				want := ""
				if tc.na(pc.Row.ID) {
					want = report.CellNotApplicable // the feature needs 4.0
				}
				if pc.Row.Status != want {
					t.Errorf("cell %s: status %q, want %q (%s)", pc.Row.ID, pc.Row.Status, want, pc.Row.Reason)
				}
				if want != "" && !strings.Contains(pc.Row.Reason, tc.field) {
					t.Errorf("cell %s: reason %q does not name the setting's field", pc.Row.ID, pc.Row.Reason)
				}
				if pc.Scenario == nil {
					continue
				}
				st := pc.Scenario.Settings()
				for k, v := range pc.Row.Settings {
					if st[k] != v {
						t.Errorf("cell %s: setting %s is %q, want %q", pc.Row.ID, k, st[k], v)
					}
				}
			}
		})
	}
}

// TestPlanSharesSuite: the shares suite on every 4.x line: share groups
// from 4.1 (level 1 only there and on 4.2 and 4.3; level 2 from 4.4), w2's
// share-coordinator target from 4.2, nothing on 4.0.
func TestPlanSharesSuite(t *testing.T) {
	s, err := LoadSuite("shares")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanSuite(s, SuiteOptions{Kafka: []string{"4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0"}})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]bool{}
	for _, pc := range plan {
		if pc.Row.Status == "" {
			runs[pc.Row.ID] = true
		}
	}
	want := map[string]bool{
		"w1/share.version=1/4.1.2": true,
		"w1/share.version=1/4.2.2": true, "w2/share.version=1/4.2.2": true,
		"w1/share.version=1/4.3.1": true, "w2/share.version=1/4.3.1": true,
		"w1/share.version=1/4.4.0": true, "w2/share.version=1/4.4.0": true,
		"w1/share.version=2/4.4.0": true, "w2/share.version=2/4.4.0": true,
		"w4/share.version=1/4.1.2": true, "w4/share.version=1/4.2.2": true, "w4/share.version=1/4.3.1": true,
		"w4/share.version=1/4.4.0": true, "w4/share.version=2/4.4.0": true,
	}
	if len(plan) != 30 || len(runs) != len(want) {
		t.Fatalf("%d cells, %d run: %v; want 30 cells, these run: %v", len(plan), len(runs), runs, want)
	}
	for id := range want {
		if !runs[id] {
			t.Errorf("cell %s does not run", id)
		}
	}
}
