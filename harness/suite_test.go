package harness

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	plan, err := planSuite(s, SuiteOptions{Kafka: []string{"3.9.x", "4.1.2"}})
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
		{"malformed version", SuiteOptions{Kafka: []string{"4.4.0-rc1"}}, `--kafka: "4.4.0-rc1" is not a Kafka version (want X.Y.Z, X.Y.x, latest or local:NAME)`},
		{"one release twice", SuiteOptions{Kafka: []string{"latest", "4.4.0"}}, `--kafka: "4.4.0" is 4.4.0, as "latest" (--kafka) is`},
		{"the suite's list", SuiteOptions{}, "suite seeds: kafka[1]: "},
		{"unknown scenario in --only", SuiteOptions{Only: []string{"s99"}}, "--only s99"},
		{"bad --set", SuiteOptions{Only: []string{"s1"}, Kafka: []string{"4.1.2"}, Sets: []string{"workload.acks=2"}}, "workload.acks"},
	} {
		s := *s
		if tc.name == "the suite's list" {
			s.Kafka = []string{"4.1.x", "4.1.2"} // a suite built in code, not read by LoadSuite
		}
		_, err := planSuite(&s, tc.opts)
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
	// A suite file's versions are the file's: blamed on it and the field,
	// never on --kafka, which was not given.
	file := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(file, []byte("name: x\nkafka: [banana, latest, 4.4.0, 4.3.2, 4.4.1]\nentries: [{scenario: s1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSuite(file)
	var bad *scenario.BadInputError
	if !errors.As(err, &bad) {
		t.Fatalf("kafka: [banana, ...]: %v, want bad input", err)
	}
	for _, want := range []string{
		file + `: kafka[0]: "banana" is not a Kafka version (want X.Y.Z, X.Y.x, latest or local:NAME)`,
		`kafka[2]: "4.4.0" is 4.4.0, as "latest" (kafka[1]) is`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "--kafka") || strings.Contains(err.Error(), "kafka[3]") || strings.Contains(err.Error(), "kafka[4]") {
		t.Errorf("blames --kafka, or 4.3.2 or 4.4.1:\n%v", err)
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
		{"transactions", "t1, t2 × 2 levels, t3 × 2 settings × 2 levels, t4 × 2 settings, and t1, t2, t4 × 2 settings with the java client, on 2 versions", 28,
			func(id string) bool { return strings.Contains(id, "txn.version=") && strings.HasSuffix(id, "3.9.2") }, "transaction_version"},
		{"shares", "w1-w4 × share.version 1, 2, and w1, w2, w4 with the java client, on 2 versions: share groups need 4.1", 22,
			func(id string) bool { return strings.HasSuffix(id, "3.9.2") }, "share"},
		{"groups", "g1-g3 × franz classic, franz consumer, kafka-go, java classic, java consumer, on 2 versions", 30,
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
			plan, err := planSuite(s, SuiteOptions{Kafka: []string{"3.9.x", "4.4.0"}})
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
// and w3's share-coordinator target from 4.2, nothing on 4.0; the Java
// client's cells (w1, w2, w4) at the release's default level, so from 4.2
// (4.1 formats with share.version 0).
func TestPlanSharesSuite(t *testing.T) {
	s, err := LoadSuite("shares")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planSuite(s, SuiteOptions{Kafka: []string{"4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0"}})
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
		"w3/share.version=1/4.2.2": true, "w3/share.version=1/4.3.1": true,
		"w3/share.version=1/4.4.0": true, "w3/share.version=2/4.4.0": true,
		"w4/share.version=1/4.1.2": true, "w4/share.version=1/4.2.2": true, "w4/share.version=1/4.3.1": true,
		"w4/share.version=1/4.4.0": true, "w4/share.version=2/4.4.0": true,
		"w1/driver=java/4.2.2": true, "w1/driver=java/4.3.1": true, "w1/driver=java/4.4.0": true,
		"w2/driver=java/4.2.2": true, "w2/driver=java/4.3.1": true, "w2/driver=java/4.4.0": true,
		"w4/driver=java/4.2.2": true, "w4/driver=java/4.3.1": true, "w4/driver=java/4.4.0": true,
	}
	if len(plan) != 55 || len(runs) != len(want) {
		t.Fatalf("%d cells, %d run: %v; want 55 cells, these run: %v", len(plan), len(runs), runs, want)
	}
	for id := range want {
		if !runs[id] {
			t.Errorf("cell %s does not run", id)
		}
	}
}

// TestLoadSuiteFileEntries: a suite file's entries, runs among them, are
// validated before any cluster; every problem is bad input naming its
// field, and a valid runs gives the entry that many cells per version.
func TestLoadSuiteFileEntries(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // "" valid; else what the error names
		cells      int    // on one version, when valid
	}{
		{"runs raises the entry", "name: x\nentries:\n  - scenario: s1\n    runs: 3\n  - scenario: s4\n", "", 4},
		{"runs 1", "name: x\nentries:\n  - scenario: s1\n    runs: 1\n", "", 1},
		{"runs 0", "name: x\nentries:\n  - scenario: s1\n    runs: 0\n", "entries[0].runs: 0: want at least 1", 0},
		{"runs negative", "name: x\nentries:\n  - scenario: s4\n  - scenario: s1\n    runs: -2\n", "entries[1].runs: -2", 0},
		{"runs not a number", "name: x\nentries:\n  - scenario: s1\n    runs: three\n", "three", 0},
		{"runs a list", "name: x\nentries:\n  - scenario: s1\n    runs: [3]\n", "runs", 0},
		{"unknown key", "name: x\nentries:\n  - scenario: s1\n    run: 3\n", "run", 0},
		{"no scenario", "name: x\nentries:\n  - runs: 3\n", "entries[0].scenario: missing", 0},
		{"empty vary", "name: x\nentries:\n  - scenario: s9\n    vary: {unclean: []}\n", "entries[0].vary.unclean: no values", 0},
		{"no entries", "name: x\n", "entries: none", 0},
		{"bad name", "name: suite-x\nentries:\n  - scenario: s1\n", "name", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "suite.yaml")
			if err := os.WriteFile(f, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := LoadSuite(f)
			if tc.want != "" {
				var bad *scenario.BadInputError
				if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err %v, want bad input naming %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			plan, err := planSuite(s, SuiteOptions{Kafka: []string{"4.4.0"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan) != tc.cells {
				t.Fatalf("%d cells, want %d", len(plan), tc.cells)
			}
		})
	}
}

// TestEntryRunsAndFlag: an entry's runs is a floor under --runs, which
// raises every entry; the default is DefaultRuns.
func TestEntryRunsAndFlag(t *testing.T) {
	three := 3
	for _, tc := range []struct {
		entry *int
		flag  int
		want  int
	}{
		{nil, 0, DefaultRuns}, {nil, 2, 2}, {&three, 0, 3}, {&three, 1, 3}, {&three, 5, 5},
	} {
		if got := (SuiteEntry{Scenario: "s1", Runs: tc.entry}).runs(tc.flag); got != tc.want {
			t.Errorf("entry runs %v, --runs %d: %d runs, want %d", tc.entry, tc.flag, got, tc.want)
		}
	}
}

// TestPlanFindingsSuite plans the findings suite on every release kchaos
// knows: r1 and s13 three runs per version, every cell names its JIRA or
// carries a finding (the JIRA's status and the minimal steps), each
// scenario's expectation parses into checks, and ELR's cells are not
// applicable on 3.9.
func TestPlanFindingsSuite(t *testing.T) {
	s, err := LoadSuite("findings")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planSuite(s, SuiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Per version: r1 × 3, s8 elr=on, s13 × 3, t4 × 2, q1, d1, m1 × 3,
	// k20330 × 3, k20507 × 2 commit epochs × 3, k20839 × 3 (a race: its
	// rate), k20295 (not applicable on the newest release: it upgrades to
	// it) and k20845 (not applicable on 3.9.2: KIP-848 needs 4.0) = 28.
	if want := 28 * 6; len(plan) != want {
		t.Fatalf("%d cells, want %d", len(plan), want)
	}
	byID := map[string]Cell{}
	for _, pc := range plan {
		byID[pc.Row.ID] = pc
	}
	for id, want := range map[string]string{
		"r1/run=1/3.9.2": "", "r1/run=3/4.4.0": "", "r1/run=2/4.3.2": "",
		"s13/run=1/3.9.2": report.CellNotApplicable, "s13/run=3/4.1.2": "",
		"s8/elr=on/3.9.2": report.CellNotApplicable, "s8/elr=on/4.4.0": "",
		"t4/unclean=true/4.0.2": "", "q1/-/4.2.2": "", "d1/-/4.4.0": "",
		"m1/run=2/3.9.2": "", "k20330/run=1/3.9.2": report.CellNotApplicable,
		"k20330/run=2/4.1.2": report.CellNotApplicable, "k20330/run=1/4.2.2": "", "k20330/run=3/4.4.0": "",
		"k20839/run=1/3.9.2": "", "k20839/run=3/4.0.2": "", "k20507/commit_epoch=none,run=1/4.1.2": "", "k20507/commit_epoch=record,run=3/3.9.2": "",
		"k20295/-/4.4.0": report.CellNotApplicable, "k20295/-/3.9.2": "", "k20845/-/4.2.2": "", "k20845/-/4.0.2": "",
		"k20845/-/3.9.2": report.CellNotApplicable,
	} {
		pc, ok := byID[id]
		if !ok {
			t.Errorf("no cell %s", id)
			continue
		}
		if pc.Row.Status != want {
			t.Errorf("cell %s: status %q (%s), want %q", id, pc.Row.Status, pc.Row.Reason, want)
		}
	}
	jira := map[string]string{"r1": "KAFKA-20732", "t4": "KAFKA-20716", "q1": "KAFKA-15489", "d1": "KAFKA-16234", "m1": "KAFKA-20554"}
	for _, pc := range plan {
		// A refused cell runs nothing and says what kchaos lacks, with
		// its JIRA, links and finding as any other.
		if pc.Row.Status == report.CellNeeds {
			if pc.Scenario != nil || !strings.HasPrefix(pc.Row.Reason, "needs ") || len(pc.Row.Jira) == 0 ||
				len(pc.Row.Docs) == 0 || pc.Row.Finding == nil || len(pc.Row.Finding.Needs) == 0 {
				t.Errorf("cell %s: %+v: want no scenario to run, a needs reason, jira, docs and the finding", pc.Row.ID, pc.Row)
			}
		}
		if pc.Scenario == nil {
			continue
		}
		name := pc.Scenario.Name
		if want := jira[name]; want != "" && !slices.Contains(pc.Row.Jira, want) {
			t.Errorf("cell %s: jira %v, want %s", pc.Row.ID, pc.Row.Jira, want)
		}
		if f := pc.Row.Finding; f == nil || f.Status == "" || f.Steps == "" {
			t.Errorf("cell %s: finding %+v: want the JIRA's status and the minimal steps", pc.Row.ID, f)
		}
		if len(pc.Row.Docs) == 0 {
			t.Errorf("cell %s: no docs", pc.Row.ID)
		}
		if _, errs := pc.Scenario.Expectation.Checks("outcome", scenario.KnownSetting); len(errs) > 0 {
			t.Errorf("cell %s: expectation: %v", pc.Row.ID, errs)
		}
		if len(pc.Scenario.Checks()) == 0 {
			t.Errorf("cell %s: no outcome checks", pc.Row.ID)
		}
	}
	// The ELR emptied: kept as measured (loss), with no JIRA to name.
	s13 := byID["s13/run=1/4.4.0"].Scenario
	if len(s13.Jira) != 0 || !strings.Contains(s13.Finding.Status, "No JIRA") {
		t.Errorf("s13: jira %v, finding %q: want none, and the finding saying so", s13.Jira, s13.Finding.Status)
	}
	var lossExpected bool
	for _, c := range s13.Checks() {
		lossExpected = lossExpected || c.String() == "lost-write > 0"
	}
	if !lossExpected {
		t.Errorf("s13: checks %v: want lost-write > 0 (the measured outcome)", s13.Checks())
	}
}

// TestSuitePlanReuseClusters: a suite gives each cell a fresh cluster
// unless asked to reuse them (--reuse-clusters), and then its plan's
// Clusters keeps a cluster between cells (explore's rules).
func TestSuitePlanReuseClusters(t *testing.T) {
	s, err := LoadSuite("seeds")
	if err != nil {
		t.Fatal(err)
	}
	for _, reuse := range []bool{false, true} {
		plan, err := SuitePlan(s, SuiteOptions{Kafka: []string{"4.4.0"}, Only: []string{"s1"}, ReuseClusters: reuse})
		if err != nil {
			t.Fatal(err)
		}
		keeps := plan.Clusters != nil && plan.Clusters.keep != nil
		if keeps != reuse {
			t.Errorf("ReuseClusters %v: the plan keeps clusters between cells: %v", reuse, keeps)
		}
	}
}
