package scenario

import "testing"

// TestReconfigValidation: the quorum's shape and the reconfiguration
// steps are bad input (a *BadInputError, exit 254) at load, naming the
// field, whenever Kafka or the cluster rules them out; the same steps
// where they can work load.
func TestReconfigValidation(t *testing.T) {
	doc := func(kafka, quorum string, steps ...string) string {
		s := "name: q\ncluster:\n  kafka: " + kafka + "\n  controllers: 3\n"
		if quorum != "" {
			s += "  quorum: " + quorum + "\n"
		}
		s += "nemesis:\n  steps:\n"
		for _, st := range steps {
			s += "    - " + st + "\n"
		}
		return s
	}
	remove := "{fault: remove-controller, target: {role: controller-followers}}"
	add := "{fault: add-controller}"
	for _, tc := range []struct {
		name, yaml string
		sets       []string
		want       string // "" loads
	}{
		{"remove and add back on a dynamic quorum", doc("4.4.0", "{dynamic: true}", remove, add), nil, ""},
		{"remove and add back on 3.9", doc("3.9.2", "{dynamic: true}", remove, add), nil, ""},
		{"reconfiguration on a static quorum", doc("4.4.0", "", remove), nil,
			"nemesis.steps[0].fault: remove-controller changes the voter set, which a static quorum cannot: set cluster.quorum.dynamic: true"},
		{"add on a static quorum", doc("4.4.0", "{dynamic: false}", add), nil,
			"nemesis.steps[0].fault: add-controller changes the voter set"},
		{"add without a spare", doc("4.4.0", "{dynamic: true}", add), nil,
			"nemesis.steps[0].fault: add-controller: no controller outside the voter set"},
		{"add a spare", doc("4.4.0", "{dynamic: true, spare_controllers: 1}", add, "{fault: add-controller, target: {role: nodes, nodes: [1003]}}"), nil,
			"nemesis.steps[1].fault: add-controller: no controller outside the voter set"},
		{"the spare is a node of the run", doc("4.4.0", "{dynamic: true, spare_controllers: 1}", "{fault: add-controller, target: {role: nodes, nodes: [1003]}}"), nil, ""},
		{"a controller beyond the spares", doc("4.4.0", "{dynamic: true, spare_controllers: 1}", "{fault: add-controller, target: {role: nodes, nodes: [1004]}}"), nil,
			"nemesis.steps[0].target.nodes: node 1004 does not exist (brokers 0..2, controllers 1000..1003)"},
		{"add a broker", doc("4.4.0", "{dynamic: true}", remove, "{fault: add-controller, target: {role: nodes, nodes: [1]}}"), nil,
			"nemesis.steps[1].target.nodes: node 1 is a broker"},
		{"remove every voter", doc("4.4.0", "{dynamic: true}", remove, remove, remove), nil,
			"nemesis.steps[2].fault: remove-controller would leave no voter (the quorum has 1 at this step)"},
		{"remove twice leaves one", doc("4.4.0", "{dynamic: true}", remove, remove), nil, ""},
		{"auto-join on 4.1", doc("4.1.2", "{dynamic: true, auto_join: true}"), nil,
			"cluster: quorum.auto_join: controller.quorum.auto.join.enable needs Kafka 4.2 or later; 4.1.2 does not have it"},
		{"auto-join on 4.2", doc("4.2.2", "{dynamic: true, auto_join: true}", remove), nil, ""},
		{"auto-join on a static quorum", doc("4.4.0", "{auto_join: true}"), nil, "cluster: quorum.auto_join: needs quorum.dynamic: true"},
		{"spares with auto-join", doc("4.4.0", "{dynamic: true, auto_join: true, spare_controllers: 1}"), nil, "would be no spare"},
		{"unknown quorum key", doc("4.4.0", "{dynamic: true, voters: 3}"), nil, "voters"},
		{"set from the command line", doc("4.4.0", "", remove), []string{"cluster.quorum.dynamic=true"}, ""},
		{"dynamic on ssh", "name: q\ncluster:\n  backend: ssh\n  quorum: {dynamic: true}\n", nil, "cluster.quorum.dynamic: the ssh backend runs your hosts' own quorum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantLoad(t, tc.yaml, tc.sets, tc.want)
		})
	}
}
