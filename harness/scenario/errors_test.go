package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllProblems: a file with several problems reports every one, the
// decoding ones with their line and the validation ones with their field
// path, and a single problem still reads as before.
func TestAllProblems(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		sets       []string
		want       []string
	}{
		{"decode and validate", `name: multi
cluster:
  brokers: 3
  bogus: 1
topic:
  replication_factor: 5
  partitionz: 2
workload:
  acks: 7
  producers: many
nemesis:
  steps:
    - fault: nope
`, nil, []string{"line 4: field bogus not found", "line 7: field partitionz not found", "line 10: cannot unmarshal",
			"topic.replication_factor: 5", `workload.acks: "7"`, `nemesis.steps[0].fault: unknown fault "nope"`}},
		{"validate only", "name: v\ntopic:\n  replication_factor: 4\nworkload:\n  acks: x\n", nil,
			[]string{"topic.replication_factor: 4", `workload.acks: "x"`}},
		{"with --set", "name: s\n", []string{"workload.bogus=1", "cluster.elr=maybe"},
			[]string{"with --set workload.bogus=1", "field bogus not found", `cluster.elr: "maybe"`}},
		{"syntax", "name: [\n", nil, []string{"yaml:"}},
		{"abort_hanging without a read_committed final read", "name: h\nfinal:\n  abort_hanging: true\n", nil,
			[]string{"final.abort_hanging: needs a read_committed final read"}},
		{"member fault without a group", "name: m\nnemesis:\n  steps:\n    - fault: member-kill\n", nil,
			[]string{"nemesis.steps[0]: member-kill needs workload.group"}},
		{"member fault naming no member", "name: m\nworkload:\n  group: {id: g, members: 2}\nnemesis:\n  steps:\n    - fault: member-kill\n      member: member-5\n", nil,
			[]string{`nemesis.steps[0].member: "member-5": the group's members are member-0, member-1 (or random)`}},
		{"group role without a group", "name: m\nnemesis:\n  steps:\n    - fault: kill\n      target: {role: group-coordinator}\n", nil,
			[]string{"nemesis.steps[0].target.role: group-coordinator needs workload.group"}},
		{"KIP-848 before 4.0", "name: k\ncluster:\n  kafka: 3.9.2\nworkload:\n  group: {id: g, protocol: consumer}\n", nil,
			[]string{"workload.group.protocol: consumer (KIP-848) needs Kafka 4.0 or later; 3.9.2"}},
		{"KIP-848 member before 4.0", "name: k\ncluster:\n  kafka: 3.9.2\nworkload:\n  group: {id: g, members: 2, protocols: [classic, consumer]}\n", nil,
			[]string{"workload.group.protocols: consumer (KIP-848) needs Kafka 4.0 or later; 3.9.2"}},
		{"log dirs", "name: d\ncluster:\n  log_dirs: 9\n  log_dir_size: lots\ntopic:\n  log_dir: 9\n", nil,
			[]string{"cluster: log_dirs: 9: want 1..4", `cluster.log_dir_size: "lots": want a size`, "topic.log_dir: 9: the brokers have log dirs 0..8"}},
		{"log dir size needs a second dir", "name: d\ncluster:\n  log_dir_size: 64MiB\ntopic:\n  log_dir: 1\n", nil,
			[]string{"cluster: log_dir_size: bounds the log dirs after the first, and there is only one", "topic.log_dir: 1: the brokers have log dirs 0..0 (cluster.log_dirs: 1)"}},
		{"small dir", "name: d\ncluster:\n  log_dirs: 2\n  log_dir_size: 1MiB\n", nil, []string{"log_dir_size: 1MiB: want at least 4MiB"}},
	} {
		f := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(f, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(f, c.sets)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q:\n%v", c.name, w, err)
			}
		}
	}
}

// TestSSHRefusesLogDirs: the ssh backend runs the hosts' own log.dirs, so
// the log-dir fields are refused there, naming the field.
func TestSSHRefusesLogDirs(t *testing.T) {
	for _, set := range []string{"cluster.log_dirs=2", "topic.log_dir=0"} {
		_, err := loadText(t, "name: x\n", append(append([]string{}, sshBase...), set)...)
		if err == nil || !strings.Contains(err.Error(), "cluster.log_dirs: the ssh backend runs your hosts' own log.dirs") {
			t.Errorf("%s on ssh: %v", set, err)
		}
	}
	if _, err := loadText(t, "name: x\n", sshBase...); err != nil {
		t.Errorf("ssh without log-dir fields: %v", err)
	}
}
