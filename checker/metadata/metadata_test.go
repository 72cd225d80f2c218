package metadata

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// h builds a history; times are in seconds.
type h struct{ evs []histories.Event }

func (b *h) add(s float64, p int, typ histories.Type, f string, v any, errText string) *h {
	raw, _ := json.Marshal(v)
	b.evs = append(b.evs, histories.Event{Index: int64(len(b.evs)), Time: int64(s * 1e9), Process: p, Type: typ, F: f, Value: raw, Error: errText})
	return b
}

// op is an invoke at s and its completion at s+0.1 (typ "" leaves it open).
func (b *h) op(s float64, p int, f string, v histories.MetaOp, typ histories.Type, errText string) *h {
	b.add(s, p, histories.Invoke, f, v, "")
	if typ != "" {
		b.add(s+0.1, p, typ, f, v, errText)
	}
	return b
}

func (b *h) read(s float64, p int, r histories.MetadataRead) *h {
	b.add(s, p, histories.Invoke, histories.FMetadataRead, map[string]int32{"node": r.Node}, "")
	return b.add(s+0.05, p, histories.OK, histories.FMetadataRead, r, "")
}

// quorum is a quorum sample at s, asked then (asked == time is legal: the
// answer shows that moment).
func (b *h) quorum(s float64, leader, epoch int32, hw int64) *h {
	return b.add(s, histories.ObserverProcess, histories.OK, histories.FQuorum,
		histories.QuorumValue{Asked: int64(s * 1e9), LeaderID: leader, LeaderEpoch: epoch, HighWatermark: hw}, "")
}

// quorumOld is a quorum sample at s whose ask was not recorded (histories
// before 2026-12-06).
func (b *h) quorumOld(s float64, leader, epoch int32, hw int64) *h {
	return b.add(s, histories.ObserverProcess, histories.OK, histories.FQuorum,
		histories.QuorumValue{LeaderID: leader, LeaderEpoch: epoch, HighWatermark: hw}, "")
}

func (b *h) fault(s float64, f string, nodes ...int32) *h {
	return b.add(s, histories.NemesisProcess, histories.OK, f, histories.NemesisValue{Fault: f, Nodes: nodes}, "")
}

func topics(kv ...any) map[string]histories.TopicMeta {
	m := map[string]histories.TopicMeta{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(histories.TopicMeta)
	}
	return m
}

func tm(parts int32, cfg ...string) histories.TopicMeta {
	t := histories.TopicMeta{Partitions: parts}
	if len(cfg) > 0 {
		t.Configs = map[string]string{}
		for i := 0; i < len(cfg); i += 2 {
			t.Configs[cfg[i]] = cfg[i+1]
		}
	}
	return t
}

func broker(id int32, leo int64, t map[string]histories.TopicMeta) histories.MetadataRead {
	return histories.MetadataRead{Node: id, Role: "broker", Topics: t, LogEndOffset: leo}
}

// attempt marks r as read at the convergence wait's attempt a.
func attempt(a int, r histories.MetadataRead) histories.MetadataRead { r.Attempt = a; return r }

func run(t *testing.T, b *h) analysis {
	t.Helper()
	c := New(Options{ResignGrace: 5 * time.Second})
	for i := range b.evs {
		if err := c.Add(&b.evs[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	return c.result()
}

// wantOne fails t unless got, the entries of one anomaly rendered as
// text, is empty when want is, or is exactly want.
func wantOne(t *testing.T, anomaly string, got []string, want string) {
	t.Helper()
	if want == "" && len(got) > 0 || want != "" && (len(got) != 1 || got[0] != want) {
		t.Fatalf("%s %q, want %q", anomaly, got, want)
	}
}

var (
	create = func(topic string, n int32) histories.MetaOp { return histories.MetaOp{Topic: topic, Partitions: n} }
	del    = func(topic string) histories.MetaOp { return histories.MetaOp{Topic: topic} }
	set    = func(topic, k, v string) histories.MetaOp { return histories.MetaOp{Topic: topic, Key: k, Value: v} }
)

// TestLost: each way an acknowledged change can be lost, with a history
// that has it and one that almost has it (an unknown outcome, a later
// delete or write that explains the final state).
func TestLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *h
		want string // "" none; else a fragment of the one entry
	}{
		{"acked create missing", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			read(9, 5, broker(0, 50, topics())), "create-topic m-1: want topic with 2 partitions, got no such topic"},
		{"unknown create missing", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.Info, "REQUEST_TIMED_OUT").
			read(9, 5, broker(0, 50, topics())), ""},
		{"acked create, deleted later", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 1, histories.FDeleteTopic, del("m-1"), histories.Info, "timeout").
			read(9, 5, broker(0, 50, topics())), ""},
		{"acked create, failed delete", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 1, histories.FDeleteTopic, del("m-1"), histories.Fail, "NOT_CONTROLLER").
			read(9, 5, broker(0, 50, topics())), "create-topic m-1"},
		{"deleted topic back", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 0, histories.FDeleteTopic, del("m-1"), histories.OK, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), "delete-topic m-1: want topic deleted, got topic with 2 partitions"},
		{"deleted topic created again", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 0, histories.FDeleteTopic, del("m-1"), histories.OK, "").
			op(3, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), ""},
		{"partitions lost", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 0, histories.FCreatePartitions, create("m-1", 4), histories.OK, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), "create-partitions m-1: want 4 partitions, got 2 partitions"},
		{"partitions unknown", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 0, histories.FCreatePartitions, create("m-1", 4), histories.Info, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), ""},
		{"config overwritten by an earlier write", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.OK, "").
			op(2, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.OK, "").
			op(3, 2, histories.FAlterConfig, set("m-1", "retention.ms", "2"), histories.OK, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(1, "retention.ms", "1")))),
			"alter-config m-1: want retention.ms=2, got retention.ms=1, which no write after this one set"},
		{"config set by a concurrent write", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.OK, "").
			add(2, 1, histories.Invoke, histories.FAlterConfig, set("m-1", "retention.ms", "1"), "").
			op(2.01, 2, histories.FAlterConfig, set("m-1", "retention.ms", "2"), histories.OK, "").
			add(2.2, 1, histories.OK, histories.FAlterConfig, set("m-1", "retention.ms", "1"), "").
			read(9, 5, broker(0, 50, topics("m-1", tm(1, "retention.ms", "1")))), ""},
		{"config unset", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.OK, "").
			op(2, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.OK, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(1)))), "got retention.ms unset"},
		{"no read judges nothing", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, ""), ""},
		{"judged against the most advanced broker", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			read(9, 5, broker(0, 40, topics())).read(9.1, 5, broker(1, 50, topics("m-1", tm(2)))), ""},
		// An acked change proves its topic, however its creation ended.
		{"unknown create, acked config, topic gone", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.Info, "REQUEST_TIMED_OUT").
			op(2, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.OK, "").
			read(9, 5, broker(0, 50, topics())), "alter-config m-1: want topic (this ack proves it existed) with retention.ms=1, got no such topic"},
		{"unknown create, acked config, unknown delete", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.Info, "REQUEST_TIMED_OUT").
			op(2, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.OK, "").
			op(3, 1, histories.FDeleteTopic, del("m-1"), histories.Info, "timeout").
			read(9, 5, broker(0, 50, topics())), ""},
		{"unknown create, acked partitions, topic gone", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.Info, "REQUEST_TIMED_OUT").
			op(2, 1, histories.FCreatePartitions, create("m-1", 3), histories.OK, "").
			read(9, 5, broker(0, 50, topics())), "create-partitions m-1: want topic (this ack proves it existed) with 3 partitions, got no such topic"},
		// A refusal that says the change already held may answer a
		// second attempt of a change the first one made (doneRefusals).
		{"acked create, delete refused as done", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 1, histories.FDeleteTopic, del("m-1"), histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION: This server does not host this topic-partition.").
			read(9, 5, broker(0, 50, topics())), ""},
		{"delete refused as done before the create", new(h).op(0.5, 1, histories.FDeleteTopic, del("m-1"), histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION").
			op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			read(9, 5, broker(0, 50, topics())), "create-topic m-1: want topic with 2 partitions"},
		{"acked config, delete refused as done", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.OK, "").
			op(2, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.OK, "").
			op(3, 1, histories.FDeleteTopic, del("m-1"), histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION").
			read(9, 5, broker(0, 50, topics())), ""},
		{"deleted topic back, create refused as done", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 0, histories.FDeleteTopic, del("m-1"), histories.OK, "").
			op(3, 1, histories.FCreateTopic, create("m-1", 2), histories.Fail, "TOPIC_ALREADY_EXISTS").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), ""},
		{"deleted topic back, create refused otherwise", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 0, histories.FDeleteTopic, del("m-1"), histories.OK, "").
			op(3, 1, histories.FCreateTopic, create("m-1", 2), histories.Fail, "INVALID_REPLICATION_FACTOR").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), "delete-topic m-1: want topic deleted"},
		{"unknown create, refused config, topic gone", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.Info, "REQUEST_TIMED_OUT").
			op(2, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION").
			read(9, 5, broker(0, 50, topics())), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.b)
			var got []string
			for _, e := range r.MetadataLost {
				got = append(got, fmt.Sprintf("%s %s: want %s, got %s", e.F, e.Topic, e.Want, e.Got))
			}
			if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)) {
				t.Fatalf("lost %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRefusedAsDoneNote: the refusal taken as the change made is named in
// a note with both ops, so the valid verdict explains itself (q1 on 3.9.2,
// 2026-12-06).
func TestRefusedAsDoneNote(t *testing.T) {
	r := run(t, new(h).op(30.3, 6, histories.FCreateTopic, create("kchaos-meta-1-36", 1), histories.OK, "").
		op(40.0, 6, histories.FDeleteTopic, del("kchaos-meta-1-36"), histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION").
		read(50, 9, broker(0, 50, topics())))
	if len(r.MetadataLost) != 0 {
		t.Fatalf("lost %+v, want none", r.MetadataLost)
	}
	want := "delete-topic kchaos-meta-1-36 by p6 (invoked at 40.000 s) was refused with UNKNOWN_TOPIC_OR_PARTITION at 40.100 s, yet create-topic by p6 was acknowledged at 30.400 s and the converged metadata (node 0) has no such topic"
	if len(r.Notes) != 1 || !strings.HasPrefix(r.Notes[0], want) {
		t.Fatalf("notes %q, want one starting %q", r.Notes, want)
	}
}

// TestDiverged: a broker that disagrees with the most advanced one after
// the wait, and a high watermark that went back under one leader; the
// near misses agree, or lower the watermark only across epochs.
func TestDiverged(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *h
		want string
	}{
		{"broker lacks a topic", new(h).read(9, 5, broker(0, 50, topics("m-1", tm(2)))).read(9, 5, broker(1, 49, topics())),
			"1: [lacks topic m-1]"},
		{"broker has fewer partitions", new(h).read(9, 5, broker(0, 50, topics("m-1", tm(4)))).read(9, 5, broker(1, 49, topics("m-1", tm(2)))),
			"1: [m-1 has 2 partitions, not 4]"},
		{"brokers agree, controller has no topics", new(h).read(9, 5, broker(0, 50, topics("m-1", tm(2)))).read(9, 5, broker(1, 50, topics("m-1", tm(2)))).
			read(9, 5, histories.MetadataRead{Node: 1000, Role: "controller", LogEndOffset: 50}), ""},
		{"watermark back in one epoch", new(h).quorum(1, 1000, 3, 100).quorum(2, 1000, 3, 90), "1000: [high watermark went back from 100 to 90 in epoch 3]"},
		{"watermark lower in a new epoch", new(h).quorum(1, 1000, 3, 100).quorum(2, 1001, 4, 90).quorum(3, 1001, 4, 120), ""},
		{"unknown watermark", new(h).quorum(1, 1000, 3, 100).quorum(2, 1000, 3, -1), ""},
		// Counted per node, as documented: one leader's watermark going
		// back in three samples is one entry.
		{"watermark back three times in one epoch", new(h).quorum(1, 1000, 3, 100).quorum(2, 1000, 3, 90).quorum(3, 1000, 3, 95).quorum(4, 1000, 3, 80),
			"1000: [high watermark went back from 100 to 90 in epoch 3 high watermark went back from 100 to 95 in epoch 3 high watermark went back from 100 to 80 in epoch 3]"},
		{"watermark back seven times: five listed", new(h).quorum(1, 1000, 3, 100).quorum(2, 1000, 3, 90).quorum(3, 1000, 3, 91).
			quorum(4, 1000, 3, 92).quorum(5, 1000, 3, 93).quorum(6, 1000, 3, 94).quorum(7, 1000, 3, 95).quorum(8, 1000, 3, 96),
			"1000: [high watermark went back from 100 to 90 in epoch 3 high watermark went back from 100 to 91 in epoch 3 " +
				"high watermark went back from 100 to 92 in epoch 3 high watermark went back from 100 to 93 in epoch 3 " +
				"high watermark went back from 100 to 94 in epoch 3 and 2 more]"},
		// Only the final attempt of the convergence wait is judged.
		{"early lagging answer, later attempts failed", new(h).read(9, 5, attempt(2, broker(0, 50, topics("m-1", tm(2))))).
			read(8, 5, attempt(1, broker(1, 40, topics()))), ""},
		{"lagging in the final attempt", new(h).read(9, 5, attempt(2, broker(0, 50, topics("m-1", tm(2))))).
			read(9.1, 5, attempt(2, broker(1, 40, topics()))), "1: [lacks topic m-1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.b)
			var got []string
			for _, e := range r.MetadataDiverged {
				got = append(got, fmt.Sprintf("%d: %v", e.Node, e.Differences))
			}
			wantOne(t, "diverged", got, tc.want)
		})
	}
}

// TestSplitBrain: two leaders in one epoch; an older epoch's leader still
// answering past the grace. Near misses: a new leader in a new epoch, and
// a deposed leader answering within the grace (measured, not counted).
func TestSplitBrain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b     *h
		want  string
		terms string
	}{
		{"two leaders one epoch", new(h).quorum(1, 1000, 3, 10).quorum(2, 1001, 3, 10), "epoch 3 [1000 1001]", ""},
		{"clean change", new(h).quorum(1, 1000, 3, 10).quorum(2, 1001, 4, 10), "", "3:1000 stale 0; 4:1001 stale -1"},
		{"deposed leader within grace", new(h).quorum(1, 1000, 3, 10).quorum(2, 1001, 4, 10).quorum(4, 1000, 3, 10).quorum(5, 1001, 4, 12),
			"", "3:1000 stale 2; 4:1001 stale -1"},
		{"deposed leader past grace", new(h).quorum(1, 1000, 3, 10).quorum(2, 1001, 4, 10).quorum(8, 1000, 3, 10),
			"epoch 3 [1000 1001] newer 4", "3:1000 stale 6; 4:1001 stale -1"},
		{"deposed leader late, ask not recorded: the previous sample bounds it", new(h).quorumOld(1, 1000, 3, 10).quorumOld(2, 1001, 4, 10).
			quorumOld(8, 1000, 3, 10), "", "3:1000 stale 0; 4:1001 stale -1"},
		{"deposed leader past grace, ask not recorded, twice", new(h).quorumOld(1, 1000, 3, 10).quorumOld(2, 1001, 4, 10).
			quorumOld(8, 1000, 3, 10).quorumOld(14, 1000, 3, 10), "epoch 3 [1000 1001] newer 4", "3:1000 stale 6; 4:1001 stale -1"},
		{"no leader samples", new(h).quorum(1, -1, 3, 10).quorum(2, -1, 2, 10), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.b)
			var got []string
			for _, e := range r.SplitBrain {
				s := fmt.Sprintf("epoch %d %v", e.Epoch, e.Leaders)
				if e.NewerEpoch != nil {
					s += fmt.Sprintf(" newer %d", *e.NewerEpoch)
				}
				got = append(got, s)
			}
			wantOne(t, "split-brain", got, tc.want)
			if tc.terms != "" {
				var ts []string
				for _, x := range r.Terms {
					ts = append(ts, fmt.Sprintf("%d:%d stale %g", x.Epoch, x.Leader, x.StaleS))
				}
				if strings.Join(ts, "; ") != tc.terms {
					t.Errorf("terms %q, want %q", strings.Join(ts, "; "), tc.terms)
				}
			}
		})
	}
}

// TestUnavailable: a window opens at the first op that failed for want of
// the quorum and closes at the next success, naming the fault before it;
// refusals (the topic is gone) open none.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *h
		want string
	}{
		{"window under a fault", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.OK, "").
			fault(2, histories.FPartition, 1000).
			op(3, 0, histories.FCreateTopic, create("m-2", 1), histories.Fail, "NOT_CONTROLLER: x").
			op(4, 1, histories.FCreateTopic, create("m-3", 1), histories.Info, "REQUEST_TIMED_OUT: y").
			op(7, 0, histories.FCreateTopic, create("m-4", 1), histories.OK, ""),
			"3-7.1 ended 2 ops map[NOT_CONTROLLER:1 REQUEST_TIMED_OUT:1] after partition [1000] at 2.0 s"},
		{"fault proven after the window opened", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 1), histories.OK, "").
			op(2, 0, histories.FCreateTopic, create("m-2", 1), histories.Info, "read tcp 10.1.2.3:4->10.1.2.4:9092: i/o timeout").
			fault(2.5, histories.FPartition, 1001).
			op(3, 1, histories.FAlterConfig, set("m-1", "retention.ms", "1"), histories.Info, "unable to dial: dial tcp 10.1.2.5:9092: connection refused").
			fault(4, histories.FPause, 1002).
			op(6, 0, histories.FCreateTopic, create("m-4", 1), histories.OK, ""),
			"2-6.1 ended 2 ops map[connection lost:1 timeout:1] after partition [1001] at 2.5 s"},
		{"never ended", new(h).op(3, 0, histories.FCreateTopic, create("m-2", 1), histories.Info, "").quorum(9, 1000, 1, 1),
			"3-9 open 1 ops map[(no error: info):1] after "},
		{"refusals only", new(h).op(1, 0, histories.FCreatePartitions, create("m-1", 3), histories.Fail, "UNKNOWN_TOPIC_OR_PARTITION: gone").
			op(2, 0, histories.FCreateTopic, create("m-1", 1), histories.Fail, "TOPIC_ALREADY_EXISTS: x"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.b)
			var got []string
			for _, w := range r.MetadataUnavailable {
				state := "open"
				if w.Ended {
					state = "ended"
				}
				got = append(got, fmt.Sprintf("%g-%g %s %d ops %v after %s", w.FromS, w.ToS, state, w.Ops, w.Errors, w.Fault))
			}
			wantOne(t, "windows", got, tc.want)
		})
	}
}

// TestBadEvents: the domain's own events that break the operation model
// or their shape are errors naming the field.
func TestBadEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *h
		want string
	}{
		{"no topic", new(h).add(1, 0, histories.Invoke, histories.FCreateTopic, histories.MetaOp{Partitions: 1}, ""), `missing field "topic"`},
		{"no key", new(h).add(1, 0, histories.Invoke, histories.FAlterConfig, histories.MetaOp{Topic: "t"}, ""), `missing field "key"`},
		{"no partitions", new(h).add(1, 0, histories.Invoke, histories.FCreatePartitions, histories.MetaOp{Topic: "t"}, ""), `"partitions" must be positive`},
		{"completion without invoke", new(h).add(1, 0, histories.OK, histories.FDeleteTopic, del("t"), ""), "without its invoke"},
		{"two open", new(h).add(1, 0, histories.Invoke, histories.FDeleteTopic, del("t"), "").add(1, 0, histories.Invoke, histories.FDeleteTopic, del("u"), ""), "while delete-topic is open"},
		{"quorum asked after it was answered", new(h).votersAsked(1, 1.5, 1000, 3, 1000), "asked 1500000000 is not between 0 and the event's time 1000000000"},
		{"quorum asked before the start", new(h).votersAsked(1, -0.5, 1000, 3, 1000), "asked -500000000 is not between"},
		{"read without role", new(h).add(1, 0, histories.Invoke, histories.FMetadataRead, nil, "").add(1, 0, histories.OK, histories.FMetadataRead, histories.MetadataRead{Node: 1}, ""), `missing field "role"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			var err error
			for i := range tc.b.evs {
				if err = c.Add(&tc.b.evs[i]); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestUnknownWithoutRead: acknowledged changes and no broker's metadata
// read judge nothing, which leaves the verdict unknown; a broker's read
// does not; unknown outcomes alone are unknown for another reason, that
// no change was acknowledged (and a failure beside one acknowledged
// change is judged).
func TestUnknownWithoutRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *h
		want string
	}{
		{"acked, no read", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, ""),
			"metadata-lost: 1 acknowledged metadata changes (first: create-topic m-1 by p0 acknowledged at 1.100 s) and no broker's completed metadata read: nothing shows whether they held"},
		{"acked, a controller's read only", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			read(9, 5, histories.MetadataRead{Node: 1000, Role: "controller", LogEndOffset: 50}), "metadata-lost: 1 acknowledged"},
		{"unknown outcomes only, no read", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.Info, "timeout"),
			"metadata-lost: 1 metadata change invoked, none acknowledged (timeout 1): no acknowledged change to check"},
		{"refused and unknown, a broker's read", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.Fail, "TOPIC_ALREADY_EXISTS").
			op(2, 1, histories.FCreateTopic, create("m-2", 2), histories.Info, "timeout").
			op(3, 2, histories.FCreateTopic, create("m-3", 2), histories.Fail, "TOPIC_ALREADY_EXISTS").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))),
			"metadata-lost: 3 metadata changes invoked, none acknowledged (TOPIC_ALREADY_EXISTS 2, timeout 1)"},
		{"one acknowledged beside a refusal, a broker's read", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			op(2, 1, histories.FCreateTopic, create("m-2", 2), histories.Fail, "TOPIC_ALREADY_EXISTS").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), ""},
		{"acked, a broker's read", new(h).op(1, 0, histories.FCreateTopic, create("m-1", 2), histories.OK, "").
			read(9, 5, broker(0, 50, topics("m-1", tm(2)))), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.b)
			got := strings.Join(append(r.Unknowns, r.Unexercised...), "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Fatalf("unknowns %q, want %q", got, tc.want)
			}
		})
	}
}
