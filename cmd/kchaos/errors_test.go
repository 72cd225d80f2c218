package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput: every bad argument is exit 254 at once (no cluster is
// started: these run without Docker) with a message naming the field,
// value or line.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	multi := filepath.Join(dir, "multi.yaml")
	if err := os.WriteFile(multi, []byte("name: multi\ncluster:\n  bogus: 1\ntopic:\n  replication_factor: 5\nworkload:\n  acks: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(plain, []byte("name: plain\ncluster:\n  brokers: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hosts := filepath.Join(dir, "hosts.yaml")
	sshScen := "name: mine\ncluster:\n  backend: ssh\n  hosts: [{id: 0, addr: a}]\n" +
		"  ssh: {user: u, key: /k, known_hosts: /kh}\n  service: {start: s, stop: t, log_dirs: [/var/lib/kafka]}\n"
	if err := os.WriteFile(hosts, []byte(sshScen), 0o644); err != nil {
		t.Fatal(err)
	}
	noKnown := filepath.Join(dir, "noknown.yaml")
	if err := os.WriteFile(noKnown, []byte(strings.Replace(sshScen, ", known_hosts: /kh", "", 1)+"  confirm_owner: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sshNetem := filepath.Join(dir, "sshnetem.yaml")
	if err := os.WriteFile(sshNetem, []byte(sshScen+"  confirm_owner: true\nnemesis:\n  steps:\n    - {fault: netem, shape: racks, netem: {delay: 50ms}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown command", []string{"runn", "s1"}, []string{"unknown command"}},
		{"unknown flag", []string{"run", "s1", "--bogus"}, []string{"unknown flag: --bogus"}},
		{"bad flag value", []string{"run", "s1", "--seed", "abc"}, []string{"--seed"}},
		{"no scenario", []string{"run"}, []string{"accepts 1 arg"}},
		{"missing scenario", []string{"run", "nope"}, []string{`"nope" is neither a built-in scenario`}},
		{"several problems", []string{"run", multi}, []string{"line 3: field bogus not found", "topic.replication_factor: 5", "workload.acks: \"7\""}},
		{"bad --set path", []string{"run", "s1", "--set", "workload.bogus=1"}, []string{"field bogus not found"}},
		{"bad --set value", []string{"run", "s1", "--set", "workload.acks=2"}, []string{"workload.acks", `"2"`}},
		{"bad --set form", []string{"run", "s1", "--set", "workload.acks"}, []string{"--set workload.acks", "want path=value"}},
		{"broker that does not exist", []string{"run", "s1", "--set", "topic.assignment=[[0,1,7]]"}, []string{"topic.assignment[0]", "broker 7 does not exist"}},
		{"bad --broker-config", []string{"run", "s1", "--broker-config", filepath.Join(dir, "none.properties")}, []string{"--broker-config"}},
		{"quiet and verbose", []string{"run", "s1", "--quiet", "--verbose"}, []string{"--quiet and --verbose"}},
		{"bad --log-format", []string{"run", "s1", "--log-format", "xml"}, []string{`--log-format "xml"`}},
		{"matrix: no --vary", []string{"matrix", "s2"}, []string{"nothing to vary"}},
		{"matrix: bad --vary form", []string{"matrix", "s2", "--vary", "unclean"}, []string{`--vary "unclean"`}},
		{"matrix: bad --vary value", []string{"matrix", "s2", "--vary", "acks=1,2"}, []string{"--vary acks=2", "workload.acks"}},
		{"matrix: bad --vary key", []string{"matrix", "s2", "--vary", "workload.bogus=1,2"}, []string{"--vary workload.bogus=1", "field bogus not found"}},
		{"matrix: every bad --vary", []string{"matrix", "s2", "--vary", "acks=9", "--vary", "elr=maybe"}, []string{"--vary acks=9", "--vary elr=maybe"}},
		{"matrix: bad --runs", []string{"matrix", "s2", "--vary", "acks=1", "--runs", "0"}, []string{"--runs 0"}},
		{"matrix: bad scenario", []string{"matrix", multi, "--vary", "acks=1"}, []string{"topic.replication_factor"}},
		{"ssh: no confirmation", []string{"run", hosts}, []string{"cluster.confirm_owner", "--i-own-these-hosts"}},
		{"ssh: netem", []string{"run", sshNetem}, []string{`nemesis.steps[0].fault: netem needs capability "netem", which backend ssh does not have`}},
		{"ssh: no known_hosts", []string{"run", noKnown}, []string{"cluster.ssh.known_hosts: missing"}},
		{"ssh: docker with hosts", []string{"run", "s1", "--set", "cluster.hosts=[{id: 0, addr: a}]"}, []string{"cluster.backend"}},
		{"clean --hosts: not hosts", []string{"clean", "--hosts", plain}, []string{"cluster.hosts: missing"}},
		{"clean --hosts: unknown key", []string{"clean", "--hosts", multi}, []string{"line 3: field bogus not found"}},
		{"cluster up: bad racks", []string{"cluster", "up", "--racks", "a=x"}, []string{"--racks", `"x" is not a number`}},
		{"cluster up: elr twice", []string{"cluster", "up", "--elr", "--no-elr"}, []string{"--elr and --no-elr"}},
		{"cluster up: no brokers", []string{"cluster", "up", "--brokers", "0"}, []string{"--brokers 0"}},
	} {
		code, out := runCLIErr(t, c.args...)
		if code != exitBadInput {
			t.Errorf("%s: exit %d, want %d; output:\n%s", c.name, code, exitBadInput, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, out)
			}
		}
	}
}
