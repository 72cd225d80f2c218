package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errSession is what the guard returns: a bad input that reached a
// cluster session (or an SSH host) is a test failure, not a run.
var errSession = errors.New("TEST GUARD: a cluster session or SSH connection would have started")

// guardCLI runs the CLI with a guard on every session and SSH contact and
// a fresh empty store, and reports the exit code, the output, whether
// the guard was reached and what the store holds afterwards.
func guardCLI(t *testing.T, args ...string) (code int, out string, started bool, stored []string) {
	t.Helper()
	store := filepath.Join(t.TempDir(), "store")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	sessionGuard = func() error { started = true; return errSession }
	t.Cleanup(func() { sessionGuard = nil })
	if takesStore(args) {
		args = append(args, "--store", store)
	}
	code, out = runCLIErr(t, args...)
	ents, _ := os.ReadDir(store)
	for _, e := range ents {
		stored = append(stored, e.Name())
	}
	return code, out, started, stored
}

func takesStore(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "run", "matrix", "suite", "audit", "validate", "explore", "bisect":
		return true
	}
	return false
}

// wantRefused runs the CLI with args and asserts a refusal before any
// cluster: exit 254, every want in the output, no session, an empty store.
func wantRefused(t *testing.T, args, want []string) {
	t.Helper()
	code, out, started, stored := guardCLI(t, args...)
	if code != exitBadInput {
		t.Errorf("exit %d, want %d; output:\n%s", code, exitBadInput, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if started {
		t.Errorf("a cluster session or SSH connection was started")
	}
	if len(stored) > 0 {
		t.Errorf("the store has %v", stored)
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRefusedBeforeAnyCluster (issue 28, items 1-3): each class of bad
// input is exit 254 naming the field, file or flag, and nothing was
// started or written: no session (no container, network or SSH
// connection) and an empty store. On the code before issue 28 these
// inputs started clusters, wrote outside the store or ran bad cells.
func TestRefusedBeforeAnyCluster(t *testing.T) {
	dir := t.TempDir()
	key := write(t, dir, "key", "k")
	known := write(t, dir, "known_hosts", "")
	scen := func(name, body string) string { return write(t, dir, name+".yaml", "name: "+name+"\n"+body) }
	sshHead := "cluster:\n  backend: ssh\n  confirm_owner: true\n  hosts: [{id: 0, addr: a}]\n" +
		"  service: {start: s, stop: t, log_dirs: [/var/lib/kafka]}\n"
	brokerBad := write(t, dir, "server.properties", "num.partitions=0\nmin.insync.replicas=2\n")
	brokerOK := write(t, dir, "ok.properties", "min.insync.replicas=2\n")
	topicBad := write(t, dir, "topic.properties", "replication.factor=3\n")
	hostsTypo := write(t, dir, "hosts.yaml", "hosts: [{id: 0, addr: a}]\nssh: {user: u, key: "+key+", known_host: "+known+"}\n"+
		"service: {start: s, stop: t, log_dirs: [/var/lib/kafka]}\n")
	twice := write(t, dir, "twice.yaml", "name: twice\nentries:\n  - scenario: s1\n  - scenario: s1\n")
	runsZero := write(t, dir, "runs0.yaml", "name: runs0\nentries:\n  - scenario: s1\n    runs: 0\n")
	evilSuite := write(t, dir, "evil.yaml", "name: ../../evil\nentries:\n  - scenario: s1\n")
	histDir := filepath.Join(dir, "run")
	if err := os.MkdirAll(filepath.Join(histDir, "history.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		// Item 1: cross-field checks.
		{"target partition the topic lacks", []string{"run", scen("p", "nemesis:\n  steps:\n    - fault: kill\n      target: {role: leader, partition: 3}\n")},
			[]string{"nemesis.steps[0].target.partition: 3: the topic has partitions 0..0"}},
		{"target node that does not exist", []string{"run", scen("n", "nemesis:\n  steps:\n    - fault: kill\n      target: {role: nodes, nodes: [7]}\n")},
			[]string{"nemesis.steps[0].target.nodes: node 7 does not exist"}},
		{"group node that does not exist", []string{"run", scen("g", "nemesis:\n  steps:\n    - fault: partition\n      shape: groups\n      groups: [[0], [9]]\n")},
			[]string{"nemesis.steps[0].groups[1]: node 9 does not exist"}},
		{"until leader not a broker", []string{"run", scen("u", "nemesis:\n  steps:\n    - until: {leader: 5}\n")},
			[]string{"nemesis.steps[0].until.leader: broker 5 does not exist"}},
		{"until isr not a replica", []string{"run", scen("r", "topic:\n  assignment: [[0, 1]]\nnemesis:\n  steps:\n    - until: {isr: [2]}\n")},
			[]string{"nemesis.steps[0].until.isr: broker 2 is not a replica of partition 0"}},
		{"until partition the topic lacks", []string{"run", scen("q", "nemesis:\n  steps:\n    - until: {partition: 4, offline: true}\n")},
			[]string{"nemesis.steps[0].until.partition: 4"}},
		{"per_broker broker that does not exist", []string{"run", "s1", "--set", "cluster.per_broker.7.num.io.threads=2"},
			[]string{"per-broker config: broker 7 does not exist"}},
		{"rack the cluster lacks", []string{"run", "s9", "--set", "nemesis.steps[*].target.rack=z"},
			[]string{`target.rack: "z": the cluster has no such rack`}},
		{"disk dir the brokers lack", []string{"run", scen("d", "cluster:\n  log_dirs: 2\nnemesis:\n  steps:\n    - fault: disk-fail\n      dir: 3\n      target: {role: leader}\n")},
			[]string{"nemesis.steps[0].dir: 3: the brokers have log dirs 0..1"}},
		{"internal topic", []string{"run", "s1", "--set", "topic.name=__consumer_offsets", "--set", "workload.topic=__consumer_offsets"},
			[]string{`topic.name: "__consumer_offsets" is one of Kafka's internal topics`}},
		{"a hundred years", []string{"run", "s1", "--set", "workload.duration=876000h"}, []string{"workload.duration: 876000h0m0s: want at most 168h"}},
		{"unknown driver, every linked one named", []string{"run", "s1", "--set", "workload.driver=jdbc"},
			[]string{`workload.driver: "jdbc": want franz, java or kafka-go`}},
		{"NaN rate", []string{"run", "s1", "--set", "workload.rate=.nan"}, []string{"workload.rate: NaN: want a finite number"}},
		{"infinite rate", []string{"run", "s1", "--set", "workload.rate=.inf"}, []string{"workload.rate: +Inf: want a finite number"}},
		{"absurd rate", []string{"run", "s1", "--set", "workload.rate=1e300"}, []string{"workload.rate: 1e+300: want at most"}},
		{"NaN abort rate", []string{"run", "t1", "--set", "workload.transactions.abort_rate=.nan"}, []string{"workload.transactions.abort_rate: NaN"}},
		{"wait of a thousand hours", []string{"run", scen("w", "nemesis:\n  steps:\n    - wait: 1000h\n")}, []string{"nemesis.steps[0].wait: 1000h0m0s"}},
		{"min.insync not a number", []string{"run", "s1", "--set", "topic.configs.min.insync.replicas=abc"},
			[]string{`topic.configs.min.insync.replicas: "abc": want a whole number`}},
		{"min.insync zero", []string{"run", "s1", "--set", "topic.configs.min.insync.replicas=0"}, []string{`topic.configs.min.insync.replicas: "0": want at least 1`}},
		{"unclean not a boolean", []string{"run", "s1", "--set", "topic.configs.unclean.leader.election.enable=yes"},
			[]string{`topic.configs.unclean.leader.election.enable: "yes": want true or false`}},
		{"set-config step value", []string{"run", "s2", "--set", "nemesis.steps[*].config.unclean.leader.election.enable=maybe"},
			[]string{`config.unclean.leader.election.enable: "maybe"`}},
		{"per_broker value", []string{"run", "s1", "--set", "cluster.per_broker.1.min.insync.replicas=-1"},
			[]string{`cluster.per_broker.1.min.insync.replicas: "-1": want at least 1`}},
		{"--broker-config value", []string{"run", "s1", "--broker-config", brokerBad}, []string{"--broker-config " + brokerBad + ":.num.partitions", `"0": want at least 1`}},
		{"--topic-config non-config", []string{"run", "s1", "--topic-config", topicBad}, []string{"replication.factor: not a topic config", "topic.replication_factor"}},
		{"audit --broker-config value", []string{"audit", "--broker-config", brokerBad}, []string{"num.partitions"}},
		{"ssh key that does not exist", []string{"run", scen("k", sshHead+"  ssh: {user: u, key: "+filepath.Join(dir, "nokey")+", known_hosts: "+known+"}\n")},
			[]string{"cluster.ssh.key:", "no such file"}},
		{"known_hosts of no user", []string{"run", scen("h", sshHead+"  ssh: {user: u, key: "+key+", known_hosts: ~no-such-user-kchaos/kh}\n")},
			[]string{"cluster.ssh.known_hosts:", `no user "no-such-user-kchaos"`}},
		{"known_hosts a folder", []string{"run", scen("f", sshHead+"  ssh: {user: u, key: "+key+", known_hosts: "+dir+"}\n")},
			[]string{"cluster.ssh.known_hosts:", "not a regular file"}},
		{"hosts file unknown key", []string{"clean", "--hosts", hostsTypo}, []string{"field known_host not found"}},
		// Item 2: every flag, every command.
		// (Issue 37 item 2: the version grammar; kafkaversion_test.go has the rest.)
		{"run: malformed version", []string{"run", "s1", "--kafka", "9.9"}, []string{`--kafka: "9.9" is not a Kafka version`}},
		{"run: a version older than 3.9", []string{"run", "s1", "--kafka", "3.8.1"}, []string{`--kafka: "3.8.1": kchaos supports 3.9 and later`}},
		{"cluster up: malformed version", []string{"cluster", "up", "--kafka", "9.9.9-rc1"}, []string{`--kafka: "9.9.9-rc1" is not a Kafka version`}},
		{"matrix: malformed version in --kafka", []string{"matrix", "s2", "--kafka", "4.4.x,9.9"}, []string{`--kafka: "9.9" is not a Kafka version`}},
		{"matrix: malformed version in --vary", []string{"matrix", "s2", "--vary", "kafka=4.4.0,9.9"}, []string{`--vary kafka: "9.9" is not a Kafka version`}},
		{"matrix: a value twice", []string{"matrix", "s2", "--vary", "acks=1,1"}, []string{"--vary acks: value 1 given twice"}},
		{"suite: unknown line", []string{"suite", "--only", "s1", "--kafka", "4.4.x,9.9.x"}, []string{`--kafka: "9.9.x": kchaos knows no 9.9 release`}},
		{"audit: malformed version", []string{"audit", "--broker-config", brokerOK, "--kafka", "9.9"}, []string{`--kafka: "9.9" is not a Kafka version`}},
		{"suite: empty --only", []string{"suite", "--only", ""}, []string{`--only "": name 1 is blank`}},
		{"suite: blank id in --only", []string{"suite", "--only", "s1,,s2"}, []string{`--only "s1,,s2": name 2 is blank`}},
		{"suite: a cell twice by versions", []string{"suite", "--only", "s1", "--kafka", "4.4.0,4.4.x"}, []string{`--kafka: "4.4.x" is 4.4.0, as "4.4.0" (--kafka) is`}},
		{"suite: a cell twice by entries", []string{"suite", twice}, []string{"would run twice"}},
		{"suite: an entry's runs 0", []string{"suite", runsZero}, []string{"entries[0].runs: 0: want at least 1"}},
		{"check: zero porcupine timeout", []string{"check", "--porcupine-timeout", "0", histDir}, []string{"--porcupine-timeout 0s: want a positive duration"}},
		{"check: negative porcupine timeout", []string{"check", "--porcupine-timeout", "-1s", histDir}, []string{"--porcupine-timeout -1s"}},
		{"check: a device", []string{"check", os.DevNull}, []string{"not a regular file"}},
		{"check: history a folder", []string{"check", histDir}, []string{"history.jsonl: not a regular file"}},
		// Item 3: nothing outside the store.
		{"name with ..", []string{"run", "s1", "--set", "name=../../evil"}, []string{`name: "../../evil"`}},
		{"absolute name", []string{"run", "s1", "--set", "name=/tmp/evil"}, []string{`name: "/tmp/evil"`}},
		{"name with a separator", []string{"run", "s1", "--set", "name=a/b"}, []string{`name: "a/b"`}},
		{"name with NUL", []string{"run", "s1", "--set", "name=a\x00b"}, []string{"name: "}},
		{"name latest", []string{"run", "s1", "--set", "name=latest"}, []string{`name: "latest" is the store's own entry`}},
		{"name of a suite folder", []string{"run", "s1", "--set", "name=suite-seeds"}, []string{`names starting with "suite-"`}},
		{"matrix: name with ..", []string{"matrix", "s2", "--set", "name=..", "--vary", "acks=1,all"}, []string{`name: ".."`}},
		{"suite name with ..", []string{"suite", evilSuite}, []string{`name: "../../evil"`}},
	} {
		t.Run(c.name, func(t *testing.T) { wantRefused(t, c.args, c.want) })
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "evil")); err == nil {
		t.Errorf("something was written outside the store: %s", filepath.Join(dir, "..", "evil"))
	}
}
