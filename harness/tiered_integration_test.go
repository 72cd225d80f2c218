//go:build integration

package harness_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/scenario"
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

// r1Story asserts that r1's story played on version and returns the run:
// data in the remote tier on every partition before the moves; the
// producers stopped; four clean restarts; and the window the scenario
// drives: after the producers stopped, partition 0's leadership went at
// least twice to a broker back from its restart less than a task interval
// (cluster.tiered.task_interval_ms) before, whose follower task had not
// yet learned the highest offset in remote storage.
func r1Story(t *testing.T, version string) scenarioRun {
	t.Helper()
	s, err := scenario.Load("r1", nil)
	if err != nil {
		t.Fatal(err)
	}
	interval := s.Cluster.Tiered.TaskIntervalMS * int64(time.Millisecond)
	r := runScenario(t, "r1", "cluster.kafka="+version)
	stops := r.nemesisOK(t, histories.FStopProducers)
	if len(stops) != 1 {
		t.Fatalf("r1 on %s: %d stop-producers, want 1", version, len(stops))
	}
	stopAt := stops[0].at
	back := map[int32][]int64{} // each broker's restarts, when it was back (unfenced)
	restarts := r.nemesisOK(t, histories.FRestart)
	for _, op := range restarts {
		for _, n := range op.v.Nodes {
			back[n] = append(back[n], op.at)
		}
	}
	if len(restarts) != 4 {
		t.Errorf("r1 on %s: %d restarts, want 4", version, len(restarts))
	}
	leader, fresh, moves := int32(-1), 0, 0
	tiered := map[int32]bool{}
	var start int64
	eachValue(t, r.events, observe, func(e histories.Event, v histories.ObserveValue) {
		if e.Time < stopAt {
			if v.HighestRemoteOffset != nil && *v.HighestRemoteOffset >= 0 {
				tiered[v.Partition] = true
			}
			if v.LogStartOffset != nil {
				start = max(start, *v.LogStartOffset)
			}
		}
		if v.Partition != 0 || v.Leader < 0 || v.Leader == leader {
			return
		}
		prev := leader
		leader = v.Leader
		if prev < 0 || e.Time < stopAt {
			return
		}
		moves++
		var since int64 = -1
		for _, at := range back[v.Leader] {
			if at <= e.Time {
				since = e.Time - at
			}
		}
		t.Logf("r1 on %s: at %.1f s partition 0's leader %d -> %d, back from its restart %.1f s before",
			version, float64(e.Time)/1e9, prev, v.Leader, float64(since)/1e9)
		if since >= 0 && since < interval {
			fresh++
		}
	})
	t.Logf("r1 on %s: partitions tiered before the stop %v, log start reached then %d; %d moves, %d to a broker restarted within %v; lost-write %d, log-start-jump %d",
		version, tiered, start, moves, fresh, time.Duration(interval), r.count(checker.LostWrite), r.count(checker.LogStartJump))
	for _, e := range r.res.Explanations {
		if e.Kind == checker.LogStartJump {
			t.Logf("r1 on %s: %s", version, e.Text)
		}
	}
	if len(tiered) < s.Topic.Partitions {
		t.Errorf("r1 on %s: before the stop, partitions with data in the remote tier %v, want all %d",
			version, tiered, s.Topic.Partitions)
	}
	if fresh < 2 {
		t.Errorf("r1 on %s: %d of %d leader moves went to a broker restarted within %v: the window was not driven",
			version, fresh, moves, time.Duration(interval))
	}
	return r
}

// TestScenarioR1Fixed: on 4.4.0, which carries KAFKA-20732's fix (its
// RLMExpirationTask seeds the highest remote offset first), size retention
// on the freshly restarted leaders keeps everything it should: no lost
// write, no log-start-jump.
func TestScenarioR1Fixed(t *testing.T) {
	allScenarios(t) // the tiered read-back represents tiered storage in make test
	r := r1Story(t, "4.4.0")
	if n := r.count(checker.LostWrite) + r.count(checker.LogStartJump); n != 0 {
		t.Errorf("r1 on 4.4.0: lost-write %d, log-start-jump %d, want 0 (the fix is in)", r.count(checker.LostWrite), r.count(checker.LogStartJump))
	}
}

// TestScenarioR1Affected runs r1 on 4.3.1, which lacks the fix, and
// asserts the bug from the history: a log-start-jump after the producers
// stopped (nothing was written, so size retention had nothing new to
// delete), past acked records that retention.bytes keeps, and nothing lost
// above the log start (lost-write 0: the records are gone below it). It
// needs the 4.3.1 image, which make test-scenarios builds.
func TestScenarioR1Affected(t *testing.T) {
	allScenarios(t)
	r := r1Story(t, "4.3.1")
	if n := r.count(checker.LostWrite); n != 0 {
		t.Errorf("r1 on 4.3.1: lost-write %d, want 0 (the bug loses records below the log start)", n)
	}
	stopAt := r.nemesisOK(t, histories.FStopProducers)[0].at
	jumps := 0
	for _, j := range r.res.Anomalies.LogStartJump {
		if j.At <= stopAt {
			t.Errorf("r1 on 4.3.1: log-start-jump on %s at %.1f s, before the producers stopped at %.1f s", j.Partition, float64(j.At)/1e9, float64(stopAt)/1e9)
		}
		jumps += j.Kept
	}
	if len(r.res.Anomalies.LogStartJump) == 0 || jumps == 0 {
		t.Fatalf("r1 on 4.3.1: no log-start-jump: KAFKA-20732 did not show (a fresh leader's copy task seeded the highest remote offset before its expiration task ran, on every partition and move)")
	}
	t.Logf("r1 on 4.3.1 FINDING: %d log-start-jumps, %d acked records below the log start that retention.bytes keeps",
		len(r.res.Anomalies.LogStartJump), jumps)
}
