package scenario

import (
	"errors"
	"strings"
	"testing"
)

// TestQuorumValidation: controller faults that cannot resolve on the
// scenario's own cluster are bad input (a *BadInputError, exit 254) at
// load, naming the field; the same steps on a cluster where they resolve
// load.
func TestQuorumValidation(t *testing.T) {
	step := func(fault, shape, target string) string {
		s := "name: q\nnemesis:\n  steps:\n    - fault: " + fault + "\n"
		if shape != "" {
			s += "      shape: " + shape + "\n"
		}
		return s + "      target: " + target + "\n"
	}
	three := []string{"cluster.controllers=3"}
	for _, tc := range []struct {
		name string
		yaml string
		sets []string
		want string // "" loads
	}{
		{"followers of one controller", step("kill", "", "{role: controller-followers}"), nil,
			"nemesis.steps[0].target.role: controller-followers: the cluster has 1 controller (cluster.controllers)"},
		{"followers of three", step("kill", "", "{role: controller-followers}"), three, ""},
		{"from-voters with one controller", step("partition", "from-voters", "{role: active-controller}"), nil,
			"nemesis.steps[0].shape: from-voters: the cluster has 1 controller"},
		{"from-voters with three", step("partition", "from-voters", "{role: active-controller}"), three, ""},
		{"netem from-voters with one controller", step("netem", "from-voters", "{role: active-controller}"), nil,
			"nemesis.steps[0].shape: from-voters"},
		{"from-brokers with one controller", step("partition", "from-brokers", "{role: active-controller}"), nil, ""},
		{"from-voters aimed at brokers", step("partition", "from-voters", "{role: leader}"), three,
			"nemesis.steps[0].target.role: leader resolves to brokers: shape from-voters cuts controllers"},
		{"from-brokers aimed at observers", step("partition", "from-brokers", "{role: observers}"), three,
			"nemesis.steps[0].target.role: observers resolves to brokers"},
		{"from-voters naming a broker", step("partition", "from-voters", "{role: nodes, nodes: [1001, 2]}"), three,
			"nemesis.steps[0].target.nodes: node 2 is a broker"},
		{"from-voters naming controllers", step("partition", "from-voters", "{role: nodes, nodes: [1001, 1002]}"), three, ""},
		{"from-voters naming a controller that is not there", step("partition", "from-voters", "{role: nodes, nodes: [1003]}"), three,
			"nemesis.steps[0].target.nodes: node 1003 does not exist"},
		{"from-voters without a target", "name: q\ncluster:\n  controllers: 3\nnemesis:\n  steps:\n    - fault: partition\n      shape: from-voters\n", nil,
			"nemesis.steps[0].target: fault partition (shape from-voters) needs a target"},
		{"active controller paused", step("pause", "", "{role: active-controller}"), nil, ""},
		{"unknown role", step("pause", "", "{role: active-controllers}"), nil, `unknown role "active-controllers"`},
		{"random from-voters with one controller", "name: q\nnemesis:\n  random:\n    seed: 1\n    duration: 30s\n    interval: 5s\n    faults: [pause, partition-from-voters]\n", nil,
			"nemesis.random.faults[1]: partition-from-voters: the cluster has 1 controller"},
		{"random from-voters with three", "name: q\nnemesis:\n  random:\n    seed: 1\n    duration: 30s\n    interval: 5s\n    faults: [pause, partition-from-voters]\n", three, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantLoad(t, tc.yaml, tc.sets, tc.want)
		})
	}
}

// wantLoad loads text with sets: accepted when want is "", else refused
// with a BadInputError whose message holds want.
func wantLoad(t *testing.T, text string, sets []string, want string) {
	t.Helper()
	_, err := loadText(t, text, sets...)
	if want == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	var bad *BadInputError
	if err == nil || !errors.As(err, &bad) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want a BadInputError with %q", err, want)
	}
}
