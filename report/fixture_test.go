package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

// hist writes a history with chosen times, which the real Recorder (wall
// clock) cannot give a test.
type hist struct {
	t   testing.TB
	w   *bufio.Writer
	f   *os.File
	idx int64
}

func newHist(t testing.TB, path string) *hist {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	return &hist{t: t, f: f, w: bufio.NewWriterSize(f, 1<<20)}
}

func (h *hist) ev(sec float64, proc int, typ histories.Type, f string, value any, errText string) {
	raw, err := json.Marshal(value)
	if err != nil {
		h.t.Fatal(err)
	}
	e := histories.Event{Index: h.idx, Time: int64(sec * 1e9), Process: proc, Type: typ, F: f, Value: raw, Error: errText}
	b, _ := json.Marshal(e)
	h.w.Write(append(b, '\n'))
	h.idx++
}

func (h *hist) close() {
	if err := h.w.Flush(); err != nil {
		h.t.Fatal(err)
	}
	h.f.Close()
}

func off(o int64) *int64 { return &o }

// send records one send of value v on partition 0: invoke at sec, the
// completion 5 ms later.
func (h *hist) send(sec float64, proc int, v string, typ histories.Type, offset *int64, errText string) {
	h.ev(sec, proc, histories.Invoke, histories.FSend, histories.SendValue{Topic: "orders", Value: v}, "")
	h.ev(sec+0.005, proc, typ, histories.FSend, histories.SendValue{Topic: "orders", Value: v, Offset: offset}, errText)
}

func (h *hist) observe(sec float64, leader, epoch int32, isr ...int32) {
	h.ev(sec, histories.ObserverProcess, histories.OK, histories.FObserve, histories.ObserveValue{
		Topic: "orders", Leader: leader, LeaderEpoch: epoch, ISR: isr, LastKnownELR: []int32{}, ELR: []int32{}}, "")
}

func (h *hist) nemesis(sec, dur float64, f string, nodes []int32, details map[string]any) {
	v := histories.NemesisValue{Fault: f, Nodes: nodes, Details: details}
	h.ev(sec, histories.NemesisProcess, histories.Invoke, f, v, "")
	h.ev(sec+dur, histories.NemesisProcess, histories.OK, f, v, "")
}

// s2Run builds the run folder of seed 001's story (docs/SCENARIOS.md, s2) with unclean election
// on (scenario S2): followers cut off, three records acked by broker 0
// alone (offsets 10-12), broker 0 killed, unclean election of broker 1,
// new sends reuse offsets 10-12. With unclean false the partition stays
// offline until broker 0 returns and nothing is lost.
func s2Run(t testing.TB, dir string, unclean bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHist(t, filepath.Join(dir, HistoryFile))
	h.observe(0, 0, 0, 0, 1, 2)
	p := 0
	for i := int64(0); i < 10; i++ {
		h.send(0.1+0.1*float64(i), p, fmt.Sprintf("v%d", i), histories.OK, off(i), "")
	}
	h.nemesis(1.5, 0.05, "partition", []int32{1, 2}, map[string]any{"shape": "leader-followers"})
	h.observe(2, 0, 0, 0)
	for i := int64(10); i < 13; i++ {
		h.send(2.2+0.1*float64(i-10), p, fmt.Sprintf("v%d", i), histories.OK, off(i), "")
	}
	h.nemesis(3, 0.1, "kill", []int32{0}, nil)
	h.observe(3.2, -1, 0, 0)
	h.send(3.5, p, "f1", histories.Fail, nil, "NOT_LEADER_OR_FOLLOWER")
	h.send(3.8, p, "f2", histories.Info, nil, "timeout")
	p++ // the info retired process 0
	next := int64(13)
	if unclean {
		h.nemesis(5, 0.02, "set-config", nil, map[string]any{"unclean.leader.election.enable": "true"})
		h.observe(5.5, 1, 1, 1)
		next = 10
	}
	h.ev(6, histories.NemesisProcess, histories.Invoke, "heal", histories.NemesisValue{Fault: "partition"}, "")
	h.ev(6.05, histories.NemesisProcess, histories.OK, "heal", histories.NemesisValue{Fault: "partition"}, "")
	if !unclean {
		h.send(6.1, p, "f3", histories.Fail, nil, "NOT_LEADER_OR_FOLLOWER")
	}
	h.nemesis(7, 0.5, "start", []int32{0}, nil)
	if !unclean {
		h.observe(7.6, 0, 1, 0)
	}
	for i := 0; i < 5; i++ {
		h.send(7.7+0.1*float64(i), p, fmt.Sprintf("n%d", i), histories.OK, off(next+int64(i)), "")
	}
	h.observe(8.5, int32(map[bool]int{true: 1, false: 0}[unclean]), 1, 0, 1, 2)
	h.ev(9, 99, histories.Invoke, histories.FFinalRead, histories.ReadRequest{Topic: "orders", Partitions: []int32{0}}, "")
	final := histories.ReadResult{Topic: "orders", EndOffsets: map[string]int64{"0": next + 5}}
	for o := int64(0); o < next+5; o++ {
		r := histories.Record{Offset: o, Value: fmt.Sprintf("v%d", o)}
		if o >= next {
			r.Value, r.LeaderEpoch = fmt.Sprintf("n%d", o-next), 1
		}
		final.Records = append(final.Records, r)
	}
	h.ev(9.4, 99, histories.OK, histories.FFinalRead, final, "")
	h.close()

	info := histories.RunInfo{Scenario: "s2", Seed: 7, KafkaVersion: "4.1.2", Topic: "orders", Partitions: 1, Replication: 3,
		TopicConfigs: map[string]string{"unclean.leader.election.enable": fmt.Sprint(unclean)},
		BrokerConfigs: map[int32]map[string]string{0: {"min.insync.replicas": "1"}, 1: {"min.insync.replicas": "1"},
			2: {"min.insync.replicas": "1"}},
		Producer: histories.ProducerInfo{Driver: "franz-go", Acks: "all", Retries: 3},
		Brokers:  []histories.BrokerInfo{{ID: 0, Rack: "a"}, {ID: 1, Rack: "a"}, {ID: 2, Rack: "b"}}}
	if err := histories.WriteRunInfo(filepath.Join(dir, histories.RunInfoFile), info); err != nil {
		t.Fatal(err)
	}
	res := &checker.Result{Valid: checker.Valid, Stats: checker.Stats{
		Errors: map[string]int{"NOT_LEADER_OR_FOLLOWER": 2, "timeout": 1},
		Partitions: map[string]*checker.PartitionStats{"orders-0": {
			// Overlapping windows, as the checker gives them: the union is 4.4 s.
			Unavailable: []checker.Interval{
				{FromS: 3.2, ToS: 7.6, DurationS: 4.4, Cause: "no-leader"},
				{FromS: 3.505, ToS: 6.105, DurationS: 2.6, Cause: "sends-failing", Errors: map[string]int{"NOT_LEADER_OR_FOLLOWER": 2}},
			},
			UnavailableS: 4.4}}}}
	if unclean {
		res.Valid = checker.Invalid
		res.Reasons = []string{"3 lost-write: acked sends missing from the final read"}
		for o := int64(10); o < 13; o++ {
			res.Anomalies.LostWrite = append(res.Anomalies.LostWrite, checker.LostWriteEntry{Topic: "orders", Offset: o, Value: fmt.Sprintf("v%d", o)})
			res.Anomalies.OffsetReuse = append(res.Anomalies.OffsetReuse, checker.OffsetReuseEntry{Topic: "orders", Offset: o,
				Values: []checker.Observed{{Value: fmt.Sprintf("v%d", o)}, {Value: fmt.Sprintf("n%d", o-10)}}})
		}
		res.Counts = map[string]int{"lost-write": 3, "offset-reuse": 3}
		res.Stats.Errors["NOT_LEADER_OR_FOLLOWER"] = 1
		res.Stats.Partitions["orders-0"].Unavailable = []checker.Interval{{FromS: 3.2, ToS: 5.5, DurationS: 2.3, Cause: "no-leader"}}
		res.Explanations = []checker.Explanation{
			{Kind: "lost-write", Topic: "orders", FirstOffset: 10, LastOffset: 12, Count: 3,
				Text: "orders-0 offsets 10-12: 3 acked records lost; acked while ISR was [0]; broker 1 became leader at epoch 1 by unclean election at 5.5 s"},
			{Kind: "offset-reuse", Topic: "orders", FirstOffset: 10, LastOffset: 12, Count: 3,
				Text: "offsets 10-12 of orders-0 now hold records written after the failure (see https://kafka.apache.org/documentation/#design_uncleanleader)"},
		}
		res.Linearizable = &checker.Linearizable{Result: "illegal", Partitions: map[string]*checker.LinPartition{
			"orders-0": {Result: "illegal", Ops: 21, Windows: 1, Illegal: []checker.Window{{FirstOffset: 10, LastOffset: 12, Ops: 6}},
				Visualization: "linearizability-orders-0.html"}}}
	}
	if err := checker.WriteResults(filepath.Join(dir, ResultsFile), res); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(dir, overridesFile), []any{"listeners", map[string]any{"key": "replica.lag.time.max.ms", "user": "30000", "value": "3000", "reason": "fast ISR shrink"}})
	os.WriteFile(filepath.Join(dir, scenarioFile), []byte("name: s2\ncluster:\n  broker_configs:\n    min.insync.replicas: 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "logs", "broker-0.log"), []byte("log\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "linearizability-orders-0.html"), []byte("<html></html>"), 0o644)
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readString(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
