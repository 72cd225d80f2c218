package explore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
)

// TestIsCampaignFile: a file with a campaign's own top-level keys is a
// campaign; a scenario file, a suite file, a built-in's name and a file
// that is not there are not.
func TestIsCampaignFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, file string
		want       bool
	}{
		{"campaign", write("c.yaml", "name: c\nscenarios: [s2]\nversions: [4.4.0]\nbudget: 10m\n"), true},
		{"suites only", write("c2.yaml", "name: c\nsuites: [findings]\nversions: [4.4.0]\nbudget: 10m\n"), true},
		{"scenario", write("s.yaml", "name: s\ncluster: {brokers: 3}\n"), false},
		{"suite", write("u.yaml", "name: u\nentries:\n  - scenario: s1\n"), false},
		{"built-in", "s1", false},
		{"missing", filepath.Join(dir, "none.yaml"), false},
		{"not yaml", write("x.yaml", "- a\n- b\n"), false},
	} {
		if got := IsCampaignFile(c.file); got != c.want {
			t.Errorf("%s: IsCampaignFile = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestValidateCampaign: a valid campaign says its budget, strategy and
// every cell (all shards'); a campaign whose cell cannot run is bad input
// naming the cell, before any cluster.
func TestValidateCampaign(t *testing.T) {
	out, err := ValidateCampaign(writeCampaign(t, "name: c\nscenarios:\n  - s2\n  - {scenario: s1, set: [workload.acks=1]}\nversions: [4.4.0, 4.1.x]\nbudget: 20m\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"valid campaign c; budget 20m0s, strategy random, 4 cells:\n", "s2/-/4.4.0\n", "s2/-/4.1.2\n", "s1/workload.acks=1/4.4.0\n", "s1/workload.acks=1/4.1.2\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, err = ValidateCampaign(writeCampaign(t, "name: c\nscenarios:\n  - {scenario: s1, set: [workload.acks=2]}\nversions: [4.4.0]\nbudget: 20m\n"))
	var bad *scenario.BadInputError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "cell s1/workload.acks=2/4.4.0") || !strings.Contains(err.Error(), "acks") {
		t.Errorf("a cell that cannot run: %v, want bad input naming the cell and the field", err)
	}
}
