//go:build integration

package harness_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/histories"
)

// tieredScenario: one partition on three brokers with a remote tier;
// segments roll every 2 s and leave the brokers' disks 2 s after they are
// copied, so most of the 25 s of writes live only in the remote tier by
// the final read.
const tieredScenario = `name: tiered-read-back
cluster:
  brokers: 3
  tiered: {segment_ms: 2000, local_retention_ms: 2000, task_interval_ms: 1000}
topic:
  name: orders
  partitions: 1
  replication_factor: 3
  configs:
    min.insync.replicas: "2"
workload:
  driver: franz
  producers: 2
  acks: all
  consumers: 1
  duration: 25s
final:
  read_timeout: 90s
`

// TestTieredReadBackThroughRemote: data reaches the remote tier during the
// run (the observer sees the highest remote offset rise; the remote
// directory holds segments) and the final read, from the log start, reads
// it back whole through the remote tier: records below the leader's local
// log start, which only the remote tier holds, are in it, and nothing
// acked is lost or passed by the log start.
func TestTieredReadBackThroughRemote(t *testing.T) {
	f := filepath.Join(t.TempDir(), "tiered.yaml")
	if err := os.WriteFile(f, []byte(tieredScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, f)
	r.wantValidNoLoss(t, "tiered")
	if n := r.count(checker.LogStartJump); n != 0 {
		t.Errorf("tiered: %d log-start-jump, want none", n)
	}

	// The observer saw data tiered during the run.
	var remoteSeen int64 = -1
	eachValue(t, r.events, observe, func(_ histories.Event, v histories.ObserveValue) {
		if v.HighestRemoteOffset != nil && *v.HighestRemoteOffset > remoteSeen {
			remoteSeen = *v.HighestRemoteOffset
		}
	})
	if remoteSeen < 0 {
		t.Errorf("tiered: the observer never saw a highest remote offset >= 0")
	}

	// The final read: from the log start to its end with no gap, and the
	// records below the local log start (served from the remote tier).
	var final *histories.ReadResult
	for _, e := range r.events {
		if e.F == histories.FFinalRead && e.Type == histories.OK {
			var v histories.ReadResult
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			final = &v
		}
	}
	if final == nil {
		t.Fatal("tiered: no completed final read")
	}
	start, end := final.StartOffsets["0"], final.EndOffsets["0"]
	local, hasLocal := final.LocalStartOffsets["0"]
	remote, hasRemote := final.HighestRemoteOffsets["0"]
	t.Logf("tiered: final read [%d, %d), local log start %d, highest remote offset %d, %d records",
		start, end, local, remote, len(final.Records))
	if !hasLocal || !hasRemote || remote < 0 {
		t.Fatalf("tiered: final read lacks the tier offsets (local %v, remote %v)", final.LocalStartOffsets, final.HighestRemoteOffsets)
	}
	if start != 0 {
		t.Errorf("tiered: log start %d, want 0 (retention keeps everything)", start)
	}
	if local <= start {
		t.Errorf("tiered: local log start %d not past the log start %d: no segment left the brokers' disks", local, start)
	}
	if int64(len(final.Records)) != end-start {
		t.Errorf("tiered: %d records read in [%d, %d): want every offset (no transactions, no markers)", len(final.Records), start, end)
	}
	fromRemote := 0
	for i, rec := range final.Records {
		if rec.Offset != start+int64(i) {
			t.Fatalf("tiered: record %d at offset %d, want %d", i, rec.Offset, start+int64(i))
		}
		if rec.Offset < local {
			fromRemote++
		}
	}
	if fromRemote == 0 {
		t.Errorf("tiered: no record below the local log start %d in the final read", local)
	}
	// Every acked send below the local log start is among them.
	acked := 0
	held := map[string]bool{}
	for _, rec := range final.Records {
		held[rec.Value] = true
	}
	eachValue(t, r.events, okOf(histories.FSend), func(_ histories.Event, v histories.SendValue) {
		if v.Offset != nil && *v.Offset < local {
			acked++
			if !held[v.Value] {
				t.Errorf("tiered: acked %s at offset %d (remote tier) missing from the final read", v.Value, *v.Offset)
			}
		}
	})
	if acked == 0 {
		t.Errorf("tiered: no acked send below the local log start %d", local)
	}
	t.Logf("tiered: %d records read from the remote tier, %d of them acked sends", fromRemote, acked)

	// The remote directory, as the run left it, holds the topic's segments.
	b, err := os.ReadFile(filepath.Join(r.out.Dir, harness.RemoteTierFile))
	if err != nil {
		t.Fatal(err)
	}
	var files []harness.RemoteFile
	if err := json.Unmarshal(b, &files); err != nil {
		t.Fatal(err)
	}
	segs := 0
	for _, f := range files {
		if strings.HasPrefix(f.Path, "orders-0-") && strings.HasSuffix(f.Path, ".log") && f.Size > 0 {
			segs++
		}
	}
	if segs == 0 {
		t.Errorf("tiered: remote tier holds no segment of orders-0: %v", files)
	}
	t.Logf("tiered: %d segments of orders-0 in the remote tier (%d files)", segs, len(files))
}

// r1Story asserts that r1's story played on version: three leader moves,
// data tiered, and size retention at work (the log start moved); it
// returns the run.
func r1Story(t *testing.T, version string) scenarioRun {
	t.Helper()
	r := runScenario(t, "r1", "cluster.kafka="+version)
	if n := len(r.nemesisOps(t, histories.FRestart)); n != 3 {
		t.Errorf("r1 on %s: %d restarts, want 3", version, n)
	}
	leaders := map[int32]bool{}
	var remote, start int64 = -1, 0
	eachValue(t, r.events, observe, func(_ histories.Event, v histories.ObserveValue) {
		if v.Leader >= 0 {
			leaders[v.Leader] = true
		}
		if v.HighestRemoteOffset != nil {
			remote = max(remote, *v.HighestRemoteOffset)
		}
		if v.LogStartOffset != nil {
			start = max(start, *v.LogStartOffset)
		}
	})
	t.Logf("r1 on %s: leaders %v, highest remote offset %d, log start reached %d; lost-write %d, log-start-jump %d",
		version, leaders, remote, start, r.count(checker.LostWrite), r.count(checker.LogStartJump))
	for _, e := range r.res.Explanations {
		if e.Kind == checker.LogStartJump {
			t.Logf("r1 on %s: %s", version, e.Text)
		}
	}
	if len(leaders) < 2 || remote < 0 || start == 0 {
		t.Errorf("r1 on %s: the story did not play: leaders %v, highest remote offset %d, log start %d (want leader moves, data tiered, size retention)",
			version, leaders, remote, start)
	}
	return r
}

// TestScenarioR1Fixed: on 4.4.0, which carries KAFKA-20732's fix (its
// RLMExpirationTask seeds the highest remote offset first), size retention
// under leader moves keeps everything it should: no lost write, no
// log-start-jump.
func TestScenarioR1Fixed(t *testing.T) {
	allScenarios(t) // the tiered read-back represents tiered storage in make test
	r := r1Story(t, "4.4.0")
	if n := r.count(checker.LostWrite) + r.count(checker.LogStartJump); n != 0 {
		t.Errorf("r1 on 4.4.0: lost-write %d, log-start-jump %d, want 0 (the fix is in)", r.count(checker.LostWrite), r.count(checker.LogStartJump))
	}
}

// TestScenarioR1Affected runs r1 on 4.3.1, which lacks the fix. The bug is
// a race per leader move, so one run may or may not show it: the test
// asserts the story played and logs what the checker found (measured
// rates belong in the findings suite, `--runs`). It needs the 4.3.1
// image, which make test-scenarios builds.
func TestScenarioR1Affected(t *testing.T) {
	allScenarios(t)
	r1Story(t, "4.3.1")
}
