package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// The case the settings table once got wrong: the topic starts at Kafka's
// default unclean.leader.election.enable=false (not set on the topic), and
// the schedule switches it on live at 5 s. scenario.yaml holds that live
// step; the table must say false at the start (from run.json's applied
// configs) and true as a change at 5 s, never true as the starting value.
func TestSettingsShowLiveChangesAsChanges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s2", "20260101T000000")
	s2Run(t, dir, true) // its history has the set-config op at 5 s
	info, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	info.TopicConfigs = map[string]string{"unclean.leader.election.enable": "false",
		"min.insync.replicas": "2", "retention.ms": "604800000", "cleanup.policy": "delete"}
	info.TopicConfigSources = map[string]string{"unclean.leader.election.enable": histories.ConfigSourceDefault,
		"min.insync.replicas": histories.ConfigSourceTopic, "retention.ms": histories.ConfigSourceDefault,
		"cleanup.policy": histories.ConfigSourceBroker}
	info.Expect = "Broker 1 leads from its own log end."
	if err := histories.WriteRunInfo(filepath.Join(dir, histories.RunInfoFile), info); err != nil {
		t.Fatal(err)
	}
	scen := "name: s2\nnemesis:\n  steps:\n    - fault: set-config\n      config: {unclean.leader.election.enable: \"true\"}\n"
	if err := os.WriteFile(filepath.Join(dir, scenarioFile), []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	md := readString(t, filepath.Join(dir, ReportMD))
	tests := []struct {
		want string
		in   bool
		why  string
	}{
		{"| unclean.leader.election.enable | false | Kafka default (not set) |", true, "the starting value, from run.json"},
		{"| unclean.leader.election.enable | true | live change (set-config) at 5.0 s |", true, "the live change, from the history"},
		{"| unclean.leader.election.enable | true | topic config |", false, "a live change shown as the starting value"},
		{"scenario.yaml |", false, "a setting taken from scenario.yaml"},
		{"| min.insync.replicas | 2 | topic config |", true, "a config set on the topic"},
		{"retention.ms", false, "a Kafka default listed as if set"},
		{"cleanup.policy", false, "an inherited config listed as if set"},
		{"Expected (the scenario's words; they never change the verdict): Broker 1 leads", true, "the scenario's expect"},
	}
	for _, tc := range tests {
		if strings.Contains(md, tc.want) != tc.in {
			t.Errorf("report.md contains %q = %v, want %v (%s)", tc.want, !tc.in, tc.in, tc.why)
		}
	}
}

func TestLiveChanges(t *testing.T) {
	ops := []nemOp{
		{F: "kill", Start: 1e9, Type: histories.OK},
		{F: "set-config", Start: 2e9, Type: histories.OK, Value: histories.NemesisValue{Details: map[string]any{
			"topic": "orders", "config": map[string]any{"unclean.leader.election.enable": "true", "min.insync.replicas": nil}}}},
		{F: "set-config", Start: 3e9, Type: histories.Fail, Value: histories.NemesisValue{Details: map[string]any{
			"topic": "orders", "config": map[string]any{"retention.ms": "1000"}}}},
		{F: histories.FUpgrade, Start: 4e9, Type: histories.OK, Value: histories.NemesisValue{Details: map[string]any{
			"node": 1000.0, "role": "controller", "from": "3.9.2", "to": "4.4.0"}}},
		{F: histories.FSetFeature, Start: 5e9, Type: histories.OK, Value: histories.NemesisValue{Details: map[string]any{
			"features_before": map[string]any{"metadata.version": 21.0},
			"features_after":  map[string]any{"metadata.version": 27.0, "eligible.leader.replicas.version": 1.0}}}},
	}
	got := liveChanges(ops)
	want := []setting{
		{"min.insync.replicas", "deleted (back to the inherited value)", "live change (set-config) at 2.0 s"},
		{"unclean.leader.election.enable", "true", "live change (set-config) at 2.0 s"},
		{"retention.ms", "1000", "live change (set-config) at 3.0 s, ended fail"},
		{"Kafka version of controller 1000", "3.9.2 → 4.4.0", "live change (upgrade) at 4.0 s"},
		{"feature eligible.leader.replicas.version", "0 → 1", "live change (set-feature) at 5.0 s"},
		{"feature metadata.version", "21 → 27", "live change (set-feature) at 5.0 s"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestTopicSettingSources(t *testing.T) {
	tests := []struct {
		name     string
		info     histories.RunInfo
		val, src string
	}{
		{"set on the topic", histories.RunInfo{TopicConfigs: map[string]string{"min.insync.replicas": "2"},
			TopicConfigSources: map[string]string{"min.insync.replicas": histories.ConfigSourceTopic}}, "2", fromTopic},
		{"inherited", histories.RunInfo{TopicConfigs: map[string]string{"min.insync.replicas": "2"},
			TopicConfigSources: map[string]string{"min.insync.replicas": histories.ConfigSourceBroker}}, "2", fromBroker},
		{"Kafka's default, applied", histories.RunInfo{TopicConfigs: map[string]string{"min.insync.replicas": "1"},
			TopicConfigSources: map[string]string{"min.insync.replicas": histories.ConfigSourceDefault}}, "1", fromDefault},
		{"older run.json: topic's own only", histories.RunInfo{TopicConfigs: map[string]string{"min.insync.replicas": "3"}}, "3", fromTopic},
		{"older run.json: from broker configs", histories.RunInfo{BrokerConfigs: map[int32]map[string]string{
			0: {"min.insync.replicas": "2"}, 1: {"min.insync.replicas": "2"}}}, "2", fromBroker},
		{"brokers disagree", histories.RunInfo{BrokerConfigs: map[int32]map[string]string{
			0: {"min.insync.replicas": "2"}, 1: {"min.insync.replicas": "1"}}}, "2 on broker 0, 1 on broker 1", fromBroker},
		{"nothing recorded", histories.RunInfo{}, "1", fromDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, src := topicSetting(tt.info, "min.insync.replicas", "1")
			if v != tt.val || src != tt.src {
				t.Errorf("got %q from %q, want %q from %q", v, src, tt.val, tt.src)
			}
		})
	}
}

// TestSettingsSayAReusedCluster: a run on a cluster an earlier run used
// (kchaos explore) says so in its settings, naming the cluster and the run
// before; a run on its own cluster says nothing of it.
func TestSettingsSayAReusedCluster(t *testing.T) {
	for _, tc := range []struct {
		name string
		use  *histories.ClusterUse
		want string
	}{
		{"none recorded", nil, ""},
		{"own cluster", &histories.ClusterUse{RunID: "c1", Containers: map[int32]string{0: "abc"}}, ""},
		{"reused", &histories.ClusterUse{RunID: "c1", ReusedFrom: "20261202T120000.000", RunsBefore: 2}, "reused: c1, after run 20261202T120000.000 (2 run(s) before this one)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for _, s := range settings(histories.RunInfo{KafkaVersion: "4.4.0", Cluster: tc.use}, true) {
				if s.Name == "cluster" {
					got = s.Value
				}
			}
			if got != tc.want {
				t.Errorf("cluster setting %q, want %q", got, tc.want)
			}
		})
	}
}
