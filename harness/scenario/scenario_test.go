package scenario

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/nemesis/quorum"
)

func TestBuiltinsLoadAndValidate(t *testing.T) {
	bs := Builtins()
	// One per seed story of docs/SCENARIOS.md, s1 to s13 (s13: the ELR
	// emptied, issue 27's finding), then the disk
	// story d1, the consumer-group stories g1 to g3 (issue 13), the network
	// stories n1 and n2 (issue 15), the transaction stories t1 to t3 (issue
	// 14), the hanging transaction t4 (issue 22), the KRaft quorum stories q1 and q2
	// (issue 26), the retention story r1 (KAFKA-20732, issue 27), the upgrade
	// stories u1 and u2 (issue 11) and the share-group stories w1 to w4
	// (issue 25: work queues).
	var names []string
	for i := 1; i <= 13; i++ {
		names = append(names, "s"+strconv.Itoa(i))
	}
	// k20295-k20845: Kafka bugs written as findings kchaos cannot drive
	// yet (finding.needs); m1: KAFKA-20554 (issue 41).
	names = append(names, "d1", "g1", "g2", "g3", "k20295", "k20330", "k20507", "k20839", "k20845", "m1", "n1", "n2", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "q1", "q2", "q3", "q4", "q5", "r1", "t1", "t2", "t3", "t4", "u1", "u2", "w1", "w2", "w3", "w4")
	if len(bs) != len(names) {
		t.Fatalf("%d built-in scenarios, want %d: %v", len(bs), len(names), names)
	}
	for i, b := range bs {
		if want := names[i]; b.Name != want {
			t.Errorf("built-in %d is %q, want %q (order)", i, b.Name, want)
		}
		s, err := Load(b.Name, nil)
		if err != nil {
			t.Errorf("%s: %v", b.Name, err)
			continue
		}
		if b.Description == "" || s.Expect == "" {
			t.Errorf("%s: description or expect missing", b.Name)
		}
		if len(s.Nemesis.Steps) == 0 {
			t.Errorf("%s: no nemesis steps", b.Name)
		}
		// RF 3 everywhere but t4: KAFKA-20716's shape needs the stale
		// follower to be the only other replica (a third, in sync, would
		// be elected cleanly).
		rf := 3
		if b.Name == "t4" {
			rf = 2
		}
		if s.Workload.Topic != s.Topic.Name || s.Topic.ReplicationFactor != rf {
			t.Errorf("%s: topic %q/%q rf %d", b.Name, s.Workload.Topic, s.Topic.Name, s.Topic.ReplicationFactor)
		}
	}
}

func TestSets(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		check func(*Scenario) bool
	}{
		{"acks", []string{"workload.acks=1"}, func(s *Scenario) bool { return s.Workload.Acks == "1" }},
		{"dotted topic config", []string{"topic.configs.unclean.leader.election.enable=true"},
			func(s *Scenario) bool { return s.Topic.Configs["unclean.leader.election.enable"] == "true" }},
		{"numeric topic config stays a string", []string{"topic.configs.min.insync.replicas=2"},
			func(s *Scenario) bool { return s.Topic.Configs["min.insync.replicas"] == "2" }},
		{"new broker config", []string{"cluster.broker_config.log.flush.interval.messages=1"},
			func(s *Scenario) bool { return s.Cluster.BrokerConfig["log.flush.interval.messages"] == "1" }},
		{"every live set-config step", []string{"nemesis.steps[*].config.unclean.leader.election.enable=false"},
			func(s *Scenario) bool {
				n := 0
				for _, st := range s.Nemesis.Steps {
					sc, _ := st.Params.(*quorum.SetConfigParams)
					if sc == nil {
						continue
					}
					if v, ok := sc.Config["unclean.leader.election.enable"]; ok {
						n++
						if v == nil || *v != "false" {
							return false
						}
					} else if sc.Config != nil {
						return false
					}
				}
				return n == 1
			}},
		{"elr", []string{"cluster.elr=on"}, func(s *Scenario) bool { return s.Cluster.ELR == elrOn }},
		{"kafka and seed", []string{"cluster.kafka=4.0.2", "seed=7"},
			func(s *Scenario) bool { return s.Cluster.Kafka == "4.0.2" && s.Seed == 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load("s2", tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(s) {
				t.Errorf("set %v not applied: %+v", tt.sets, s)
			}
		})
	}
}

func TestBadInputNamesTheField(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		sets []string
		want string
	}{
		{"unknown field with line", "name: x\ncluster:\n  brokerz: 3\n", nil, "line 3: field brokerz not found"},
		{"bad assignment", "name: x\ntopic:\n  assignment: [[0, 1, 7]]\n", nil, "topic.assignment[0]: broker 7 does not exist"},
		{"bad elr", "name: x\ncluster:\n  elr: maybe\n", nil, "cluster.elr"},
		{"coordinator without transactions", "name: x\nnemesis:\n  steps:\n    - fault: kill\n      target: {role: txn-coordinator}\n", nil, "nemesis.steps[0].target.role: txn-coordinator needs workload.transactions.enabled"},
		{"move-coordinator without transactions", "name: x\nnemesis:\n  steps:\n    - fault: move-coordinator\n      target: {role: nodes, nodes: [0]}\n", nil, "nemesis.steps[0].fault: move-coordinator needs workload.transactions.enabled"},
		{"move-coordinator of a group without one", "name: x\nnemesis:\n  steps:\n    - fault: move-coordinator\n      coordinator: group\n      target: {role: nodes, nodes: [0]}\n", nil, "nemesis.steps[0].coordinator: group needs workload.group"},
		{"move-coordinator of an unknown coordinator", "name: x\nnemesis:\n  steps:\n    - fault: move-coordinator\n      coordinator: share\n      target: {role: nodes, nodes: [0]}\n", nil, `nemesis.steps[0].coordinator: "share": want transaction (the default) or group`},
		{"move-coordinator without a target", "name: x\nworkload:\n  transactions: {enabled: true}\nnemesis:\n  steps:\n    - fault: move-coordinator\n", nil, "nemesis.steps[0].target: fault move-coordinator needs a target"},
		{"producer-crash of a producer not there", "name: x\nworkload:\n  producers: 2\nnemesis:\n  steps:\n    - fault: producer-crash\n      producer: 2\n", nil, "nemesis.steps[0].producer: 2: the workload has 2 producer(s), 0..1"},
		{"producer-crash of the default producer", "name: x\nnemesis:\n  steps:\n    - fault: producer-crash\n      producer: 1\n", nil, "nemesis.steps[0].producer: 1: the workload has 1 producer(s), 0..0"},
		{"producer-crash with transactions", "name: x\nworkload:\n  transactions: {enabled: true}\nnemesis:\n  steps:\n    - fault: producer-crash\n", nil, "nemesis.steps[0].fault: producer-crash crashes plain producers; transactional ones crash with workload.transactions.crash_rate"},
		{"bad transaction_version", "name: x\ncluster:\n  transaction_version: 3\n", nil, "cluster.transaction_version"},
		{"transaction_version on 3.9", "name: x\ncluster:\n  kafka: 3.9.2\n  transaction_version: 1\n", nil, "needs Kafka 4.0"},
		{"elr on 3.9", "name: x\ncluster:\n  kafka: 3.9.1\n  elr: \"on\"\n", nil, "needs Kafka 4.0"},
		{"bad acks", "name: x\nworkload:\n  acks: \"2\"\n", nil, "workload.acks"},
		// Every driver package is linked (workloads/drivers), before a cluster starts.
		{"unknown driver", "name: x\nworkload:\n  driver: jdbc\n", nil, `workload.driver: "jdbc": want franz, java or kafka-go`},
		{"bad set", "name: x\n", []string{"workload.acks"}, "want path=value"},
		{"missing name", "cluster:\n  brokers: 3\n", nil, "name: missing"},
		{"rf above brokers", "name: x\ncluster:\n  brokers: 2\ntopic:\n  replication_factor: 3\n", nil, "topic.replication_factor"},
		{"bad yaml", "name: [x\n", nil, "yaml"},
		{"bad nemesis fault", "name: x\nnemesis:\n  steps:\n    - fault: kil\n", nil, "nemesis.steps[0]"},
		{"upgrade to the cluster's own release", "name: x\ncluster:\n  kafka: 4.4.0\nnemesis:\n  steps:\n    - fault: upgrade\n      version: latest\n", nil,
			"nemesis.steps[0].version: latest (4.4.0) is not newer than the cluster's release 4.4.0 (cluster.kafka): nothing to upgrade"},
		{"upgrade to an older release", "name: x\ncluster:\n  kafka: 4.3.2\nnemesis:\n  steps:\n    - fault: upgrade\n      version: 4.2.x\n", nil,
			"nemesis.steps[0].version: 4.2.x (4.2.2) is not newer than the cluster's release 4.3.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(f, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(f, tt.sets)
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Fatalf("error %v is not a BadInputError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}

func TestUnknownScenario(t *testing.T) {
	_, err := Load("s99", nil)
	if err == nil || !strings.Contains(err.Error(), "neither a built-in scenario") {
		t.Fatalf("got %v", err)
	}
}

func TestReadPropertiesAndApply(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "server.properties")
	os.WriteFile(props, []byte("# comment\nnum.io.threads=8\nlisteners=PLAINTEXT://:9092\nreplica.lag.time.max.ms: 30000\nmin.insync.replicas = 2\n"), 0o644)
	m, err := ReadProperties(props)
	if err != nil {
		t.Fatal(err)
	}
	if m["num.io.threads"] != "8" || m["replica.lag.time.max.ms"] != "30000" || m["min.insync.replicas"] != "2" {
		t.Fatalf("parsed %v", m)
	}
	// java.util.Properties' format, as Kafka reads server.properties.
	for _, tc := range []struct {
		src  string
		want map[string]string
		err  string
	}{
		{"listeners=PLAINTEXT://:9092,\\\n    CONTROLLER://:9093\n", map[string]string{"listeners": "PLAINTEXT://:9092,CONTROLLER://:9093"}, ""},
		{"sasl.jaas.config=a\\=b\\:c\n", map[string]string{"sasl.jaas.config": "a=b:c"}, ""},
		{"key\\ with\\ blanks = v\\tw\n", map[string]string{"key with blanks": "v\tw"}, ""},
		{"num.io.threads 8\n! a comment\n", map[string]string{"num.io.threads": "8"}, ""},
		{"log.dirs=${HOME}/x\n", map[string]string{"log.dirs": "${HOME}/x"}, ""},
		{"just-a-key\n", map[string]string{"just-a-key": ""}, ""},
		{"ok=1\nbad=\\uZZZZ\n", nil, "line 2: invalid unicode literal"},
	} {
		f := filepath.Join(dir, "case.properties")
		os.WriteFile(f, []byte(tc.src), 0o644)
		got, err := ReadProperties(f)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
	s, err := Load("s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	over := s.ApplyUserConfigs(m, map[string]string{"retention.ms": "1000"})
	if !slices.Equal(over, []string{"listeners", "replica.lag.time.max.ms"}) {
		t.Errorf("overridden %v", over)
	}
	if _, ok := s.Cluster.BrokerConfig["listeners"]; ok {
		t.Error("a forced key reached the broker config")
	}
	if s.Cluster.BrokerConfig["num.io.threads"] != "8" || s.Topic.Configs["retention.ms"] != "1000" {
		t.Errorf("user settings not applied: %v %v", s.Cluster.BrokerConfig, s.Topic.Configs)
	}
}
