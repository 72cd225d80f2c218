package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/cluster"
)

// TestKafkaVersionRefused (issue 37 item 2): a version outside the grammar
// (X.Y.Z, X.Y.x, latest, local:NAME) is exit 254 before any cluster, on
// every command that takes --kafka, naming the flag and the valid forms.
// Before, "4.4", "04.04.00", "4.4.0-rc1" and "3.9.2-4.4.0" passed as local
// builds and failed at Docker (exit 255 after "cluster: starting").
func TestKafkaVersionRefused(t *testing.T) {
	brokerOK := write(t, t.TempDir(), "ok.properties", "min.insync.replicas=2\n")
	commands := map[string][]string{
		"run":              {"run", "s1"},
		"cluster up":       {"cluster", "up"},
		"matrix":           {"matrix", "s2", "--vary", "acks=1,all"},
		"suite":            {"suite", "--only", "s1"},
		"audit":            {"audit", "--broker-config", brokerOK},
		"explore":          {"explore", "s2"},
		"bisect":           {"bisect", "s2"},
		"validate":         {"validate", "s1"},
		"validate a suite": {"validate", "seeds"},
	}
	for _, v := range []string{"4.4", "04.04.00", "4.4.0-rc1", "3.9.2-4.4.0", "banana", "v4.4.0", "local:4.5.0"} {
		for name, args := range commands {
			t.Run(name+" --kafka "+v, func(t *testing.T) {
				want := []string{"--kafka: ", `"` + v + `"`}
				if v == "local:4.5.0" {
					want = append(want, "a local build is local:X.Y.Z-SUFFIX")
				} else {
					want = append(want, "is not a Kafka version (want "+cluster.VersionForms+")")
				}
				wantRefused(t, append(append([]string{}, args...), "--kafka", v), want)
			})
		}
	}
}

// TestKafkaVersionTwice: two versions that resolve to one release are one
// cell twice: refused on every command that takes a list, and a list
// where a command runs one version is refused as such.
func TestKafkaVersionTwice(t *testing.T) {
	dir := t.TempDir()
	brokerOK := write(t, dir, "ok.properties", "min.insync.replicas=2\n")
	suiteFile := write(t, dir, "twice.yaml", "name: twice\nkafka: [latest, 4.4.0]\nentries: [{scenario: s1}]\n")
	latest := `"4.4.0" is 4.4.0, as "latest" (--kafka) is`
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"matrix latest", []string{"matrix", "s2", "--kafka", "latest,4.4.0"}, []string{"--kafka: " + latest}},
		{"matrix line", []string{"matrix", "s2", "--kafka", "4.4.x,4.4.0"}, []string{`--kafka: "4.4.0" is 4.4.0, as "4.4.x" (--kafka) is`}},
		{"matrix --vary", []string{"matrix", "s2", "--vary", "kafka=latest,4.4.x"}, []string{`--vary kafka: "4.4.x" is 4.4.0, as "latest"`}},
		{"bisect", []string{"bisect", "s2", "--kafka", "latest,4.4.0"}, []string{"--kafka: " + latest}},
		{"suite", []string{"suite", "--only", "s1", "--kafka", "latest,4.4.0"}, []string{"--kafka: " + latest}},
		{"suite line", []string{"suite", "--only", "s1", "--kafka", "4.4.0,4.4.x"}, []string{`--kafka: "4.4.x" is 4.4.0, as "4.4.0" (--kafka) is`}},
		{"suite file", []string{"suite", suiteFile}, []string{suiteFile + `: kafka[1]: "4.4.0" is 4.4.0, as "latest" (kafka[0]) is`}},
		{"validate a suite", []string{"validate", "seeds", "--kafka", "latest,4.4.0"}, []string{"--kafka: " + latest}},
		{"audit runs one", []string{"audit", "--broker-config", brokerOK, "--kafka", "latest,4.4.0"}, []string{"--kafka: ", "this command runs one version"}},
		{"explore runs one", []string{"explore", "s2", "--kafka", "latest,4.4.0"}, []string{"--kafka: ", "this command runs one version"}},
		{"run runs one", []string{"run", "s1", "--kafka", "latest,4.4.0"}, []string{"--kafka: ", "this command runs one version"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantRefused(t, c.args, c.want) })
	}
}

// TestKafkaVersionInFiles: a version written in a file is blamed on the
// file and its field, never on --kafka, which was not given.
func TestKafkaVersionInFiles(t *testing.T) {
	dir := t.TempDir()
	banana := write(t, dir, "banana.yaml", "name: banana\nkafka: [banana]\nentries: [{scenario: s1}]\n")
	scen := write(t, dir, "scen.yaml", "name: scen\ncluster:\n  kafka: 4.4.0-rc1\n")
	upgrade := write(t, dir, "up.yaml", "name: up\ncluster:\n  kafka: 3.9.2\nnemesis:\n  steps:\n    - fault: upgrade\n      version: 04.04.00\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"suite kafka:", []string{"suite", banana}, []string{banana + `: kafka[0]: "banana" is not a Kafka version (want X.Y.Z, X.Y.x, latest or local:NAME)`}},
		{"validate suite kafka:", []string{"validate", banana}, []string{banana + `: kafka[0]: "banana" is not a Kafka version`}},
		{"scenario cluster.kafka", []string{"run", scen}, []string{scen, `cluster: kafka: "4.4.0-rc1" is not a Kafka version`}},
		{"upgrade step version", []string{"run", upgrade}, []string{upgrade, `nemesis.steps[0].version: "04.04.00" is not a Kafka version`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantRefused(t, c.args, c.want)
			if _, out, _, _ := guardCLI(t, c.args...); strings.Contains(out, "--kafka") {
				t.Errorf("blames --kafka, which was not given:\n%s", out)
			}
		})
	}
}

// TestKafkaVersionAccepted: a release kchaos does not list (a new patch:
// 4.4.1; 4.3.2 before it was listed; a new line) and a local build pass
// validation and reach the cluster session (the guard stops them there);
// X.Y.x and latest run as the release they resolve to.
func TestKafkaVersionAccepted(t *testing.T) {
	for _, v := range []string{"4.3.2", "4.4.1", "4.1.9", "5.0.0", "local:4.5.0-SNAPSHOT"} {
		for _, args := range [][]string{
			{"run", "s1", "--kafka", v},
			{"matrix", "s2", "--kafka", "4.4.0," + v},
			{"suite", "--only", "s1", "--kafka", "3.9.x," + v},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, started, _ := guardCLI(t, args...)
				if !started {
					t.Errorf("exit %d, no session started; want validation passed:\n%s", code, out)
				}
			})
		}
	}
	for in, want := range map[string]string{"4.4.1": "kafka: 4.4.1", "4.3.x": "kafka: 4.3.2", "latest": "kafka: " + cluster.DefaultKafkaVersion,
		"local:4.5.0-SNAPSHOT": "kafka: local:4.5.0-SNAPSHOT"} {
		code, out, _, _ := guardCLI(t, "validate", "s1", "--kafka", in)
		if code != exitValid || !strings.Contains(out, want) {
			t.Errorf("validate s1 --kafka %s: exit %d, want 0 and %q:\n%s", in, code, want, out)
		}
	}
}

// TestVersionsAvailable: --available asks Maven (a stand-in here, as
// Maven answers: the resolved pom's path, the registry's metadata beside
// it) and prints the releases from 3.9 on, oldest first, one a line.
func TestVersionsAvailable(t *testing.T) {
	repo := t.TempDir()
	art := filepath.Join(repo, "org", "apache", "kafka", "kafka_2.13")
	if err := os.MkdirAll(filepath.Join(art, "4.4.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := func(vs ...string) string {
		return "<metadata><versioning><versions><version>" + strings.Join(vs, "</version><version>") + "</version></versions></versioning></metadata>"
	}
	write(t, art, "maven-metadata-central.xml", meta("2.8.0", "3.8.1", "3.9.0", "4.3.2", "4.10.0", "4.4.0", "4.4.0-rc1"))
	write(t, art, "maven-metadata-mirror.xml", meta("4.4.0", "4.4.1"))
	write(t, art, "maven-metadata-local.xml", meta("4.5.0-SNAPSHOT", "4.6.0"))
	script := write(t, t.TempDir(), "mvn.sh", `for a; do case $a in -DoutputFile=*) out=${a#-DoutputFile=};; esac; done
[ -n "$FAIL" ] && { echo "[ERROR] Could not resolve org.apache.kafka:kafka_2.13:[3.9.0,)"; exit 1; }
printf 'The following files have been resolved:\n   org.apache.kafka:kafka_2.13:pom:4.4.0:compile:%s\n' "$REPO/org/apache/kafka/kafka_2.13/4.4.0/kafka_2.13-4.4.0.pom" > "$out"
`)
	old := mvnCommand
	mvnCommand = []string{"sh", script}
	t.Cleanup(func() { mvnCommand = old })
	t.Setenv("REPO", repo)
	code, out := runCLI(t, "versions", "--available")
	if want := "3.9.0\n4.3.2\n4.4.0\n4.4.1\n4.10.0\n"; code != exitValid || out != want {
		t.Errorf("versions --available: exit %d, output %q; want 0, %q", code, out, want)
	}
	t.Setenv("FAIL", "1")
	if code, out := runCLIErr(t, "versions", "--available"); code != exitInternal || !strings.Contains(out, "Could not resolve") {
		t.Errorf("Maven failing: exit %d, %q; want %d with Maven's message", code, out, exitInternal)
	}
	mvnCommand = []string{filepath.Join(t.TempDir(), "no-mvn")}
	if code, out := runCLIErr(t, "versions", "--available"); code != exitInternal || !strings.Contains(out, "is not installed") {
		t.Errorf("no Maven: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"versions", "--available", "s1"}, {"versions", "--available", "--default"}, {"versions", "--default", "--available", "s1"}} {
		if code, _ := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want %d", args, code, exitBadInput)
		}
	}
}
