package harness

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/internal/bounds"
	"github.com/kchaos/kchaos/report"
	"github.com/kchaos/kchaos/workloads"
)

// TestReadClientConfigs: a client file is read by the one properties
// parser, with Java's syntax; a bad line is named by file and line, a
// file over the input bound by its size.
func TestReadClientConfigs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		want      map[string]string
		err       []string
	}{
		{"equals, colon, blank", "acks=all\nretries: 3\nlinger.ms 5\n", map[string]string{"acks": "all", "retries": "3", "linger.ms": "5"}, nil},
		{"comments and blanks", "# a comment\n! another\n\n   \nacks = 1\n", map[string]string{"acks": "1"}, nil},
		{"continuation", "compression.type=l\\\n    z4\n", map[string]string{"compression.type": "lz4"}, nil},
		{"escapes", "client.rack=a\\:b\\=c\\u0041\\tx\n", map[string]string{"client.rack": "a:b=cA\tx"}, nil},
		{"escaped key", "a\\ b=1\n", map[string]string{"a b": "1"}, nil},
		{"last wins", "acks=1\nacks=all\n", map[string]string{"acks": "all"}, nil},
		{"CRLF", "acks=all\r\nlinger.ms=5\r\n", map[string]string{"acks": "all", "linger.ms": "5"}, nil},
		{"yaml", "", nil, nil},
		{"bad unicode escape", "acks=all\nlinger.ms=\\uZZZZ\n", nil, []string{"--producer-config", "p.properties: line 2: invalid unicode literal"}},
		{"bad escape in a key, line 3", "acks=all\n\n\\u12=1\n", nil, []string{"p.properties: line 3"}},
		{"too large", strings.Repeat("# padding\n", bounds.InputFile/10+1), nil, []string{"p.properties: too large"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "p.properties")
			src := tc.src
			if tc.name == "yaml" {
				file = filepath.Join(dir, "p.yaml")
				src, tc.want = "acks: all\nlinger.ms: 5\n", map[string]string{"acks": "all", "linger.ms": "5"}
			}
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadClientConfigs(file, "")
			if len(tc.err) > 0 {
				var bad *scenario.BadInputError
				if err == nil || !errors.As(err, &bad) {
					t.Fatalf("err %v, want bad input", err)
				}
				for _, w := range tc.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err %v lacks %q", err, w)
					}
				}
				return
			}
			if err != nil || got.Consumer != nil || !maps.Equal(got.Producer.Props, tc.want) {
				t.Fatalf("%+v, %v; want %v", got.Producer, err, tc.want)
			}
			if got.Producer.Side != workloads.ProducerSide || !strings.HasPrefix(got.Producer.Source(), "--producer-config ") {
				t.Errorf("side %s, source %s", got.Producer.Side, got.Producer.Source())
			}
		})
	}
}

// loadWithClients loads a built-in as run does (scenario.Load with the
// sets), then applies the client files with the same sets.
func loadWithClients(t *testing.T, name string, producer, consumer map[string]string, sets ...string) (*scenario.Scenario, error) {
	t.Helper()
	s, err := scenario.Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	var c ClientConfigs
	if producer != nil {
		c.Producer = &workloads.ClientProps{Side: workloads.ProducerSide, File: "--producer-config p.properties", Props: producer}
	}
	if consumer != nil {
		c.Consumer = &workloads.ClientProps{Side: workloads.ConsumerSide, File: "--consumer-config c.properties", Props: consumer}
	}
	return s, ApplyClientConfigs(s, c, sets)
}

// TestClientConfigPrecedence: the scenario, then the file, then --set.
func TestClientConfigPrecedence(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("driver java needs a JRE to validate")
	}
	file := map[string]string{"acks": "1", "retries": "2", "request.timeout.ms": "4000", "linger.ms": "5", "batch.size": "1000"}
	cons := map[string]string{"isolation.level": "read_committed", "fetch.max.wait.ms": "100"}
	// The file over s1's workload (acks all, request_timeout 3s, retries 0).
	s, err := loadWithClients(t, "s1", file, cons, "workload.driver=java")
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workload
	if w.Acks != "1" || w.Retries != 2 || w.RequestTimeout.Std().Milliseconds() != 4000 || w.Producers != 4 ||
		w.ProducerProps["linger.ms"] != "5" || w.Isolation != "read_committed" || w.ConsumerProps["fetch.max.wait.ms"] != "100" {
		t.Errorf("file over scenario: %+v", w)
	}
	// A --set over the file, for a mapped key and a verbatim one.
	s, err = loadWithClients(t, "s1", file, cons, "workload.driver=java", "workload.acks=all", "workload.producer_props.linger.ms=9",
		"workload.isolation=read_uncommitted")
	if err != nil {
		t.Fatal(err)
	}
	w = s.Workload
	if w.Acks != "all" || w.ProducerProps["linger.ms"] != "9" || w.ProducerProps["batch.size"] != "1000" || w.Retries != 2 || w.Isolation != "read_uncommitted" {
		t.Errorf("--set over file: acks %s, retries %d, isolation %s, props %v", w.Acks, w.Retries, w.Isolation, w.ProducerProps)
	}
	// run.json's producer section records what the clients ran with.
	if info := w.ProducerInfo(); info.Props["batch.size"] != "1000" || info.ConsumerProps["fetch.max.wait.ms"] != "100" {
		t.Errorf("producer info %+v", info)
	}
}

// TestClientConfigRefusedPerDriver: the same file is refused for a Go
// driver, naming the key and the driver, and the whole scenario is still
// validated with the file's settings (naming the files).
func TestClientConfigRefusedPerDriver(t *testing.T) {
	_, err := loadWithClients(t, "s1", map[string]string{"linger.ms": "5", "acks": "all"}, nil)
	if err == nil || !strings.Contains(err.Error(), "--producer-config p.properties: linger.ms: no meaning for driver franz") {
		t.Errorf("linger.ms on franz: %v", err)
	}
	_, err = loadWithClients(t, "s1", nil, map[string]string{"isolation.level": "read_committed"}, "workload.driver=kafka-go")
	if err == nil || !strings.Contains(err.Error(), "isolation.level: driver kafka-go") {
		t.Errorf("read_committed on kafka-go: %v", err)
	}
	// Valid field by field, invalid together: the scenario's check runs.
	_, err = loadWithClients(t, "s1", map[string]string{"acks": "1", "enable.idempotence": "true", "retries": "1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "s1 with --producer-config p.properties") || !strings.Contains(err.Error(), "needs acks=all") {
		t.Errorf("idempotence with acks 1: %v", err)
	}
}

// TestAuditStatesClientSettings: an audit applies the client files to
// every story and its page states them beside the broker settings.
func TestAuditStatesClientSettings(t *testing.T) {
	opts := AuditOptions{BrokerConfig: map[string]string{"min.insync.replicas": "2"},
		Clients: ClientConfigs{Producer: &workloads.ClientProps{Side: workloads.ProducerSide, File: "--producer-config p",
			Props: map[string]string{"acks": "1", "retries": "2"}}}}
	stories, _, err := planAudit(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stories {
		if s.Workload.Acks != "1" || s.Workload.Retries != 2 {
			t.Errorf("%s: acks %s retries %d", s.Name, s.Workload.Acks, s.Workload.Retries)
		}
	}
	plan, err := AuditPlan(opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := plan.Batch([]report.Row{}).Write(dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "audit.md"))
	js, _ := os.ReadFile(filepath.Join(dir, "audit.json"))
	for _, w := range []string{"Client settings", "driver: `franz`", "producer: `acks` = 1", "producer: `retries` = 2", "consumer: `isolation.level` = read_uncommitted"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("audit.md lacks %q:\n%s", w, md)
		}
	}
	if !strings.Contains(string(js), `"client"`) || !strings.Contains(string(js), `"retries": "2"`) {
		t.Errorf("audit.json lacks the client settings:\n%s", js)
	}
	// A --set wins over the file in an audit too.
	opts.Sets = []string{"workload.acks=all"}
	if stories, _, err = planAudit(opts); err != nil || stories[0].Workload.Acks != "all" {
		t.Errorf("audit --set over the file: %v", err)
	}
}
