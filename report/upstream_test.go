package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// upstreamScenario is a run's scenario.yaml with one step of each sort:
// a translated fault, a heal, a wait, an until and a fault kind with no
// translation (netem).
const upstreamScenario = `name: s2
topic:
  name: orders
  assignment: [[0, 1, 2]]
  configs: {min.insync.replicas: "1", unclean.leader.election.enable: "false"}
workload: {producers: 4, acks: all, request_timeout: 3s}
nemesis:
  steps:
    - wait: 5s
    - fault: partition
      shape: leader-followers
      target: {role: leader, partition: 0}
    - until: {partition: 0, isr: [0]}
      timeout: 30s
    - fault: kill
      target: {role: nodes, nodes: [0]}
    - fault: set-config
      config: {unclean.leader.election.enable: "true"}
    - fault: netem
      delay: 100ms
      target: {role: nodes, nodes: [1]}
    - heal: partition
`

// TestUpstream: the JIRA text of a run folder and of an explore finding
// folder: every section, the steps as Kafka's tools do them (one line a
// step, an honest kchaos step where no translation exists), the checker's
// explanations as the actual outcome, and the bisect's releases.
func TestUpstream(t *testing.T) {
	run := t.TempDir()
	s2Run(t, run, true)
	if err := os.WriteFile(filepath.Join(run, scenarioFile), []byte(upstreamScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	finding := t.TempDir()
	s2Run(t, filepath.Join(finding, "repro-run"), true)
	for _, f := range []struct{ name, text string }{
		{"finding.json", `{"class": "lost-write"}`},
		{"repro.yaml", upstreamScenario},
		{"bisect.json", `{"repro": "repro.yaml", "rows": [{"settings": "kafka=4.0.2", "kafka": "4.0.2", "runs": 3, "reproduced": 3}, {"settings": "kafka=4.4.0", "kafka": "4.4.0", "runs": 3, "reproduced": 0}]}`},
	} {
		if err := os.WriteFile(filepath.Join(finding, f.name), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	common := []string{
		"h2. Summary\n\n3 acknowledged records lost, 3 offsets given to two different records on Kafka 4.1.2 (acks=all, unclean.leader.election.enable=true), RF 3, after partition, kill, set-config",
		"* Kafka 4.1.2, KRaft: 0 controller(s), 3 broker(s)",
		"# `kafka-topics.sh --bootstrap-server broker0:9092 --create --topic orders --replica-assignment 0:1:2 --config min.insync.replicas=1 --config unclean.leader.election.enable=false`.\n",
		"# Produce continuously to the topic with 4 producer(s), acks=all, request.timeout.ms 3s",
		"# Wait 5s.\n# Cut the partition's leader from its followers",
		"# Wait until `kafka-topics.sh --bootstrap-server broker0:9092 --describe --topic orders` shows isr [0], partition 0 (up to 30s).\n",
		"# On broker 0: `kill -9 $(pgrep -f kafka.Kafka)`",
		"# `kafka-configs.sh --bootstrap-server broker0:9092 --alter --entity-type topics --entity-name orders --add-config unclean.leader.election.enable=true`.\n",
		"# (kchaos step: {delay: 100ms, fault: netem, target: {nodes: [1], role: nodes}})\n",
		"# Remove the iptables rules on every node (`iptables -F`).\n",
		"* Every record the leader acknowledged (acks=all) is in the partition's log",
		"* orders-0 offsets 10-12: 3 acked records lost; acked while ISR was [0]; broker 1 became leader at epoch 1 by unclean election at 5.5 s",
		"The run kept no broker logs.",
		"{code:yaml}\nname: s2\n",
	}
	for _, tc := range []struct {
		name, dir string
		opts      UpstreamOptions
		want      []string
	}{
		{"a run folder", run, UpstreamOptions{}, append(common, "Kafka 4.1.2 (this run; not bisected across releases).", "`kchaos run scenario.yaml --kafka 4.1.2`")},
		{"an explore finding with its bisect", finding, UpstreamOptions{},
			append(common, "* 4.0.2: reproduced in 3 of 3 runs\n* 4.4.0: not reproduced in 0 of 3 runs", "`kchaos run repro.yaml --kafka 4.1.2`")},
		{"a run folder and a bisect folder", run, UpstreamOptions{Bisect: finding}, []string{"* 4.0.2: reproduced in 3 of 3 runs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := Upstream(tc.dir, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the text lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestUpstreamBadFolder: a folder that is not a checked run, a finding
// without its run, or a bisect folder without bisect.json is bad input
// naming the folder and the file.
func TestUpstreamBadFolder(t *testing.T) {
	empty := t.TempDir()
	noRun := t.TempDir()
	os.WriteFile(filepath.Join(noRun, "finding.json"), []byte("{}"), 0o644)
	unchecked := t.TempDir()
	s2Run(t, unchecked, false)
	os.Remove(filepath.Join(unchecked, ResultsFile))
	run := t.TempDir()
	s2Run(t, run, true)
	for _, tc := range []struct {
		name, dir string
		opts      UpstreamOptions
		want      string
	}{
		{"missing", filepath.Join(empty, "nope"), UpstreamOptions{}, "nope: not a folder"},
		{"empty", empty, UpstreamOptions{}, "not a checked run folder: run.json"},
		{"unchecked", unchecked, UpstreamOptions{}, "not a checked run folder: results.json"},
		{"a finding without its run", noRun, UpstreamOptions{}, "a finding folder without repro-run/ or original-run/"},
		{"a bisect folder without bisect.json", run, UpstreamOptions{Bisect: empty}, "bisect.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Upstream(tc.dir, tc.opts)
			var fe *UpstreamFolderError
			if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an UpstreamFolderError containing %q", err, tc.want)
			}
		})
	}
}

// TestUpstreamWordsForOrderKinds: the summary and the expectations name
// the log and order kinds in words a Kafka reader knows, and a kind that
// does not count here (a duplicate of a producer that was not idempotent)
// promises nothing.
func TestUpstreamWordsForOrderKinds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		idempotent bool
		want, not  []string
	}{
		{"idempotent", true,
			[]string{"* A producer's later acknowledged record on a partition has a higher offset", "* An idempotent producer's record is in the partition's log once.",
				"* A consumer reading a partition in order sees every record between two of its polls."}, nil},
		{"not idempotent", false,
			[]string{"* A consumer reading a partition in order sees every record between two of its polls."},
			[]string{"idempotent producer's record", "higher offset"}},
	} {
		res := &results{Idempotent: tc.idempotent, Counts: map[string]int{"duplicate": 2, "nonmonotonic-send": 3, "poll-skip": 1}}
		got := strings.Join(expected(res, "all"), "\n")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: expectations lack %q:\n%s", tc.name, w, got)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: expectations say %q for a kind that does not count:\n%s", tc.name, w, got)
			}
		}
		if strings.Contains(got, "docs/checker.md") {
			t.Errorf("%s: a kind without words:\n%s", tc.name, got)
		}
	}
	for _, k := range []string{"duplicate", "aborted-read", "unexpected", "nonmonotonic-send", "poll-skip", "nonmonotonic-poll"} {
		if upstreamNoun(k) == k {
			t.Errorf("%s has no words in the summary", k)
		}
	}
}
