package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/harness/explore"
	"github.com/kchaos/kchaos/report"
)

// TestExploreRefusedBeforeAnyCluster (issue 24, item 6): bad flags, a
// scenario the random mix cannot drive and a repro that is not a
// scenario are exit 254 naming the flag or field, before any session
// (no container, network or SSH connection) and with an empty store.
func TestExploreRefusedBeforeAnyCluster(t *testing.T) {
	dir := t.TempDir()
	key := write(t, dir, "key", "k")
	known := write(t, dir, "known_hosts", "")
	ssh := write(t, dir, "ssh.yaml", "name: onhosts\ncluster:\n  backend: ssh\n  confirm_owner: true\n  hosts: [{id: 0, addr: a}]\n"+
		"  service: {start: s, stop: t, log_dirs: [/var/lib/kafka]}\n  ssh: {user: u, key: "+key+", known_hosts: "+known+"}\n"+
		"topic: {replication_factor: 1, assignment: [[0]]}\n")
	sshRandom := write(t, dir, "sshrandom.yaml", "name: onhostsr\ncluster:\n  backend: ssh\n  confirm_owner: true\n  hosts: [{id: 0, addr: a}]\n"+
		"  service: {start: s, stop: t, log_dirs: [/var/lib/kafka]}\n  ssh: {user: u, key: "+key+", known_hosts: "+known+"}\n"+
		"topic: {replication_factor: 1, assignment: [[0]]}\nnemesis:\n  random: {seed: 1, interval: 5s, duration: 10s, faults: [netem-clients]}\n")
	notScenario := write(t, dir, "notes.txt", "these are notes, not a scenario\n")
	finding := write(t, dir, "finding.json", `{"id": "x"}`)
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"runs and for", []string{"explore", "s2", "--runs", "3", "--for", "1h"}, []string{"--runs and --for are exclusive"}},
		{"zero runs", []string{"explore", "s2", "--runs", "0"}, []string{"--runs 0: want at least 1"}},
		{"negative for", []string{"explore", "s2", "--for", "-1s"}, []string{"--for -1s: want a positive duration"}},
		{"zero shrink budget", []string{"explore", "s2", "--shrink-for", "0s"}, []string{"--shrink-for 0s"}},
		{"zero tries", []string{"explore", "s2", "--tries", "0"}, []string{"--tries 0"}},
		{"unknown strategy", []string{"explore", "s2", "--strategy", "smart"}, []string{`--strategy "smart": want random, guided or live`}},
		{"empty strategy", []string{"explore", "s2", "--strategy", ""}, []string{`--strategy "": want random, guided or live`}},
		{"shard past N", []string{"explore", "s2", "--shard", "3/2"}, []string{`--shard "3/2": want I/N with 1 <= I <= N`}},
		{"shard not I/N", []string{"explore", "s2", "--shard", "half"}, []string{`--shard "half"`}},
		{"unknown fault", []string{"explore", "s2", "--faults", "kill,kil"}, []string{`--faults: "kil" is not a fault a random schedule can draw`}},
		{"fault no heal undoes", []string{"explore", "s2", "--faults", "set-config"}, []string{`--faults: "set-config"`}},
		{"racks on a cluster without", []string{"explore", "s2", "--faults", "partition-racks"}, []string{`--faults: "partition-racks": backend docker cannot apply it`, "0 rack(s)"}},
		{"a mix the backend cannot drive", []string{"explore", ssh, "--faults", "netem,cut-clients"}, []string{`--faults: "netem": backend ssh cannot apply it`}},
		{"a random section the backend cannot drive", []string{"explore", sshRandom}, []string{"nemesis.random.faults[0]", "backend ssh does not have"}},
		{"reuse asked of an operator's cluster", []string{"explore", ssh, "--faults", "kill", "--fresh=false"}, []string{"--fresh=false", "cannot share a cluster", "backend ssh"}},
		{"reuse asked beside the metadata workload", []string{"explore", "s2", "--set", "workload.metadata.clients=1", "--fresh=false"}, []string{"--fresh=false", "kchaos-meta-"}},
		{"unknown scenario", []string{"explore", "s99"}, []string{`"s99" is neither a built-in scenario`}},
		{"bad --set", []string{"explore", "s2", "--set", "workload.acks=2"}, []string{"workload.acks"}},
		{"unknown version line", []string{"explore", "s2", "--kafka", "9.9.x"}, []string{`--kafka: "9.9.x": kchaos knows no 9.9 release`}},
		{"bisect: repro not a scenario", []string{"bisect", notScenario}, []string{notScenario + " is not a runnable scenario"}},
		{"bisect: repro missing", []string{"bisect", filepath.Join(dir, "nope.yaml")}, []string{"is not a runnable scenario"}},
		{"bisect: finding.json not a finding", []string{"bisect", write(t, filepath.Dir(finding), "repro.yaml", "name: r\n")}, []string{"finding.json beside the repro: not a finding record"}},
		{"bisect: malformed version", []string{"bisect", "s2", "--kafka", "4.4.0,9.9"}, []string{`--kafka: "9.9" is not a Kafka version`}},
		{"bisect: zero runs", []string{"bisect", "s2", "--runs", "0"}, []string{"--runs 0"}},
		{"bisect: bad vary", []string{"bisect", "s2", "--vary", "acks"}, []string{`--vary "acks"`}},
		{"suite: bad shard", []string{"suite", "--only", "s1", "--shard", "0/2"}, []string{`--shard "0/2"`}},
		{"name of an exploration folder", []string{"explore", "s2", "--set", "name=explore-s2"}, []string{`names starting with "explore-"`}},
		{"name of a bisect folder", []string{"run", "s2", "--set", "name=bisect-s2"}, []string{`names starting with "bisect-"`}},
		{"merge: not an exploration", []string{"merge", dir}, []string{"not an exploration folder"}},
		{"merge: nothing", []string{"merge"}, []string{"requires at least 1 arg"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantRefused(t, c.args, c.want) })
	}
}

// TestExploreStartsASession: valid flags reach the session (the guard),
// so the refusals above are the flags', not a command that never runs.
func TestExploreStartsASession(t *testing.T) {
	for _, args := range [][]string{
		{"explore", "s2", "--runs", "2", "--seed", "7"},
		{"explore", "s2", "--runs", "2", "--fresh"},
		{"explore", "s2", "--runs", "2", "--fresh=false"},
		{"explore", "s2", "--runs", "2", "--strategy", "guided"},
		{"explore", "../../examples/weak-leader.yaml", "--runs", "2", "--strategy", "guided", "--faults", "kill,pause"},
		{"explore", "s2", "--for", "10m", "--faults", "kill,partition-leader-followers", "--shard", "1/4"},
		{"bisect", "s2", "--kafka", "4.4.0", "--runs", "1"},
		{"suite", "--only", "s1,s2", "--kafka", "4.4.0", "--shard", "2/2"},
	} {
		code, out, started, _ := guardCLI(t, args...)
		if !started {
			t.Errorf("%v: no session started (exit %d):\n%s", args, code, out)
		}
	}
}

// TestMergeCLI: two of three shards merged: the finding is listed (exit
// 1) and shard 3 named missing; --out writes merged.md and merged.json.
func TestMergeCLI(t *testing.T) {
	shard := func(i int, findings string) string {
		d := t.TempDir()
		// Every field a real shard's explore.json has (merge refuses a
		// record without them, issue 37).
		body := `{"scenario": "s2", "kafka": "4.4.0", "started": "2026-01-01T00:00:00Z", "base_seed": 7, "shard": "` + string(rune('0'+i)) + `/3", "run_records": [{"index": ` +
			string(rune('0'+i-1)) + `, "seed": 1, "verdict": "valid"}], "findings": ` + findings + `}`
		if err := os.WriteFile(filepath.Join(d, "explore.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := shard(1, `[{"id": "000-lost-write", "class": "lost-write", "run": 0, "dir": "findings/000-lost-write", "reproduced": "3/3"}]`)
	b := shard(2, `[]`)
	out := filepath.Join(t.TempDir(), "merged")
	code, text := runCLI(t, "merge", a, b, "--out", out)
	if code != exitInvalid || !strings.Contains(text, "Missing shards: [3]") || !strings.Contains(text, "000-lost-write") {
		t.Errorf("exit %d, output:\n%s", code, text)
	}
	var m struct{ Missing []int }
	data, err := os.ReadFile(filepath.Join(out, "merged.json"))
	if err != nil || json.Unmarshal(data, &m) != nil || len(m.Missing) != 1 {
		t.Errorf("merged.json: %v %s", err, data)
	}
	if code, text := runCLI(t, "merge", b); code != exitUnknown {
		t.Errorf("one shard of three, no finding: exit %d, want %d:\n%s", code, exitUnknown, text)
	}
}

// TestMergeSuiteCLI: two suite shard folders of three become one suite
// page and junit.xml in --out; the missing shard makes it exit 2.
func TestMergeSuiteCLI(t *testing.T) {
	all := []string{"s1/-/4.4.0", "s2/-/4.4.0", "s4/-/4.4.0"}
	shard := func(i int) string {
		d := t.TempDir()
		row := report.Row{ID: all[i-1], Scenario: strings.Split(all[i-1], "/")[0], Kafka: "4.4.0", Status: "match"}
		row.Verdict = report.Valid
		if err := report.SuiteBatch(report.SuiteFile{Name: "seeds", Cells: []report.Row{row}}).Write(d); err != nil {
			t.Fatal(err)
		}
		if err := explore.WriteShard(d, explore.ShardRecord{Shard: strconv.Itoa(i) + "/3", Cells: all}); err != nil {
			t.Fatal(err)
		}
		return d
	}
	out := t.TempDir()
	code, text := runCLI(t, "merge", shard(1), shard(3), "--out", out)
	if code != exitUnknown || !strings.Contains(text, "missing shards: [2] (cells [s2/-/4.4.0])") {
		t.Errorf("exit %d:\n%s", code, text)
	}
	b, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil || !strings.Contains(string(b), "s1/-/4.4.0") || !strings.Contains(string(b), "s4/-/4.4.0") {
		t.Errorf("junit.xml: %v\n%s", err, b)
	}
}
