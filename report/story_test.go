package report

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storyHistory builds a synthetic history line by line, times in ms.
type storyHistory struct{ lines []string }

func (h *storyHistory) add(process int, typ, f string, ms int64, value any, errText string) *storyHistory {
	v, _ := json.Marshal(value)
	line := fmt.Sprintf(`{"index":%d,"time":%d,"process":%d,"type":"%s","f":"%s","value":%s`, len(h.lines), ms*1e6, process, typ, f, v)
	if errText != "" {
		line += fmt.Sprintf(`,"error":%q`, errText)
	}
	h.lines = append(h.lines, line+"}")
	return h
}

// obs is an observer sample of orders-0.
func (h *storyHistory) obs(ms int64, leader int32, isr, elr []int32) *storyHistory {
	return h.add(-2, "ok", "observe", ms, map[string]any{"topic": "orders", "partition": 0, "leader": leader,
		"leader_epoch": 0, "isr": isr, "elr": elr, "last_known_elr": []int32{}, "high_watermark": 0}, "")
}

// obsLK is a sample with a last known ELR.
func (h *storyHistory) obsLK(ms int64, leader int32, isr, lkelr []int32) *storyHistory {
	return h.add(-2, "ok", "observe", ms, map[string]any{"topic": "orders", "partition": 0, "leader": leader,
		"leader_epoch": 0, "isr": isr, "elr": []int32{}, "last_known_elr": lkelr, "high_watermark": 0}, "")
}

// fault is a nemesis op (invoke and ok) that struck nodes.
func (h *storyHistory) fault(ms int64, f string, nodes ...int32) *storyHistory {
	h.add(-1, "invoke", f, ms, map[string]any{"fault": f}, "")
	return h.add(-1, "ok", f, ms+50, map[string]any{"fault": f, "nodes": nodes}, "")
}

// until is an until op: its invoke at ms and completion at ms+took.
func (h *storyHistory) until(ms, took int64, cond map[string]any, optional, held bool) *storyHistory {
	d := map[string]any{"partition": 0, "optional": optional, "timeout_ms": took}
	text := "partition 0"
	for _, k := range slices.Sorted(maps.Keys(cond)) {
		d[k] = cond[k]
		text += fmt.Sprintf(" %s %v", k, cond[k])
	}
	d["condition"] = text
	h.add(-1, "invoke", "until", ms, map[string]any{"fault": "until", "details": d}, "")
	d["held"] = held
	if held {
		return h.add(-1, "ok", "until", ms+took, map[string]any{"fault": "until", "details": d}, "")
	}
	d["last_seen"] = "partition 0 leader 1 epoch 3 isr [1 2] elr []"
	return h.add(-1, "fail", "until", ms+took, map[string]any{"fault": "until", "details": d}, "until "+text+": not within ...")
}

func (h *storyHistory) String() string { return strings.Join(h.lines, "\n") + "\n" }

func newStory() *storyHistory {
	h := &storyHistory{}
	h.add(-1, "invoke", "schedule", 0, map[string]any{"fault": "schedule"}, "")
	return h.add(-1, "ok", "schedule", 0, map[string]any{"fault": "schedule"}, "")
}

var (
	all, isr0 = []int32{0, 1, 2}, []int32{0}
	none      = []int32{}
	valid     = storyCounts{Verdict: Valid}
)

// TestStoryWords: an audit row's words say which branch the story took,
// from the history alone: the elections the observer saw (from the ISR,
// the ELR or uncleanly), the time without a leader, the leader a fault
// struck that never led again, the untils that timed out, and the
// checker's counts.
func TestStoryWords(t *testing.T) {
	leader0 := map[string]any{"leader": 0}
	for _, tc := range []struct {
		name    string
		history *storyHistory
		counts  storyCounts
		want    string
	}{
		{"s7 strong: ELR elects a follower, the amnesiac leader never leads again",
			newStory().obs(100, 0, all, none).fault(8000, "partition", 0, 1, 2).obs(12000, 0, isr0, []int32{1, 2}).
				fault(15000, "lose-unflushed", 0).obs(15500, 1, []int32{1}, []int32{2}).
				until(15100, 60000, leader0, true, false).obs(80000, 1, all, none),
			storyCounts{Verdict: Valid, Refused: 412},
			"when broker 0 lost power, ELR elected broker 1 within a second; the amnesiac leader (broker 0) never led again; 412 writes refused for want of in-sync replicas (NOT_ENOUGH_REPLICAS); nothing lost"},
		{"s1 weak: an unclean election loses what broker 0 alone had",
			newStory().obs(100, 0, all, none).obs(9000, 0, isr0, none).fault(14000, "kill", 0).
				obs(14200, 1, []int32{1}, none).until(14100, 30000, map[string]any{"offline": true}, true, false),
			storyCounts{Verdict: Invalid, Lost: 8539, Reused: 8543},
			"when broker 0 was killed, broker 1 was elected uncleanly (in neither the ISR nor the ELR) within a second; broker 0 never led again; partition 0 kept a leader through the 30 s waited for it to go offline; 8539 acked records lost, 8543 offsets reused"},
		{"s1 seed: offline until the killed leader returns",
			newStory().obs(100, 0, all, none).obs(9000, 0, isr0, none).fault(14000, "kill", 0).
				obs(14300, -1, isr0, none).until(14100, 600, map[string]any{"offline": true}, true, true).
				obs(27500, 0, isr0, none).until(27000, 500, leader0, true, true),
			valid,
			"when broker 0 was killed, the partition had no leader for 13.2 s until broker 0 led again; nothing lost"},
		{"s9 strong: a rack outage waits for the rack",
			newStory().obs(100, 0, all, none).obs(5000, 0, []int32{0, 1}, none).fault(9000, "kill", 0, 1).
				obs(9250, -1, []int32{0}, []int32{1}).obs(43250, 0, []int32{0}, none),
			valid,
			"when brokers 0 and 1 were killed, the partition had no leader for 34.0 s until broker 0 led again; nothing lost"},
		{"s9 strong: a struck follower in the ELR leads once it is back",
			newStory().obs(100, 0, all, none).obs(5000, 0, []int32{0, 1}, none).fault(9000, "kill", 0, 1).
				obs(9250, -1, []int32{0}, []int32{1}).obs(31050, 1, []int32{1}, none),
			valid,
			"when brokers 0 and 1 were killed, the partition had no leader for 21.8 s until ELR elected broker 1 once it was back; broker 0 never led again; nothing lost"},
		{"a condition of two parts is quoted whole",
			newStory().obs(100, 0, all, none).until(100, 30000, map[string]any{"leader": 1, "isr": []int32{1}}, true, false),
			valid,
			"the wait for partition 0 isr [1] leader 1 timed out after 30 s; nothing lost"},
		{"s10: a clean election from the ISR",
			newStory().obs(100, 0, all, none).fault(5000, "kill", 0).obs(5400, 1, []int32{1, 2}, none).
				until(5100, 30000, map[string]any{"leader": 1}, false, true),
			valid,
			"when broker 0 was killed, broker 1 was elected from the ISR within a second; broker 0 never led again; nothing lost"},
		{"a replica only in the last known ELR is elected",
			newStory().obs(100, 0, all, none).fault(5000, "kill", 0).obsLK(5200, -1, isr0, []int32{1}).obs(7200, 1, []int32{1}, none),
			valid,
			"when broker 0 was killed, the partition had no leader for 2.0 s until broker 1 was elected from the last known ELR; broker 0 never led again; nothing lost"},
		{"another topic's samples are not the story's",
			newStory().obs(100, 0, all, none).fault(5000, "kill", 0).
				add(-2, "ok", "observe", 5200, map[string]any{"topic": "other", "partition": 0, "leader": 2, "isr": []int32{2}}, "").
				obs(5400, 1, []int32{1, 2}, none),
			valid,
			"when broker 0 was killed, broker 1 was elected from the ISR within a second; broker 0 never led again; nothing lost"},
		{"the ISR never shrank and nothing moved",
			newStory().obs(100, 0, all, none).fault(5000, "partition", 0, 1, 2).
				until(5100, 30000, map[string]any{"isr": []int32{0}}, true, false).fault(36000, "pause", 2),
			valid,
			"the observer saw no leader change of partition 0; the ISR did not become {0} in the 30 s waited; nothing lost"},
		{"a required wait that timed out",
			newStory().obs(100, 0, all, none).fault(5000, "kill", 0).obs(5300, 1, []int32{1, 2}, none).
				until(5100, 60000, leader0, false, false),
			storyCounts{Verdict: Unknown},
			"when broker 0 was killed, broker 1 was elected from the ISR within a second; broker 0 never led again; broker 0 did not lead in the 60 s waited (a required wait: the story stopped there); the checker could not decide"},
		{"another required wait that timed out stops the story",
			newStory().obs(100, 0, all, none).until(100, 30000, map[string]any{"isr": []int32{0}}, false, false),
			valid,
			"the ISR did not become {0} in the 30 s waited (a required wait: the story stopped there); nothing lost"},
		{"no observer sample",
			newStory().fault(5000, "kill", 0),
			valid,
			"no observer sample of the partition: nothing to say about its leaders; nothing lost"},
		{"other anomalies but no loss",
			newStory().obs(100, 0, all, none),
			storyCounts{Verdict: Invalid, Other: map[string]int{"nonmonotonic-poll": 2}},
			"nothing lost, but the checker found nonmonotonic-poll 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := storyOf(strings.NewReader(tc.history.String()), "orders", 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Words(tc.counts); got != tc.want {
				t.Errorf("words\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestStoryOfBadUntil: an until op whose details do not decode is an
// error naming the event, never a silent gap in the story.
func TestStoryOfBadUntil(t *testing.T) {
	h := newStory().add(-1, "ok", "until", 5, map[string]any{"fault": "until", "details": map[string]any{"leader": "zero"}}, "")
	if _, err := storyOf(strings.NewReader(h.String()), "orders", 0); err == nil || !strings.Contains(err.Error(), "event 2") {
		t.Errorf("bad until details: %v", err)
	}
}

// TestStoryWordsRealSeed: a real s1 run (seed settings, Kafka 4.1.2,
// recorded before untils were): offline until the killed leader returned.
func TestStoryWordsRealSeed(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "histories", "testdata", "real-s1", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := storyOf(f, "orders", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "when broker 0 was killed, the partition had no leader for 13.2 s until broker 0 led again; nothing lost"
	if got := st.Words(valid); got != want {
		t.Errorf("words\n got %s\nwant %s", got, want)
	}
}

// TestStoryWordsRealAudit: real audit runs' folders (testdata/audit-*:
// run.json, results.json and the gzipped history) read as a reviewer
// would sign them, through StoryWords as the audit calls it.
func TestStoryWordsRealAudit(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{"audit-strong-s7", "when broker 0 lost power, ELR elected broker 1 within a second; the amnesiac leader (broker 0) never led again; " +
			"175 writes refused for want of in-sync replicas (NOT_ENOUGH_REPLICAS); nothing lost"},
		{"audit-weak-s7", "when broker 0 lost power, broker 1 was elected uncleanly (in neither the ISR nor the ELR) within a second; " +
			"the amnesiac leader (broker 0) never led again; 7165 acked records lost, 3462 offsets reused"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{"run.json", ResultsFile, HistoryFile} {
				unpack(t, filepath.Join("testdata", tc.dir, name), filepath.Join(dir, name))
			}
			got, err := StoryWords(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("words\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// unpack copies src, or src.gz uncompressed, to dst: large real files are
// kept gzipped.
func unpack(t *testing.T, src, dst string) {
	t.Helper()
	var r io.Reader
	f, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		if f, err = os.Open(src + ".gz"); err == nil {
			r, err = gzip.NewReader(f)
		}
	} else {
		r = f
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, r); err != nil {
		t.Fatal(err)
	}
}
