package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltinOutcomes: every built-in states a checkable outcome, and some
// check applies to it as shipped (so a suite cell of it is never "no
// expectation").
func TestBuiltinOutcomes(t *testing.T) {
	for _, b := range Builtins() {
		s, err := Load(b.Name, nil)
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		checks := s.Checks()
		if len(checks) == 0 {
			t.Errorf("%s: no outcome checks", b.Name)
			continue
		}
		applies := 0
		for _, c := range checks {
			if c.Applies(s.Settings()) {
				applies++
			}
		}
		if applies == 0 {
			t.Errorf("%s: none of %v applies to its settings %v", b.Name, checks, s.Settings())
		}
	}
}

func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
		want map[string]string
	}{
		{"s1", nil, map[string]string{"unclean": "false", "elr": "false", "min.insync": "1", "acks": "all"}},
		// s2 turns unclean election on live, while the partition is offline.
		{"s2", nil, map[string]string{"unclean": "true"}},
		{"s2", []string{"topic.configs.unclean.leader.election.enable=false",
			"nemesis.steps[*].config.unclean.leader.election.enable=false"}, map[string]string{"unclean": "false"}},
		{"s8", nil, map[string]string{"elr": "true"}},
		{"s4", []string{"workload.acks=1"}, map[string]string{"acks": "1", "min.insync": "2"}},
		{"s1", []string{"cluster.elr=default", "cluster.kafka=4.1.2"}, map[string]string{"elr": "true", "kafka": "4.1.2"}},
		{"s1", []string{"cluster.elr=default", "cluster.kafka=4.0.2"}, map[string]string{"elr": "false"}},
		{"s1", []string{"cluster.kafka=4.4.0"}, map[string]string{"txn.version": "2"}},
		{"s1", []string{"cluster.kafka=3.9.2"}, map[string]string{"txn.version": "0"}},
		{"s1", []string{"cluster.transaction_version=1"}, map[string]string{"txn.version": "1"}},
		{"s1", nil, map[string]string{"group.protocol": ""}},
		{"g3", nil, map[string]string{"group.protocol": "classic"}},
		{"g3", []string{"workload.group.protocol=consumer"}, map[string]string{"group.protocol": "consumer"}},
		{"g3", []string{"workload.group.protocols=[consumer, classic, classic, classic]"}, map[string]string{"group.protocol": "mixed"}},
		{"g3", []string{"workload.group.protocols=[consumer, consumer, consumer, consumer]"}, map[string]string{"group.protocol": "consumer"}},
	} {
		s, err := Load(tc.name, tc.sets)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.name, tc.sets, err)
		}
		got := s.Settings()
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s %v: %s = %q, want %q", tc.name, tc.sets, k, got[k], v)
			}
		}
	}
}

// TestOutcomeValidation: a scenario file with several outcome problems
// reports each with its field path.
func TestOutcomeValidation(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yaml")
	src := "name: bad\noutcome:\n  - lost-writes == 0\n  - {check: \"lost-write > 0\", when: {colour: blue}}\n  - \"offline_seconds <= soon\"\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(file, nil)
	if err == nil {
		t.Fatal("bad outcome accepted")
	}
	for _, want := range []string{"outcome[0].check", `unknown metric "lost-writes"`, "outcome[1].when.colour", `unknown setting "colour"`, "outcome[2].check", "not a number"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestControllerDecidesUnclean: a user's server.properties with unclean
// election on reaches the controllers too (the KRaft controller resolves
// the topic default from its own config), and a scenario whose brokers
// alone have it does not count as unclean (the controller would never
// elect uncleanly; measured: kchaos's first audit of such a config saw
// the brokers describe the topic as unclean=true and no unclean election).
func TestControllerDecidesUnclean(t *testing.T) {
	s, err := Load("s1", []string{"cluster.broker_config.unclean.leader.election.enable=true"})
	if err != nil {
		t.Fatal(err)
	}
	delete(s.Topic.Configs, "unclean.leader.election.enable")
	if got := s.Settings()["unclean"]; got != "false" {
		t.Errorf("brokers alone with unclean on: unclean = %s, want false", got)
	}
	s.ApplyUserConfigs(map[string]string{"unclean.leader.election.enable": "true", "min.insync.replicas": "1", "num.io.threads": "8"}, nil)
	cc := s.Cluster.ControllerConfig
	if cc["unclean.leader.election.enable"] != "true" || cc["min.insync.replicas"] != "1" || cc["num.io.threads"] != "" {
		t.Errorf("controller config %v: want the two topic defaults and nothing else", cc)
	}
	if got := s.Settings()["unclean"]; got != "true" {
		t.Errorf("user config with unclean on: unclean = %s, want true", got)
	}
}

// TestSettingsAsKafkaReadsThem (issue 28, item 4): the audit's facts
// quote a value as Kafka reads it: " TRUE " is unclean election on and
// " 2 " is min.insync.replicas 2, never "false" or a missing fact.
func TestSettingsAsKafkaReadsThem(t *testing.T) {
	s, err := Load("s1", []string{"topic.configs.unclean.leader.election.enable= TRUE ", "topic.configs.min.insync.replicas= 2 "})
	if err != nil {
		t.Fatal(err)
	}
	set := s.Settings()
	if set["unclean"] != "true" || set["min.insync"] != "2" {
		t.Errorf("settings %v: want unclean true, min.insync 2", set)
	}
}
