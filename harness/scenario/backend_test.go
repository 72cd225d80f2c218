package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sshHosts is a valid SSH cluster section: three hosts the user owns.
const sshHosts = `cluster:
  backend: ssh
  confirm_owner: true
  hosts: [{id: 0, addr: a}, {id: 1, addr: b}, {id: 2, addr: c}]
  ssh: {user: u, key: testdata/ssh_key, known_hosts: testdata/known_hosts}
  service: {start: s, stop: t, log_dirs: [/var/lib/kafka]}
`

// TestFaultsCheckedAgainstBackend: a fault the chosen backend cannot
// apply is bad input at validation (no cluster is started here), named by
// its step and the capability; the same schedule on Docker is valid.
func TestFaultsCheckedAgainstBackend(t *testing.T) {
	for _, tc := range []struct {
		name, step string
		want       string // "" : valid on ssh too
	}{
		{"netem", "{fault: netem, shape: racks, netem: {delay: 50ms}}",
			`nemesis.steps[1].fault: netem needs capability "netem", which backend ssh does not have`},
		{"netem loss", "{fault: netem, target: {role: leader}, netem: {loss: 5%}}",
			`nemesis.steps[1].fault: netem needs capability "netem"`},
		{"disk-fail", "{fault: disk-fail, target: {role: leader}, dir: 0}",
			`nemesis.steps[1].fault: disk-fail needs capability "disk", which backend ssh does not have`},
		{"disk-slow", "{fault: disk-slow, target: {role: leader}, dir: 0, rate: 1MiB}",
			`nemesis.steps[1].fault: disk-slow needs capability "disk"`},
		{"cut-clients", "{fault: cut-clients, target: {role: leader}}",
			`nemesis.steps[1].fault: cut-clients needs capability "client-cut", which backend ssh does not have`},
		{"upgrade", "{fault: upgrade, version: latest}",
			`nemesis.steps[1].fault: upgrade needs capability "upgrade"`},
		{"a request fault on the brokers' own requests", "{fault: drop-response, api: [Fetch], clients: replica, target: {role: leader}}",
			`nemesis.steps[1].fault: drop-response needs capability "inter-broker-route", which backend ssh does not have`},
		{"a request fault on the clients' requests", "{fault: drop-response, api: [Produce]}", ""},
		{"kill", "{fault: kill, target: {role: leader}}", ""},
		{"partition", "{fault: partition, shape: leader-followers, target: {partition: 0}}", ""},
		{"power loss", "{fault: lose-unflushed, target: {role: leader}, start: true}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nem := "nemesis:\n  steps:\n    - {wait: 1s}\n    - " + tc.step + "\n"
			_, err := Load(writeScenario(t, "name: mine\n"+sshHosts+nem), nil)
			var bad *BadInputError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid on ssh, got %v", err)
			case tc.want != "" && (!errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v (%T), want bad input naming %q", err, err, tc.want)
			}
			// On Docker (the default backend) the step is valid, unless
			// it needs what the s1-like cluster lacks (none here).
			if _, err := Load(writeScenario(t, "name: mine\n"+nem), nil); err != nil && strings.Contains(err.Error(), "capability") {
				t.Errorf("docker refused it: %v", err)
			}
		})
	}
}

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
