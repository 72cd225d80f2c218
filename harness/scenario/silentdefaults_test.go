package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// TestUnsetZerosRefused: a field whose zero reads as unset, written as
// zero in a file or with --set, is bad input naming the line or the --set,
// the field and the default it would have taken; a field whose zero is a
// value of its own is taken as written.
func TestUnsetZerosRefused(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		sets       []string
		want       []string // "" : loads
	}{
		{"brokers in a file", "name: z\ncluster:\n  brokers: 0\n", nil,
			[]string{"line 3: cluster.brokers: 0 reads as unset and would take its default, 3"}},
		{"two in a file", "name: z\ntopic:\n  partitions: 0\nworkload:\n  producers: 0\n", nil,
			[]string{"line 3: topic.partitions: 0 reads as unset", "line 5: workload.producers: 0 reads as unset and would take its default, 1"}},
		{"a duration with --set", "name: z\n", []string{"workload.duration=0s"},
			[]string{"with --set workload.duration=0s: workload.duration: 0s reads as unset and would take its default, 1m0s"}},
		{"replacing a written value with --set", "name: z\nfinal:\n  read_timeout: 30s\n", []string{"final.read_timeout=0"},
			[]string{"with --set final.read_timeout=0: final.read_timeout: 0 reads as unset"}},
		{"inside a mapping given with --set", "name: z\n", []string{"workload.transactions={enabled: true, min_sends: 0}"},
			[]string{"with --set workload.transactions={enabled: true, min_sends: 0}: workload.transactions.min_sends: 0 reads as unset"}},
		{"tiered local retention", "name: z\ncluster:\n  tiered: {local_retention_ms: 0}\n", nil,
			[]string{"line 3: cluster.tiered.local_retention_ms: 0 reads as unset"}},
		{"group members", "name: z\nworkload:\n  group: {id: g, members: 0}\n", nil,
			[]string{"workload.group.members: 0 reads as unset and would take its default, 2"}},
		{"share processing", "name: z\ncluster:\n  kafka: 4.4.0\nworkload:\n  shares: {group: s, processing: 0s}\n", nil,
			[]string{"workload.shares.processing: 0s reads as unset and would take its default, 20ms"}},
		{"random subset", "name: z\nnemesis:\n  random: {seed: 1, duration: 20s, active: 5s, quiet: 5s, subset: 0, faults: [kill]}\n", nil,
			[]string{"nemesis.random.subset: 0 reads as unset"}},
		{"an until's timeout", "name: z\nnemesis:\n  steps:\n    - until: {isr: [0]}\n      timeout: 0s\n", nil,
			[]string{"line 5: nemesis.steps[0].timeout: 0s reads as unset"}},
		// A fault's own timeout (its parameters', not the step's field).
		{"a restart's timeout", "name: z\nnemesis:\n  steps:\n    - fault: restart\n      target: {role: leader}\n      timeout: 2m\n", nil, nil},
		// Written values Defaults would replace from other fields.
		{"idempotent false beside transactions", "name: z\nworkload:\n  idempotent: false\n  transactions: {enabled: true}\n", nil,
			[]string{"line 3: workload.idempotent: written false, but the scenario would run with true (transactions imply an idempotent producer)"}},
		{"brokers beside ssh hosts", "name: z\n" + sshHosts + "  brokers: 5\n", nil,
			[]string{"line 8: cluster.brokers: written 5, but the scenario would run with 3 (the ssh backend counts the brokers of cluster.hosts)"}},
		{"idempotent true beside transactions", "name: z\nworkload:\n  idempotent: true\n  transactions: {enabled: true}\n", nil, nil},
		{"idempotent false alone", "name: z\nworkload:\n  idempotent: false\n", nil, nil},
		// Written with no value: null, ~ or an empty string (a shell
		// variable left unset) for a scalar field a default fills.
		{"acks empty with --set", "name: z\n", []string{"workload.acks="},
			[]string{"with --set workload.acks=: workload.acks: written with no value, it would take its default, all"}},
		{"kafka empty with --set", "name: z\n", []string{"cluster.kafka="},
			[]string{"with --set cluster.kafka=: cluster.kafka: written with no value, it would take its default, " + cluster.DefaultKafkaVersion}},
		{"driver null in a file", "name: z\nworkload:\n  driver:\n", nil,
			[]string{"line 3: workload.driver: written with no value, it would take its default, franz"}},
		{"acks ~ in a file", "name: z\nworkload:\n  acks: ~\n", nil, []string{"line 3: workload.acks: written with no value"}},
		// Nothing replaced: a field without a default, a mapping or a list
		// written empty, a config value (Kafka's to read) left empty.
		{"description empty", "name: z\ndescription:\n", nil, nil},
		{"random empty", "name: z\nnemesis:\n  random:\n", nil, nil},
		{"configs empty", "name: z\ntopic:\n  configs:\n", nil, nil},
		// Zeros that are values: taken as written.
		{"retries 0", "name: z\nworkload:\n  retries: 0\n  rate: 0\n", nil, nil},
		{"seed 0", "name: z\nseed: 0\n", nil, nil},
		{"abort rate 0", "name: z\nworkload:\n  transactions: {enabled: true, abort_rate: 0}\n", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(f, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Load(f, c.sets)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Load: %v, want it to load", err)
				}
				if strings.Contains(c.yaml, "abort_rate: 0") && s.Workload.Transactions.Aborts() != 0 {
					t.Errorf("abort_rate 0 ran as %g", s.Workload.Transactions.Aborts())
				}
				return
			}
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Fatalf("Load: %v, want a BadInputError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

// TestAbortRateZeroKept: abort_rate 0 survives the scenario as run (the
// run folder's scenario.yaml), so that running that file again aborts
// nothing on purpose either.
func TestAbortRateZeroKept(t *testing.T) {
	s, err := Load("t1", []string{"workload.transactions.abort_rate=0"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Load(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Workload.Transactions.Aborts(); got != 0 {
		t.Errorf("abort_rate after a round trip through scenario.yaml: %g, want 0", got)
	}
}
