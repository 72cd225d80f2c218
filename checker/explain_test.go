package checker

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// hist builds a history in a test: times in milliseconds.
type hist struct{ ev []histories.Event }

func (h *hist) add(ms int64, p int, typ histories.Type, f, value, errText string) *hist {
	e := histories.Event{Index: int64(len(h.ev)), Time: ms * 1e6, Process: p, Type: typ, F: f, Error: errText}
	if value != "" {
		e.Value = []byte(value)
	}
	h.ev = append(h.ev, e)
	return h
}

func (h *hist) acked(ms int64, p int, v string, off int) *hist {
	h.add(ms, p, histories.Invoke, "send", `{"topic":"t","partition":0,"value":"`+v+`"}`, "")
	return h.add(ms+1, p, histories.OK, "send", `{"topic":"t","partition":0,"value":"`+v+`","offset":`+itoa(off)+`}`, "")
}

func (h *hist) observe(ms int64, leader, epoch int, isr string) *hist {
	return h.add(ms, -2, histories.OK, "observe", `{"topic":"t","partition":0,"leader":`+itoa(leader)+
		`,"leader_epoch":`+itoa(epoch)+`,"isr":`+isr+`,"elr":[],"last_known_elr":[],"high_watermark":0}`, "")
}

func (h *hist) final(ms int64, p int, end int, recs string) *hist {
	h.add(ms, p, histories.Invoke, "final-read", `{"topic":"t","partitions":[0],"from":0}`, "")
	return h.add(ms+1, p, histories.OK, "final-read", `{"topic":"t","records":[`+recs+`],"end_offsets":{"0":`+itoa(end)+`}}`, "")
}

func rec1(off int, v string, epoch int) string {
	return `{"partition":0,"offset":` + itoa(off) + `,"value":"` + v + `","leader_epoch":` + itoa(epoch) + `}`
}

func check(t *testing.T, h *hist) *Result {
	t.Helper()
	res, err := checkEvents(h.ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLostRanges: two losses at the same offsets in different leader
// epochs are two ranges; a record that survived between lost ones, acked
// among them, splits a range; one acked later (another branch) does not.
func TestLostRanges(t *testing.T) {
	h := &hist{}
	h.observe(0, 0, 1, "[0]")
	h.acked(10, 0, "a0", 0).acked(20, 0, "a1", 1).acked(30, 0, "a2", 2).acked(40, 0, "a3", 3)
	h.observe(50, 1, 2, "[1]")
	h.acked(60, 1, "b0", 0).acked(70, 1, "b1", 1).acked(80, 1, "b2", 2)
	h.observe(90, 2, 3, "[2]")
	h.acked(100, 2, "c0", 0)
	h.final(200, 9, 1, rec1(0, "c0", 3))
	res := check(t, h)
	var texts []string
	for _, e := range res.Explanations {
		texts = append(texts, e.Text)
	}
	if res.Counts[LostWrite] != 7 || len(res.Explanations) < 2 || res.Explanations[0].Kind != LostWrite {
		t.Fatalf("counts %v, explanations:\n%s", res.Counts, strings.Join(texts, "\n"))
	}
	lost := res.Explanations[:2]
	if lost[0].FirstOffset != 0 || lost[0].LastOffset != 3 || lost[0].Count != 4 ||
		lost[1].FirstOffset != 0 || lost[1].LastOffset != 2 || lost[1].Count != 3 || lost[1].Kind != LostWrite {
		t.Errorf("ranges:\n%s", strings.Join(texts, "\n"))
	}

	// A survivor acked between two lost records splits their range.
	h = &hist{}
	h.acked(10, 0, "a0", 0).acked(20, 0, "a1", 1).acked(30, 0, "a2", 2)
	h.final(200, 9, 3, rec1(1, "a1", 1))
	res = check(t, h)
	if len(res.Explanations) != 2 || res.Explanations[0].Offsets[0] != 0 || res.Explanations[1].Offsets[0] != 2 {
		t.Errorf("survivor between: %+v", res.Explanations)
	}
}

// TestLostTextWithoutObservations: with no observer and no nemesis, the
// sentence says what is not known instead of guessing.
func TestLostTextWithoutObservations(t *testing.T) {
	h := &hist{}
	h.acked(10, 0, "a0", 0).acked(20, 0, "a1", 1)
	h.final(200, 9, 1, rec1(0, "a0", 1))
	res := check(t, h)
	want := "t-0 offset 1: 1 acked record lost; ISR at ack not observed; the log now ends at offset 1"
	if len(res.Explanations) != 1 || res.Explanations[0].Text != want {
		t.Errorf("got %+v, want %q", res.Explanations, want)
	}
}

// TestStats: the failover history's unavailability and recovery.
func TestStats(t *testing.T) {
	res := checkCase(t, testdataCase{name: "valid", path: testdataDir + "/valid.jsonl"})
	ps := res.Stats.Partitions["orders-0"]
	if ps == nil {
		t.Fatal("no stats for orders-0")
	}
	want := []Interval{
		{FromS: 4.5, ToS: 7, DurationS: 2.5, Cause: "no-leader"},
		{FromS: 5, ToS: 8.5, DurationS: 3.5, Cause: "sends-failing", Errors: map[string]int{"NOT_LEADER_OR_FOLLOWER": 1}},
	}
	if len(ps.Unavailable) != len(want) {
		t.Fatalf("unavailable %+v", ps.Unavailable)
	}
	for i, w := range want {
		g := ps.Unavailable[i]
		if g.FromS != w.FromS || g.ToS != w.ToS || g.DurationS != w.DurationS || g.Cause != w.Cause ||
			g.Errors["NOT_LEADER_OR_FOLLOWER"] != w.Errors["NOT_LEADER_OR_FOLLOWER"] {
			t.Errorf("interval %d: %+v, want %+v", i, g, w)
		}
	}
	if ps.UnavailableS != 4 {
		t.Errorf("unavailable_s = %v, want 4 (4.5 s to 8.5 s)", ps.UnavailableS)
	}
	if len(res.Stats.Recovery) != 1 || res.Stats.Recovery[0].Fault.F != "kill" ||
		res.Stats.Recovery[0].RecoveredS["orders-0"] != 4.5 {
		t.Errorf("recovery %+v", res.Stats.Recovery)
	}
	if res.Stats.Ops["send"]["fail"] != 1 || res.Stats.Errors["NOT_LEADER_OR_FOLLOWER"] != 1 {
		t.Errorf("ops %v errors %v", res.Stats.Ops, res.Stats.Errors)
	}
	if got := ps.Leadership; len(got) != 3 || got[2].Leader != 1 || got[2].Election != "clean" {
		t.Errorf("leadership %+v", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
