package ssh

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"iptables", "iptables"},
		{"/var/lib/kafka/data", "/var/lib/kafka/data"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf /)", "'$(rm -rf /)'"},
		{"a;b", "'a;b'"},
		{"-m", "-m"},
	} {
		if got := quote(tc.in); got != tc.want {
			t.Errorf("quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestQuoteRoundTrip runs the quoted words through a real sh: each comes
// back as one argument, unchanged.
func TestQuoteRoundTrip(t *testing.T) {
	args := []string{"plain", "two words", "it's", `"dq"`, "$HOME", "`id`", "a\nb", "*", "-c"}
	script := "set -- " + join(args...) + "; for a in \"$@\"; do printf '%s\\0' \"$a\"; done"
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("round trip: got %q, want %q", got, args)
	}
}

func TestSelfSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"kafka.Kafka", "[k]afka.Kafka"},
		{".Kafka", ".[K]afka"},
		{"", ""},
	} {
		got := selfSafe(tc.in)
		if got != tc.want {
			t.Errorf("selfSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.in == "" {
			continue
		}
		re := regexp.MustCompile(got)
		if !re.MatchString("java -cp /opt/kafka/lib/* " + tc.in + " /etc/kafka/server.properties") {
			t.Errorf("%q does not match the process it names", got)
		}
		if re.MatchString("sudo -n sh -c " + signalCmd("STOP", tc.in)) {
			t.Errorf("%q matches the command that sends the signal", got)
		}
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct{ name, got, want string }{
		{"signal", signalCmd("STOP", "kafka.Kafka"), "pkill -STOP -f '[k]afka.Kafka'; [ $? -le 1 ]"},
		{"sudo", wrap("cat /etc/kafka/server.properties", true), "sudo -n sh -c 'cat /etc/kafka/server.properties'"},
		{"no sudo", wrap("id", false), "id"},
		{"exec", join("sh", "-c", "iptables -w 5 -S"), "sh -c 'iptables -w 5 -S'"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestParseState(t *testing.T) {
	for _, tc := range []struct {
		out             string
		running, paused bool
	}{
		{"", false, false},
		{"123 S\n", true, false},
		{"123 T\n", true, true},
		{"123 Z\n", false, false},
		{"12 S\n13 t\n", true, true},
	} {
		r, p := parseState(tc.out)
		if r != tc.running || p != tc.paused {
			t.Errorf("parseState(%q) = %v,%v; want %v,%v", tc.out, r, p, tc.running, tc.paused)
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := parseList("orders-0\td\t4096\nmeta.properties\tf\t120\n.lock\tf\t0\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []cluster.FileInfo{{Name: ".lock"}, {Name: "meta.properties", Size: 120}, {Name: "orders-0", Dir: true}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := parseList("garbage\n"); err == nil {
		t.Error("a malformed line was accepted")
	}
}

func TestRuleCommands(t *testing.T) {
	for _, tc := range []struct {
		cmd       string
		add, del_ bool
	}{
		{"sh -c 'iptables -w 5 -I INPUT -s 10.0.0.2 -m comment --comment kchaos -j DROP'", true, false},
		{"sh -c 'set -e\niptables -w 5 -D INPUT -s 10.0.0.2 -m comment --comment kchaos -j DROP'", false, true},
		{"iptables -w 5 -S", false, false},
		{"cat /etc/kafka/server.properties", false, false},
	} {
		if a, d := isRuleAdd(tc.cmd), isRuleDelete(tc.cmd); a != tc.add || d != tc.del_ {
			t.Errorf("%q: add %v delete %v, want %v %v", tc.cmd, a, d, tc.add, tc.del_)
		}
	}
}

func validSpec() Spec {
	return Spec{
		Hosts: []Host{{ID: 1000, Addr: "h0", Role: "controller"}, {ID: 0, Addr: "h1:2222", Rack: "a"},
			{ID: 1, Addr: "h2", Rack: "b"}},
		SSH:     Auth{User: "kafka", Key: "/k", KnownHosts: "/kh"},
		Service: Service{Start: "systemctl start kafka", Stop: "systemctl stop kafka", LogDirs: []string{"/var/lib/kafka"}},
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string // "" = valid
	}{
		{"valid", func(*Spec) {}, ""},
		{"no hosts", func(s *Spec) { s.Hosts = nil }, "cluster.hosts: missing"},
		{"dup id", func(s *Spec) { s.Hosts[2].ID = 0 }, "cluster.hosts[2].id: 0 given twice"},
		{"gap", func(s *Spec) { s.Hosts[2].ID = 5 }, "cluster.hosts: broker ids [0 5]"},
		{"bad role", func(s *Spec) { s.Hosts[1].Role = "zk" }, `cluster.hosts[1].role: "zk"`},
		{"bad ip", func(s *Spec) { s.Hosts[1].IP = "nope" }, "cluster.hosts[1].ip"},
		{"no known_hosts", func(s *Spec) { s.SSH.KnownHosts = "" }, "cluster.ssh.known_hosts: missing"},
		{"no auth", func(s *Spec) { s.SSH.Key = "" }, "cluster.ssh.key: missing"},
		{"agent", func(s *Spec) { s.SSH.Key, s.SSH.Agent = "", true }, ""},
		{"no start", func(s *Spec) { s.Service.Start = "" }, "cluster.service.start: missing"},
		{"root log dir", func(s *Spec) { s.Service.LogDirs = []string{"/"} }, "cluster.service.log_dirs[0]"},
		{"relative log dir", func(s *Spec) { s.Service.LogDirs = []string{"data"} }, "cluster.service.log_dirs[0]"},
		{"two log dirs", func(s *Spec) { s.Service.LogDirs = []string{"/a", "/b"} }, "cluster.service.log_dirs: 2 given"},
		{"quote in process", func(s *Spec) { s.Service.Process = "a'b" }, "cluster.service.process"},
	} {
		s := validSpec()
		tc.change(&s)
		s.Defaults()
		errs := s.Validate("cluster")
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		all := strings.Join(msgs, "\n")
		if tc.want == "" && len(errs) > 0 || tc.want != "" && !strings.Contains(all, tc.want) {
			t.Errorf("%s: errors %q, want %q", tc.name, all, tc.want)
		}
	}
}

func TestKeyIgnoresOrderAndDefaultPort(t *testing.T) {
	a, b := validSpec(), validSpec()
	b.Hosts[0], b.Hosts[2] = b.Hosts[2], b.Hosts[0]
	b.Hosts[0].Addr = "h2:22"
	if a.key() != b.key() {
		t.Errorf("same hosts, different keys %s %s", a.key(), b.key())
	}
	b.Hosts[0].Addr = "h3"
	if a.key() == b.key() {
		t.Error("different hosts, same key")
	}
}

func TestStateFile(t *testing.T) {
	dir := t.TempDir()
	p, copyPath := filepath.Join(dir, "s", "k.json"), filepath.Join(dir, "run", "ssh-state.json")
	f := &stateFile{paths: []string{p, copyPath}, s: State{RunID: "r1"}}
	steps := []struct {
		id      int32
		change  func(*NodeState)
		pending []int32
	}{
		{0, func(n *NodeState) { n.Rules = true }, []int32{0}},
		{2, func(n *NodeState) { n.Paused = true }, []int32{0, 2}},
		{2, func(n *NodeState) { n.Paused = false }, []int32{0}},
		{1, func(n *NodeState) { n.Down = true }, []int32{0, 1}},
		{0, func(n *NodeState) { n.Rules = false }, []int32{1}},
		{1, func(n *NodeState) { n.Down = false }, nil},
	}
	for i, st := range steps {
		if err := f.update(st.id, "h", st.change); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{p, copyPath} {
			got, err := ReadState(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.RunID != "r1" || !slicesEqual(got.Pending(), st.pending) {
				t.Errorf("step %d, %s: run %q pending %v, want %v", i, path, got.RunID, got.Pending(), st.pending)
			}
		}
	}
	missing, err := ReadState(filepath.Join(dir, "none.json"))
	if err != nil || len(missing.Pending()) != 0 {
		t.Errorf("a missing state file: %v, %v", missing, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(filepath.Join(dir, "bad.json")); err == nil {
		t.Error("a corrupt state file was read as empty")
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRemoteFilesRefuseEscapes(t *testing.T) {
	f := remoteFiles{dir: "/var/lib/kafka/data"}
	for _, p := range []string{"../etc/passwd", "/etc/passwd", "a/../../b", `a\b`} {
		if _, err := f.path(p); err == nil {
			t.Errorf("path %q was accepted", p)
		}
	}
	for p, want := range map[string]string{"": "/var/lib/kafka/data", "orders-0/x.log": "/var/lib/kafka/data/orders-0/x.log"} {
		if got, err := f.path(p); err != nil || got != want {
			t.Errorf("path %q = %q, %v; want %q", p, got, err, want)
		}
	}
}

// TestExpandHome: ~ and ~/ are the user's home, ~name/ that user's (as a
// shell reads them); a user that does not exist is an error, never a
// relative path starting with "~".
func TestExpandHome(t *testing.T) {
	t.Setenv("HOME", "/home/op")
	root, err := user.Lookup("root")
	if err != nil {
		t.Skip("no root user to expand ~root/ for")
	}
	for _, c := range []struct{ in, want string }{
		{"~/.ssh/id", "/home/op/.ssh/id"}, {"~", "/home/op"}, {"/abs/k", "/abs/k"}, {"", ""},
		{"~root/.ssh/id", filepath.Join(root.HomeDir, ".ssh/id")},
		{"~no-such-user-kchaos/k", ""},
	} {
		got, err := expandHome(c.in)
		if c.want == "" && c.in != "" {
			if err == nil {
				t.Errorf("ExpandHome(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ExpandHome(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestCheckFiles: a key or known_hosts that is missing, a folder or
// unreadable is named by its field before any connection.
func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, key, known string
		want             []string
	}{
		{"both fine", ok, ok, nil},
		{"missing key", filepath.Join(dir, "none"), ok, []string{"c.ssh.key:", "no such file"}},
		{"known_hosts a folder", ok, dir, []string{"c.ssh.known_hosts:", "not a regular file"}},
		{"unknown user", "~no-such-user-kchaos/k", ok, []string{"c.ssh.key:", "no user"}},
	} {
		s := Spec{SSH: Auth{Key: c.key, KnownHosts: c.known}}
		errs := s.CheckFiles("c")
		msg := fmt.Sprint(errs)
		if (len(c.want) == 0) != (len(errs) == 0) {
			t.Errorf("%s: errors %v, want %v", c.name, errs, c.want)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", c.name, msg, w)
			}
		}
	}
}
