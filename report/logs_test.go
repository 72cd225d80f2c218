package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/brokerlogs"
	"github.com/kchaos/kchaos/checker"
)

// logsRun is s2Run (unclean on) with the nodes' logs of that story, in
// the image's log4j2 pattern, the run starting at 12:00:00 UTC: the
// controller fences broker 0 at 3.3 s and elects broker 1 uncleanly at
// epoch 1 at 5.45 s; broker 0 truncates on rejoining at 7.7 s; a marker
// of another partition sits right at the last ack; broker 2 logs ERRORs.
// The checker's first explanation names the takeover at epoch 1 (5.5 s),
// the second only its ack times, the third a partition the logs never
// mention.
func logsRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s2", "20260101T120000")
	s2Run(t, dir, true)
	logs := map[string]string{
		"controller-1000.log": `kchaos-entrypoint: formatting /var/lib/kafka/data (cluster x)
[2026-01-01 12:00:03,300] INFO [QuorumController id=1000] Fencing broker 0 at epoch 20 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)
[2026-01-01 12:00:05,440] INFO Setting new leader for topicId KRYg, partition 0 to 1 using an unclean election. Previous partition: PartitionRegistration(replicas=[0, 1, 2]) (org.apache.kafka.controller.PartitionChangeBuilder)
[2026-01-01 12:00:05,450] INFO [QuorumController id=1000] UNCLEAN partition change for orders-0 with topic ID KRYg: isr: [] -> [1], leader: -1 -> 1, leaderRecoveryState: RECOVERED -> RECOVERING, leaderEpoch: 0 -> 1, partitionEpoch: 3 -> 4 (org.apache.kafka.controller.ReplicationControlManager)
`,
		"broker-0.log": `[2026-01-01 12:00:02,450] INFO [UnifiedLog partition=orders-1, dir=/var/lib/kafka/data] Truncating to offset 3 (org.apache.kafka.storage.internals.log.UnifiedLog)
[2026-01-01 12:00:07,700] INFO [ReplicaFetcher replicaId=0, leaderId=1, fetcherId=0] Truncating partition orders-0 with TruncationState(offset=10, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=10) (kafka.server.ReplicaFetcherThread)
[2026-01-01 12:00:07,701] INFO [UnifiedLog partition=orders-0, dir=/var/lib/kafka/data] Truncating to offset 10 (org.apache.kafka.storage.internals.log.UnifiedLog)
`,
		"broker-2.log": strings.Repeat(`[2026-01-01 12:00:03,900] ERROR [ReplicaManager broker=2] Error processing append operation on partition KRYg:orders-0 (kafka.server.ReplicaManager)
org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR : 1 is insufficient
`, 3),
	}
	for name, text := range logs {
		if err := os.WriteFile(filepath.Join(dir, "logs", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := brokerlogs.Write(dir, time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	var res checker.Result
	if err := json.Unmarshal([]byte(readString(t, filepath.Join(dir, ResultsFile))), &res); err != nil {
		t.Fatal(err)
	}
	since := 5.5
	res.Explanations[0].TookOver = &checker.Takeover{LeaderEpoch: 1, SinceS: &since}
	res.Explanations[1].AckedS = []float64{2.2, 2.3, 2.405}
	res.Explanations = append(res.Explanations, checker.Explanation{Kind: "lost-write", Topic: "orders", Partition: 3,
		AckedS: []float64{2.5}, Text: "orders-3 offsets 1-2: 2 acked records lost"})
	if err := checker.WriteResults(filepath.Join(dir, ResultsFile), &res); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportShowsBrokerLogs(t *testing.T) {
	dir := logsRun(t)
	md := readString(t, filepath.Join(dir, ReportMD))
	html := readString(t, filepath.Join(dir, ReportHTML))
	for _, tc := range []struct{ file, text, want, why string }{
		{ReportMD, md, "  - broker logs say: controller 1000 at 5.5 s (logs/controller-1000.log line 4): unclean-election orders-0, leader 1, leader_epoch 1",
			"the takeover's explanation cites the controller's unclean election at that epoch"},
		{ReportMD, md, "| [broker 2](logs/broker-2.log) | 3 | 0 | 3 | 0 |  | 3 × `[ReplicaManager broker=2] Error processing append operation on partition KRYg:orders-0` |",
			"per-node counts, with the ERROR message grouped"},
		{ReportMD, md, "| [broker 0](logs/broker-0.log) | 3 | 0 | 0 | 0 | divergence 1, truncate 2 |", "markers counted per node"},
		{ReportMD, md, "| 7.7 s | broker 0 | divergence | orders-0 | end_offset 10, leader 1, leader_epoch 0, offset 10, replica 0 | logs/broker-0.log line 2 |",
			"a marker row with its fields on the run's clock"},
		{ReportHTML, html, `<tr id="marker-4"><td class="n">5.5 s</td><td>controller 1000</td>`, "marker rows carry anchors"},
		{ReportHTML, html, `Broker logs say: <a href="#marker-4">controller 1000 at 5.5 s`, "the explanation links its marker"},
		{ReportHTML, html, `class="log-marker"><title>controller 1000 at 5.5 s (logs/controller-1000.log line 4): unclean-election`, "the marker on the timeline"},
		{ReportHTML, html, `>log: broker 0</text>`, "a timeline row per node with markers"},
	} {
		if !strings.Contains(tc.text, tc.want) {
			t.Errorf("%s lacks %s:\n%q", tc.file, tc.why, tc.want)
		}
	}
	// The second explanation (no takeover) cites the data marker of its
	// partition nearest its last ack: the unclean election at 5.45 s, not
	// orders-1's truncation at 2.45 s; the third cites nothing.
	if n := strings.Count(md, "broker logs say:"); n != 2 {
		t.Errorf("%d explanations cite the logs, want 2", n)
	}
	if strings.Contains(md, "broker logs say: broker 0 at 2.5 s") {
		t.Error("an explanation cites another partition's marker")
	}
}

// A run folder without logs/summary.json (an older run) gets no section;
// a broken one is named as a problem.
func TestReportWithoutOrBrokenSummary(t *testing.T) {
	dir := writtenRun(t, true)
	if md := readString(t, filepath.Join(dir, ReportMD)); strings.Contains(md, "## Broker logs") || strings.Contains(md, "broker logs say") {
		t.Error("a report without summary.json shows a broker logs section")
	}
	os.WriteFile(filepath.Join(dir, "logs", brokerlogs.SummaryFile), []byte("{"), 0o644)
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	if md := readString(t, filepath.Join(dir, ReportMD)); !strings.Contains(md, "summary.json") {
		t.Error("a broken summary.json is not named among the problems")
	}
}

// TestPowerLossBandNamesModel: the timeline's band of a power loss says
// which model cut the log (the history's op details carry it).
func TestPowerLossBandNamesModel(t *testing.T) {
	for model, want := range map[string]string{"writeback": "(writeback)", "recovery-point": "(recovery-point)", "": ""} {
		op := nemOp{F: "lose-unflushed", Start: 1e9, End: 2e9, Type: "ok"}
		op.Value.Nodes = []int32{0}
		if model != "" {
			op.Value.Details = map[string]any{"model": model}
		}
		b := newBand(op)
		if want != "" && !strings.HasSuffix(b.Label, " [0] "+want) || want == "" && strings.Contains(b.Label, "(") {
			t.Errorf("model %q: label %q", model, b.Label)
		}
	}
}
