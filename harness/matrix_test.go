package harness

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis/quorum"
)

func TestParseVary(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Variation
		err  string
	}{
		{"unclean=false,true", Variation{"unclean", []string{"false", "true"}}, ""},
		{" acks = 1, all ,", Variation{"acks", []string{"1", "all"}}, ""},
		{"topic.configs.min.insync.replicas=1,2", Variation{"topic.configs.min.insync.replicas", []string{"1", "2"}}, ""},
		{"unclean", Variation{}, "want key=value,value"},
		{"=1,2", Variation{}, "want key=value,value"},
		{"acks=", Variation{}, "no values"},
		{"acks= , ", Variation{}, "no values"},
	} {
		got, err := parseVary(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseVary(%q) error %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParseVary(%q): %v", c.in, err)
		case c.err == "" && !reflect.DeepEqual(got, c.want):
			t.Errorf("ParseVary(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestCombinations(t *testing.T) {
	for _, c := range []struct {
		name string
		vs   []Variation
		want []map[string]string
	}{
		{"none", nil, []map[string]string{{}}},
		{"one", []Variation{{"acks", []string{"1", "all"}}},
			[]map[string]string{{"acks": "1"}, {"acks": "all"}}},
		{"two, last fastest", []Variation{{"kafka", []string{"4.0.x", "4.1.x"}}, {"elr", []string{"off", "on"}}},
			[]map[string]string{{"kafka": "4.0.x", "elr": "off"}, {"kafka": "4.0.x", "elr": "on"},
				{"kafka": "4.1.x", "elr": "off"}, {"kafka": "4.1.x", "elr": "on"}}},
	} {
		if got := Combinations(c.vs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Combinations = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSetsFor(t *testing.T) {
	for _, c := range []struct {
		combo map[string]string
		want  []string
	}{
		{map[string]string{"unclean": "true"}, []string{"topic.configs.unclean.leader.election.enable=true",
			"nemesis.steps[*].config.unclean.leader.election.enable=true"}},
		{map[string]string{"min.insync": "2"}, []string{"topic.configs.min.insync.replicas=2",
			"cluster.broker_config.min.insync.replicas=2", "cluster.controller_config.min.insync.replicas=2"}},
		{map[string]string{"kafka": "4.0.x", "acks": "1"}, []string{"workload.acks=1", "cluster.kafka=4.0.2"}},
		{map[string]string{"kafka": "4.1.1"}, []string{"cluster.kafka=4.1.1"}},
		{map[string]string{"elr": "on", "idempotent": "true"}, []string{"cluster.elr=on", "workload.idempotent=true"}},
		{map[string]string{"workload.producers": "8"}, []string{"workload.producers=8"}},
	} {
		if got := SetsFor(c.combo); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SetsFor(%v) = %v, want %v", c.combo, got, c.want)
		}
	}
}

func TestResolveVersion(t *testing.T) {
	for in, want := range map[string]string{"3.9.x": "3.9.2", "4.0.x": "4.0.2", "4.1.x": "4.1.2", "4.4.x": "4.4.0", "latest": "4.4.0", "4.1.1": "4.1.1", "9.9.x": "9.9.x"} {
		if got := resolveVersion(in); got != want {
			t.Errorf("ResolveVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlanMatrix: every bad --vary is reported at once, naming the key,
// value and field; settings valid alone but conflicting together (ELR on
// with Kafka 3.9) become a cell with its error; good ones load.
func TestPlanMatrix(t *testing.T) {
	load := func(sets []string) (*scenario.Scenario, error) { return scenario.Load("s2", sets) }
	for _, c := range []struct {
		name    string
		vs      []Variation
		errs    []string // each must appear in the error
		cells   int
		badCell int // cells with an Err
	}{
		{"good", []Variation{{"unclean", []string{"false", "true"}}}, nil, 2, 0},
		{"bad value", []Variation{{"acks", []string{"1", "2"}}}, []string{"--vary acks=2", "workload.acks"}, 0, 0},
		{"bad key", []Variation{{"workload.bogus", []string{"1"}}}, []string{"--vary workload.bogus=1", "field bogus not found"}, 0, 0},
		{"all reported", []Variation{{"acks", []string{"9"}}, {"elr", []string{"maybe"}}},
			[]string{"--vary acks=9", "--vary elr=maybe", "cluster.elr"}, 0, 0},
		{"key twice", []Variation{{"acks", []string{"1"}}, {"acks", []string{"all"}}}, []string{"--vary acks: the key is given twice"}, 0, 0},
		{"conflict is a row", []Variation{{"kafka", []string{"3.9.x", "4.1.x"}}, {"elr", []string{"off", "on"}}}, nil, 4, 1},
	} {
		cells, err := planMatrix(c.vs, load)
		if len(c.errs) > 0 {
			if err == nil {
				t.Errorf("%s: no error", c.name)
				continue
			}
			for _, e := range c.errs {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("%s: error %q lacks %q", c.name, err, e)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		bad := 0
		for _, cell := range cells {
			if cell.Scenario == nil {
				bad++
				var bi *scenario.BadInputError
				if !errors.As(cell.Err, &bi) {
					t.Errorf("%s: cell error %v is not bad input", c.name, cell.Err)
				}
			} else if cell.Err != nil || cell.Row.Status != "" {
				t.Errorf("%s: cell %v loaded, with error %v and status %q", c.name, cell.Row.Settings, cell.Err, cell.Row.Status)
			}
		}
		if len(cells) != c.cells || bad != c.badCell {
			t.Errorf("%s: %d cells (%d bad), want %d (%d bad)", c.name, len(cells), bad, c.cells, c.badCell)
		}
	}
}

// TestPerCellSettings: each cell's scenario carries its combination's
// settings, live set-config steps included.
func TestPerCellSettings(t *testing.T) {
	cells, err := planMatrix([]Variation{{"unclean", []string{"false", "true"}}, {"acks", []string{"1", "all"}}},
		func(sets []string) (*scenario.Scenario, error) { return scenario.Load("s2", sets) })
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range cells {
		s := cell.Scenario
		if got := s.Topic.Configs["unclean.leader.election.enable"]; got != cell.Row.Settings["unclean"] {
			t.Errorf("%v: topic unclean %q", cell.Row.Settings, got)
		}
		if got := string(s.Workload.Acks); got != cell.Row.Settings["acks"] {
			t.Errorf("%v: acks %q", cell.Row.Settings, got)
		}
		for i, st := range s.Nemesis.Steps {
			sc, _ := st.Params.(*quorum.SetConfigParams)
			if sc == nil {
				continue
			}
			if v, ok := sc.Config["unclean.leader.election.enable"]; ok && (v == nil || *v != cell.Row.Settings["unclean"]) {
				t.Errorf("%v: step %d sets unclean %v", cell.Row.Settings, i, v)
			}
		}
	}
}

// TestNewMatrixPlan: the matrix command's input, all checked before any
// cluster: --kafka's list is the first column, and each bad input is
// refused naming its flag.
func TestNewMatrixPlan(t *testing.T) {
	load := func(sets []string) (*scenario.Scenario, error) { return scenario.Load("s2", sets) }
	for _, tc := range []struct {
		name   string
		varies []string
		kafkas string
		runs   int
		cells  int
		first  string // the first cell's ID
		err    string
	}{
		{"vary and versions", []string{"acks=1,all"}, "4.1.x,4.4.x", 1, 4, "acks=1 kafka=4.1.x", ""},
		{"runs", []string{"unclean=false,true"}, "", 3, 6, "run=1 unclean=false", ""},
		{"nothing to vary", nil, "", 1, 0, "", "nothing to vary"},
		{"no runs", []string{"acks=1"}, "", 0, 0, "", "--runs 0"},
		{"bad vary", []string{"acks"}, "", 1, 0, "", "want key=value,value"},
		{"bad value", []string{"acks=2"}, "", 1, 0, "", "--vary acks=2"},
		// Versions: the grammar, and one row per release.
		{"latest is 4.4.0", nil, "latest,4.4.0", 1, 0, "", `--kafka: "4.4.0" is 4.4.0, as "latest" (--kafka) is`},
		{"a line is its patch", []string{"kafka=4.4.x,4.4.0"}, "", 1, 0, "", `--vary kafka: "4.4.0" is 4.4.0, as "4.4.x" (--vary kafka) is`},
		{"malformed in --kafka", nil, "4.4.0,4.4", 1, 0, "", `--kafka: "4.4" is not a Kafka version`},
		{"malformed in --vary", []string{"kafka=04.04.00"}, "", 1, 0, "", `--vary kafka: "04.04.00" is not a Kafka version`},
		{"unlisted releases", nil, "4.3.2,4.4.1", 1, 2, "kafka=4.3.2", ""},
	} {
		p, err := NewMatrixPlan(tc.varies, tc.kafkas, tc.runs, load)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case len(p.Cells) != tc.cells || p.Cells[0].Row.ID != tc.first || p.Name != "s2":
			t.Errorf("%s: %d cells, first %q, name %q; want %d, %q, s2", tc.name, len(p.Cells), p.Cells[0].Row.ID, p.Name, tc.cells, tc.first)
		}
	}
}
