package brokerlogs

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		in                    string
		ok                    bool
		wall, level, msg, lgr string
	}{
		{"[2026-12-01 10:47:34,063] INFO [UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] Truncating to offset 5341 (org.apache.kafka.storage.internals.log.UnifiedLog)",
			true, "2026-12-01T10:47:34.063Z", "INFO", "[UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] Truncating to offset 5341", "org.apache.kafka.storage.internals.log.UnifiedLog"},
		{"[2026-12-01 10:46:51,177] INFO KafkaConfig values: ", true, "2026-12-01T10:46:51.177Z", "INFO", "KafkaConfig values: ", ""},
		{"[2026-12-01 10:50:27,765] FATAL Shutdown broker because all log dirs in /d have failed (kafka.log.LogManager)",
			true, "2026-12-01T10:50:27.765Z", "FATAL", "Shutdown broker because all log dirs in /d have failed", "kafka.log.LogManager"},
		{"\tadd.partitions.to.txn.retry.backoff.ms = 20", false, "", "", "", ""},
		{"kchaos-entrypoint: formatting /var/lib/kafka/data (cluster x)", false, "", "", "", ""},
		{"org.apache.kafka.common.errors.NotEnoughReplicasException: The size", false, "", "", "", ""},
		{"[2026-13-01 10:50:27,765] INFO bad month", false, "", "", "", ""},
		{"[2026-12-01 10:50:27,765] NOTICE not a level", false, "", "", "", ""},
	} {
		e, ok := parseLine(tc.in, time.UTC)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if w := e.Wall.Format(time.RFC3339Nano); w != tc.wall || e.Level != tc.level || e.Message != tc.msg || e.Logger != tc.lgr {
			t.Errorf("%q:\n got %s %s %q %q\nwant %s %s %q %q", tc.in, w, e.Level, e.Message, e.Logger, tc.wall, tc.level, tc.msg, tc.lgr)
		}
	}
}

// TestMatchRealMessages: every rule against a message as a real broker or
// controller wrote it (Kafka 4.4.0, from the fixtures), and near misses
// that must not match.
func TestMatchRealMessages(t *testing.T) {
	for _, tc := range []struct {
		msg, name, fields string
	}{
		{"[UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] Truncating to offset 5341",
			MTruncate, "map[offset:5341 partition:orders-0]"},
		{"[UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] Truncating orders-0 to offset 1929 below high watermark 11105",
			MTruncateBelowHW, "map[high_watermark:11105 offset:1929 partition:orders-0]"},
		{"[UnifiedLog partition=orders-0, dir=/d] Truncating future orders-0 to offset 3 below high watermark 9",
			MTruncateBelowHW, "map[high_watermark:9 offset:3 partition:orders-0]"},
		{"[ReplicaFetcher replicaId=0, leaderId=1, fetcherId=0] Truncating partition orders-0 with TruncationState(offset=5341, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=5341)",
			MDivergence, "map[end_offset:5341 leader:1 leader_epoch:0 offset:5341 partition:orders-0 replica:0]"},
		{"[QuorumController id=1000] UNCLEAN partition change for orders-0 with topic ID pqL0YCQvQIu1VQwLRfdcug: isr: [] -> [1], leader: -1 -> 1, leaderRecoveryState: RECOVERED -> RECOVERING, leaderEpoch: 2 -> 3, lastKnownElr: [1] -> [], partitionEpoch: 5 -> 6",
			MUncleanElection, "map[leader:1 leader_epoch:3 partition:orders-0 previous_leader:-1 previous_leader_epoch:2]"},
		{"Setting new leader for topicId pqL0YCQvQIu1VQwLRfdcug, partition 0 to 1 using an unclean election. Previous partition: PartitionRegistration(replicas=[0, 1, 2])",
			MUncleanLeader, "map[leader:1 partition_index:0 topic_id:pqL0YCQvQIu1VQwLRfdcug]"},
		{"[QuorumController id=1000] Fencing broker 0 at epoch 16 because its session has timed out.",
			MFenced, "map[broker:0 broker_epoch:16]"},
		{"[QuorumController id=1000] Fencing broker 2 because its session has timed out.", // before 4.x
			MFenced, "map[broker:2]"},
		{"[GroupCoordinator id=1] Failed to load metadata from __consumer_offsets-0 with epoch 1 due to java.lang.RuntimeException: Replaying record CoordinatorRecord(key=ApiMessageAndVersion(ConsumerGroupMemberMetadataKey(groupId='k20845', memberId='L3x') at version 5), value=...) from __consumer_offsets-0 at offset 485 with producer id -1 and producer epoch -1 failed due to: Group k20845 is not a consumer group..",
			MCoordinatorLoadFailed, "map[broker:1 cause:java.lang.RuntimeException coordinator:GroupCoordinator leader_epoch:1 partition:__consumer_offsets-0]"},
		{"Recovering 1 logs from /var/lib/kafka/data since no clean shutdown file was found",
			MUncleanRecovery, "map[dir:/var/lib/kafka/data logs:1]"},
		{"[ReplicaManager broker=0] Stopping serving replicas in dir /var/lib/kafka/data with uuid abc because the log directory has failed.",
			MLogDirFailure, "map[dir:/var/lib/kafka/data]"},
		{"Shutdown broker because all log dirs in /var/lib/kafka/data have failed",
			MLogDirFailure, "map[dir:/var/lib/kafka/data]"},
		// Near misses.
		{"[UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] Truncating to 0 has no effect as the largest offset in the log is -1", "", ""},
		{"[ReplicaFetcher replicaId=1, leaderId=0, fetcherId=0] Truncating partition orders-0 with TruncationState(offset=0, completed=true) due to local high watermark 0", "", ""},
		{"[QuorumController id=1000] Periodic task electUnclean generated 0 records in 120 microseconds.", "", ""},
		{"Skipping recovery of 1 logs from /var/lib/kafka/data since clean shutdown file was found", "", ""},
		{"[BrokerLifecycleManager id=0] The broker has been unfenced. Transitioning from RECOVERY to RUNNING.", "", ""},
	} {
		name, fields, ok := match(tc.msg)
		if ok != (tc.name != "") || name != tc.name || (ok && fmt.Sprint(fields) != tc.fields) {
			t.Errorf("%.80q:\n got %q %v %v\nwant %q %s", tc.msg, name, fields, ok, tc.name, tc.fields)
		}
	}
}

// TestSummarizeRealLogs: the trimmed logs of a real s9 run (rack B cut
// off and lagging, rack A loses power, unclean election on; Kafka 4.4.0):
// the controller fences brokers 0 and 1 and elects broker 1 uncleanly at
// epoch 3; broker 0 recovers without a clean shutdown and truncates to
// offset 5341 where its log diverged. The run started at 10:46:55.9 UTC.
func TestSummarizeRealLogs(t *testing.T) {
	dir := t.TempDir()
	copyFixture(t, "testdata/s9", filepath.Join(dir, Dir))
	os.WriteFile(filepath.Join(dir, Dir, "notes.txt"), []byte("[2026-12-01 10:47:34,063] ERROR not a node log"), 0o644)
	start := time.Date(2026, 12, 1, 10, 46, 55, 900_000_000, time.UTC)
	s, err := Write(dir, start)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"controller-1000:9 fenced  15.7s",
		"controller-1000:10 fenced  16.1s",
		"broker-0:10 unclean-recovery  36.0s",
		"broker-1:11 unclean-recovery  36.2s",
		"controller-1000:11 unclean-leader  36.8s",
		"controller-1000:12 unclean-election orders-0 36.8s",
		"broker-0:11 divergence orders-0 38.2s",
		"broker-0:12 truncate orders-0 38.2s",
	}
	wantMarkers(t, s.Markers, func(m Marker) string {
		return fmt.Sprintf("%s-%d:%d %s %s %.1fs", m.Role, m.Node, m.Line, m.Name, m.Partition, float64(*m.Time)/1e9)
	}, want)
	if len(s.Nodes) != 3 || s.Nodes[0].Role != "broker" || s.Nodes[0].ID != 0 || s.Nodes[2].ID != 1000 {
		t.Fatalf("nodes %+v", s.Nodes)
	}
	b0 := s.Nodes[0]
	if b0.Lines != 6 || b0.Error != 0 || b0.Markers[MTruncate] != 1 || b0.Markers[MDivergence] != 1 || b0.File != "logs/broker-0.log" {
		t.Errorf("broker 0: %+v (want 6 entries, no errors, one truncate, one divergence)", b0)
	}
	if e, _ := s.Markers[5].Int("leader_epoch"); e != 3 {
		t.Errorf("unclean election epoch %d, want 3", e)
	}
	back, err := Read(dir)
	if err != nil || !reflect.DeepEqual(back.Markers, s.Markers) || !back.Start.Equal(start) {
		t.Errorf("summary.json does not read back: %v", err)
	}
}

// TestErrorsCounted: ERROR entries of a real broker (u1: appends refused
// below min.insync), each followed by its exception's line, are counted
// once per entry and grouped into one message with numbers masked.
func TestErrorsCounted(t *testing.T) {
	f, err := os.Open("testdata/u1/broker-0.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, mk, err := scan(f, "broker", 0, "logs/broker-0.log", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Error != 5 || n.Fatal != 0 || len(n.Errors) != 1 || n.Errors[0].Count != 5 || len(mk) != 0 {
		t.Fatalf("node %+v markers %v: want 5 errors in one message", n, mk)
	}
	if !strings.HasPrefix(n.Errors[0].Text, "[ReplicaManager broker=0] Error processing append operation on partition") || n.Errors[0].Time != nil {
		t.Errorf("message %+v (no start given: no run time)", n.Errors[0])
	}
}

func TestScanLongLineAndClip(t *testing.T) {
	long := "[2026-12-01 10:00:00,000] ERROR " + strings.Repeat("é", 3000) + " (x.Y)\n"
	n, _, err := scan(strings.NewReader(long+long), "broker", 1, "f", time.Time{})
	if err != nil || n.Error != 2 || len(n.Errors) != 1 {
		t.Fatalf("%+v %v", n, err)
	}
	if txt := n.Errors[0].Text; len(txt) > maxText+len("…") || !strings.HasSuffix(txt, "…") || !strings.HasPrefix(txt, "éé") {
		t.Errorf("clipped text %d bytes: %.20q", len(txt), txt)
	}
}

func copyFixture(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSummarizeRealS2: the trimmed logs of a real `kchaos run s2` (Kafka
// 4.4.0, run started 13:38:45.636 UTC). The checker found acked records
// lost and offsets 720-4798 reused, broker 1 leading at epoch 2 by
// unclean election at 20.2 s (the set-config); the logs say the same:
// the controller's unclean change to leader 1 at epoch 2 at 20.4 s, and
// broker 0, back after its kill, truncating at the divergence offset 720,
// below its high watermark 4480. The followers' start-up truncations to 0
// (no effect, or to the local high watermark) are not markers.
func TestSummarizeRealS2(t *testing.T) {
	dir := t.TempDir()
	copyFixture(t, "testdata/s2", filepath.Join(dir, Dir))
	start := time.Date(2026, 12, 1, 13, 38, 45, 635875959, time.UTC)
	s, err := summarize(dir, start)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"17.1s controller-1000 fenced  map[broker:0 broker_epoch:16]",
		"20.4s controller-1000 unclean-leader  map[leader:1 partition_index:0 topic_id:0LpMPWtAQu2QmZBLmqp5YA]",
		"20.4s controller-1000 unclean-election orders-0 map[leader:1 leader_epoch:2 previous_leader:-1 previous_leader_epoch:1]",
		"33.9s broker-0 unclean-recovery  map[dir:/var/lib/kafka/data logs:1]",
		"35.3s broker-0 divergence orders-0 map[end_offset:720 leader:1 leader_epoch:0 offset:720 replica:0]",
		"35.3s broker-0 truncate-below-hw orders-0 map[high_watermark:4480 offset:720]",
		"35.3s broker-0 truncate orders-0 map[offset:720]",
	}
	wantMarkers(t, s.Markers, func(m Marker) string {
		return fmt.Sprintf("%.1fs %s-%d %s %s %v", float64(*m.Time)/1e9, m.Role, m.Node, m.Name, m.Partition, m.Fields)
	}, want)
	for _, n := range s.Nodes {
		if (n.ID == 1 || n.ID == 2) && len(n.Markers) != 0 {
			t.Errorf("broker %d: markers %v, want none (its truncations had no effect)", n.ID, n.Markers)
		}
	}
}

// wantMarkers checks the markers, each rendered by line, against want.
func wantMarkers(t *testing.T, markers []Marker, line func(Marker) string, want []string) {
	t.Helper()
	var got []string
	for _, m := range markers {
		got = append(got, line(m))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("markers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
