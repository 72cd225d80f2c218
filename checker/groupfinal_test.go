package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// gfinal is a group-final of group "g" on topic "t" by process 98,
// completing typ; on ok it holds the "P:O" offsets read back.
func gfinal(call int64, typ string, ps ...string) []string {
	inv := `{"group":"g","topic":"t"}`
	if typ != "ok" {
		return []string{ev(call, 98, "invoke", "group-final", inv), ev(call+5, 98, typ, "group-final", inv, "timeout")}
	}
	var parts []string
	for _, p := range ps {
		f := strings.SplitN(p, ":", 2)
		parts = append(parts, fmt.Sprintf(`"%s":{"offset":%s,"leader_epoch":1}`, f[0], f[1]))
	}
	done := fmt.Sprintf(`{"group":"g","topic":"t","offsets":{%s},"type":"classic","state":"Empty","protocol":"range"}`, strings.Join(parts, ","))
	return []string{ev(call, 98, "invoke", "group-final", inv), ev(call+5, 98, "ok", "group-final", done)}
}

// TestReadBack: the group coordinator's committed offsets read back
// (group-final) held against the group's commits: commit-lost only below
// the last acknowledged commit, excused by a commit of unknown outcome
// that asked for exactly what was read, never guessed from a read-back
// that did not answer; commit-unexplained, information, for an offset no
// commit asked for.
func TestReadBack(t *testing.T) {
	// m0 delivers offsets 0-4 of partition 0 and commits 3, then 5.
	base := cat(fiveAcked, sub(10, 100, "m0"), rebal(10, 110, 1, []int{0}, nil),
		gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"),
		gcommit(10, 140, 150, 1, "ok", "0:3"), gcommit(10, 160, 170, 1, "ok", "0:5"))
	elect := one(ev(200, -1, "invoke", "elect-unclean", `{"fault":"elect-unclean","nodes":[1],"details":{"topic":"__consumer_offsets","partition":7}}`))
	elect = append(elect, ev(210, -1, "ok", "elect-unclean", `{"fault":"elect-unclean","nodes":[1],"details":{"topic":"__consumer_offsets","partition":7}}`))
	for _, tc := range []struct {
		name   string
		lines  []string
		want   map[string]int
		valid  Verdict
		judged []bool // stats.groups.read_back[i].judged
		text   []string
	}{{
		name:  "read back equal to the last commit",
		lines: cat(base, fiveFinal, gfinal(950, "ok", "0:5")), want: map[string]int{}, valid: Valid, judged: []bool{true},
	}, {
		name:  "read back below the last acknowledged commit: lost",
		lines: cat(base, elect, fiveFinal, gfinal(950, "ok", "0:3")), want: map[string]int{commitLost: 1}, valid: Invalid, judged: []bool{true},
		text: []string{"holds offset 3 of t-0", "below offset 5 that commit #", "by p10 (member m0, generation 1)",
			"elect-unclean [1] at 0.0 s on __consumer_offsets", "forgot an acknowledged commit"},
	}, {
		name:  "no committed offset at all: lost",
		lines: cat(base, fiveFinal, gfinal(950, "ok")), want: map[string]int{commitLost: 1}, valid: Invalid, judged: []bool{true},
		text: []string{"holds no committed offset of t-0", "the history holds no fault between the commit and the read-back"},
	}, {
		name:  "above the last ok commit, as an info commit asked: no anomaly",
		lines: cat(base, gcommit(10, 180, 190, 1, "info", "0:6"), fiveFinal, gfinal(950, "ok", "0:6")),
		want:  map[string]int{}, valid: Valid, judged: []bool{true},
	}, {
		name:  "an info commit above a lost read-back excuses nothing",
		lines: cat(base, gcommit(10, 180, 190, 1, "info", "0:6"), fiveFinal, gfinal(950, "ok", "0:3")),
		want:  map[string]int{commitLost: 1}, valid: Invalid, judged: []bool{true},
		text: []string{"1 commit of the partition of unknown outcome asked for more; it may never have happened and excuses nothing"},
	}, {
		name:  "below, as an info commit asked: it may have been written last",
		lines: cat(base, gcommit(10, 180, 190, 1, "info", "0:4"), fiveFinal, gfinal(950, "ok", "0:4")),
		want:  map[string]int{}, valid: Valid, judged: []bool{true},
	}, {
		name: "overlapping last commits: either may be kept",
		lines: func() []string {
			c5, c4 := gcommit(10, 140, 160, 1, "ok", "0:5"), gcommit(11, 145, 165, 1, "ok", "0:4")
			return cat(fiveAcked, sub(10, 100, "m0"), sub(11, 102, "m1"), rebal(10, 110, 1, []int{0}, nil),
				gpoll(10, 120, 130, 1, "0:0:v0", "0:1:v1", "0:2:v2", "0:3:v3", "0:4:v4"),
				[]string{c5[0], c4[0], c5[1], c4[1]}, fiveFinal, gfinal(950, "ok", "0:4"))
		}(),
		want: map[string]int{}, valid: Valid, judged: []bool{true},
	}, {
		// Kafka keeps the last commit written: a later lower one is
		// commit-backwards, and the read-back that holds it lost nothing.
		name:  "the last acknowledged commit went lower: the read-back holds it",
		lines: cat(base, gcommit(10, 180, 190, 1, "ok", "0:4"), fiveFinal, gfinal(950, "ok", "0:4")),
		want:  map[string]int{CommitBackwards: 1}, valid: Invalid, judged: []bool{true},
	}, {
		name:  "no read-back: nothing judged",
		lines: cat(base, fiveFinal), want: map[string]int{}, valid: Valid,
	}, {
		name:  "an info read-back judges nothing",
		lines: cat(base, fiveFinal, gfinal(950, "info")), want: map[string]int{}, valid: Valid, judged: []bool{false},
	}, {
		name:  "an offset no commit asked for: information",
		lines: cat(base, fiveFinal, gfinal(950, "ok", "0:9")), want: map[string]int{commitUnexplained: 1}, valid: Valid, judged: []bool{true},
		text: []string{"holds offset 9 of t-0", "which no commit of the history asked for (the highest was 5)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCheck(t, lines2hist(tc.lines...), Options{})
			got := map[string]int{}
			for _, k := range []string{commitLost, commitUnexplained, LostByCommit, CommitBackwards} {
				if n := r.Counts[k]; n > 0 {
					got[k] = n
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("counts %v, want %v", got, tc.want)
			}
			if r.Valid != tc.valid {
				t.Errorf("valid %v, want %v (%q)", r.Valid, tc.valid, r.Reasons)
			}
			st := r.Stats.Groups
			if st == nil {
				t.Fatal("no group stats")
			}
			if len(st.ReadBack) != len(tc.judged) {
				t.Fatalf("read_back %+v, want %d", st.ReadBack, len(tc.judged))
			}
			for i, j := range tc.judged {
				if rb := st.ReadBack[i]; rb.Judged != j || (!j && !strings.Contains(rb.Note, "nothing is judged")) {
					t.Errorf("read_back[%d] %+v: want judged %v", i, rb, j)
				}
			}
			var texts []string
			for _, e := range r.Anomalies.CommitLost {
				texts = append(texts, e.Text)
			}
			for _, e := range r.Anomalies.CommitUnexplained {
				texts = append(texts, e.Text)
			}
			all := strings.Join(texts, "\n")
			for _, w := range tc.text {
				if !strings.Contains(all, w) {
					t.Errorf("no %q in\n%s", w, all)
				}
			}
		})
	}
}

// TestReadBackBadInput: a group-final the contract does not allow is
// refused with the field named.
func TestReadBackBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"without group", one(ev(1, 98, "invoke", "group-final", `{"topic":"t"}`)), `group-final invoke value: missing field "group"`},
		{"without value", one(ev(1, 98, "invoke", "group-final", "")), `group-final invoke: missing field "value"`},
		{"ok without value", []string{ev(1, 98, "invoke", "group-final", `{"group":"g","topic":"t"}`), ev(2, 98, "ok", "group-final", "")},
			`group-final ok: missing field "value"`},
		{"ok names another group", []string{ev(1, 98, "invoke", "group-final", `{"group":"g","topic":"t"}`),
			ev(2, 98, "ok", "group-final", `{"group":"h","topic":"t"}`)}, `field "group": "h", but its invoke named "g"`},
		{"negative offset", []string{ev(1, 98, "invoke", "group-final", `{"group":"g","topic":"t"}`),
			ev(2, 98, "ok", "group-final", `{"group":"g","topic":"t","offsets":{"0":{"offset":-2,"leader_epoch":1}}}`)}, `partition 0 at -2, negative`},
		{"bad partition key", []string{ev(1, 98, "invoke", "group-final", `{"group":"g","topic":"t"}`),
			ev(2, 98, "ok", "group-final", `{"group":"g","topic":"t","offsets":{"x":{"offset":1}}}`)}, `field "offsets": bad partition key "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checkReader(strings.NewReader(lines2hist(tc.lines...)), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestGroupProtocolFellBack: members that asked for the consumer protocol
// (KIP-848) while the coordinator's read-back describes a classic group
// (a client that fell back, as franz-go does against brokers not serving
// it; a real g1 did) leave a note naming both; members that asked for
// what ran leave none, nor a group of both protocols (KIP-848 online
// migration). Never a verdict: every rule holds for what ran.
func TestGroupProtocolFellBack(t *testing.T) {
	asking := func(protocol string) []string {
		var out []string
		for _, l := range sub(10, 100, "m0") {
			out = append(out, strings.ReplaceAll(l, `"protocol":"classic"`, `"protocol":"`+protocol+`"`))
		}
		return out
	}
	const note = "consumer group g: its members asked for the consumer protocol, and the coordinator's read-back at 0.0 s describes a classic group: the client fell back, so what was checked is the classic protocol"
	for _, tc := range []struct {
		protocol, other string // the second member's ("": none)
		want            bool
	}{{"consumer", "", true}, {"classic", "", false}, {"consumer", "classic", false}} {
		var second []string
		if tc.other != "" {
			for _, l := range sub(11, 102, "m1") {
				second = append(second, strings.ReplaceAll(l, `"protocol":"classic"`, `"protocol":"`+tc.other+`"`))
			}
		}
		lines := cat(send(0, 10, 15, 0, "v0", "ok", 0), asking(tc.protocol), second, rebal(10, 110, 1, []int{0}, nil),
			gpoll(10, 120, 130, 1, "0:0:v0"), gcommit(10, 140, 150, 1, "ok", "0:1"), finalAll(300, 0, 1, "0:0:v0"), gfinal(400, "ok", "0:1"))
		res := mustCheck(t, lines2hist(lines...), Options{})
		if got := slices.Contains(res.Reasons, note); got != tc.want {
			t.Errorf("%s (and %q) members: the note %v, want %v; reasons %q", tc.protocol, tc.other, got, tc.want, res.Reasons)
		}
		if res.Valid != Valid {
			t.Errorf("%s members: %v, want valid (a note only); reasons %q", tc.protocol, res.Valid, res.Reasons)
		}
	}
}
