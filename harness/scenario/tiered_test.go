package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// cluster.tiered is refused before any cluster when the version, the
// backend or the topic cannot run it, naming the field; a good one
// reaches the cluster config and the topic.
func TestTieredValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // "" accepts
	}{
		{"defaults", "cluster: {tiered: {}}", ""},
		{"tuned", "cluster: {tiered: {segment_ms: 1000, local_retention_ms: 500, task_interval_ms: 500}}", ""},
		{"local retention as retention", "cluster: {tiered: {local_retention_ms: -2}}", ""},
		{"old version", "cluster: {kafka: 3.8.1, tiered: {}}", `cluster: kafka: "3.8.1": kchaos supports 3.9`},
		{"ssh backend", "cluster: {backend: ssh, confirm_owner: true, hosts: [{id: 0, role: broker, address: h0}], tiered: {}}", "tiered: the remote tier"},
		{"jbod", "cluster: {log_dirs: 2, tiered: {}}", "tiered: with log_dirs 2"},
		{"segment too short", "cluster: {tiered: {segment_ms: 100}}", "tiered.segment_ms: 100"},
		{"negative local retention", "cluster: {tiered: {local_retention_ms: -5}}", "tiered.local_retention_ms: -5"},
		{"task interval", "cluster: {tiered: {task_interval_ms: 10}}", "tiered.task_interval_ms: 10"},
		{"remote off", "cluster: {tiered: {}}\ntopic: {configs: {remote.storage.enable: \"false\"}}", "topic.configs.remote.storage.enable"},
		{"compacted", "cluster: {tiered: {}}\ntopic: {configs: {cleanup.policy: compact}}", "topic.configs.cleanup.policy"},
		{"remote without tier", "topic: {configs: {remote.storage.enable: \"true\"}}", "topic.configs.remote.storage.enable: needs a remote tier"},
		{"local retention without tier", "topic: {configs: {local.retention.ms: \"1000\"}}", "topic.configs.local.retention.ms: needs a remote tier"},
		{"bad retention.bytes", "topic: {configs: {retention.bytes: abc}}", "topic.configs.retention.bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadText(t, "name: x\n"+tc.yaml+"\n")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want an error naming %q", tc.want)
			}
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Errorf("error %v is not bad input (exit 254)", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %q", err, tc.want)
			}
			_ = s
		})
	}
}

// The remote tier's settings reach the cluster and the topic; the
// scenario's own topic configs win over them.
func TestTieredReachesClusterAndTopic(t *testing.T) {
	s, err := loadText(t, "name: x\ncluster: {tiered: {segment_ms: 3000}}\ntopic: {configs: {local.retention.ms: \"7000\"}}\n")
	if err != nil {
		t.Fatal(err)
	}
	e := effectOf(s)
	if e.Cluster.Tiered == nil || e.Cluster.Tiered.SegmentMS != 3000 || e.Cluster.Tiered.TaskIntervalMS != cluster.DefaultTieredTaskInterval {
		t.Fatalf("cluster.Tiered = %+v", e.Cluster.Tiered)
	}
	want := map[string]string{"remote.storage.enable": "true", "segment.ms": "3000", "local.retention.ms": "7000"}
	for k, v := range want {
		if e.Topic.Configs[k] != v {
			t.Errorf("topic config %s = %q, want %q", k, e.Topic.Configs[k], v)
		}
	}
	plain, err := loadText(t, "name: x\n")
	if err != nil {
		t.Fatal(err)
	}
	if e := effectOf(plain); e.Cluster.Tiered != nil || e.Topic.Configs["remote.storage.enable"] != "" {
		t.Errorf("tiered storage on without cluster.tiered: %+v %v", e.Cluster.Tiered, e.Topic.Configs)
	}
}

// jira, docs and finding are checked for form before any cluster.
func TestRefsValidation(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"jira: [KAFKA-20732, KAFKA-1]\ndocs: [\"https://kafka.apache.org/documentation/#tiered_storage\"]", ""},
		{"jira: [kafka-20732]", "jira[0]"},
		{"jira: [KAFKA-20732, ZOOKEEPER-1]", "jira[1]"},
		{"jira: [KAFKA-0123]", "jira[0]"},
		{"jira: [\"KAFKA-20732 \"]", "jira[0]"},
		{"docs: [kafka.apache.org]", "docs[0]"},
		{"docs: [\"ftp://example.org/x\"]", "docs[0]"},
		{"docs: [\"https://\"]", "docs[0]"},
		{"finding: {status: fixed in 4.4.0, steps: restart the leader}", ""},
		{"finding: {steps: restart the leader}", "finding.status: missing"},
		{"finding: {status: fixed, steps: \"  \"}", "finding.steps: missing"},
		{"finding: {status: fixed, steps: s, jira: KAFKA-1}", "jira"},
		{"finding: fixed", "finding"},
	} {
		_, err := loadText(t, "name: x\n"+tc.yaml+"\n")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.yaml, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error naming %s", tc.yaml, err, tc.want)
		case tc.want != "":
			var bad *BadInputError
			if !errors.As(err, &bad) {
				t.Errorf("%s: %v is not bad input (exit 254)", tc.yaml, err)
			}
		}
	}
}
