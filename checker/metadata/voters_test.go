package metadata

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// voters is a quorum sample at s of leader in epoch listing ids as
// voters, asked 50 ms before it was recorded.
func (b *h) voters(s float64, leader, epoch int32, ids ...int32) *h {
	return b.votersAsked(s, s-0.05, leader, epoch, ids...)
}

// votersAsked is a quorum sample at s asked at asked (0: not recorded,
// as in histories before the observer recorded it).
func (b *h) votersAsked(s, asked float64, leader, epoch int32, ids ...int32) *h {
	q := histories.QuorumValue{Asked: int64(asked * 1e9), LeaderID: leader, LeaderEpoch: epoch, HighWatermark: 10}
	for _, id := range ids {
		q.Voters = append(q.Voters, histories.QuorumReplica{ID: id, LogEndOffset: 10, LastFetchMS: -1, LastCaughtUpMS: -1})
	}
	return b.add(s, histories.ObserverProcess, histories.OK, histories.FQuorum, q, "")
}

// reconfig is an add-controller or remove-controller of node invoked at s
// and completed typ at s+0.5, Kafka's last answer code answer ("" none),
// with more details as key, value pairs.
func (b *h) reconfig(s float64, f string, typ histories.Type, node int32, answer string, kv ...any) *h {
	b.add(s, histories.NemesisProcess, histories.Invoke, f, histories.NemesisValue{Fault: f}, "")
	d := map[string]any{"node": node, "directory_id": fmt.Sprintf("dir%d", node)}
	if answer != "" {
		d["answers"] = []map[string]any{{"code": answer}}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i].(string)] = kv[i+1]
	}
	errText := ""
	if typ == histories.Info {
		errText = "not read back in time"
	}
	return b.add(s+0.5, histories.NemesisProcess, typ, f, histories.NemesisValue{Fault: f, Nodes: []int32{node}, Details: d}, errText)
}

// nem is a nemesis op f of nodes invoked at s, ok at s+0.1.
func (b *h) nem(s float64, f string, nodes ...int32) *h {
	b.add(s, histories.NemesisProcess, histories.Invoke, f, histories.NemesisValue{Fault: f}, "")
	return b.add(s+0.1, histories.NemesisProcess, histories.OK, f, histories.NemesisValue{Fault: f, Nodes: nodes}, "")
}

const (
	add = histories.FAddController
	rem = histories.FRemoveController
)

// base: three voters in epoch 3, controller 1003 outside them.
func base() *h { return new(h).voters(1, 1000, 3, 1000, 1001, 1002) }

// TestVoterChangeLost: each way an acknowledged voter set change can be
// lost (an added voter gone with no removal; a removed one voting again
// with no add, where auto-join cannot explain it), each beside the shape
// that is legal or cannot be judged (a removal between, no ack, a deposed
// leader's older epoch, a sample before the ack, auto-join on or shown).
func TestVoterChangeLost(t *testing.T) {
	on := map[int32]bool{1000: true, 1001: true, 1002: true, 1003: true}
	off := map[int32]bool{1000: false, 1001: false, 1002: false, 1003: false}
	for _, tc := range []struct {
		name     string
		b        *h
		autoJoin map[int32]bool
		want     string // "" none; else the one entry, "counted" or "unknown", and its first sample
		reason   string // a fragment of an unknown or a note; "" none
	}{
		{"acked add, voter gone", base().reconfig(2, add, histories.OK, 1003, "NONE").voters(3, 1000, 3, 1000, 1001, 1002, 1003).
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "add-controller 1003 counted at 4 epoch 3 [1000 1001 1002] 1/2", ""},
		{"acked add, voter gone after its removal", base().reconfig(2, add, histories.OK, 1003, "NONE").voters(3, 1000, 3, 1000, 1001, 1002, 1003).
			reconfig(3.5, rem, histories.OK, 1003, "NONE").voters(4.5, 1000, 3, 1000, 1001, 1002), nil, "", ""},
		{"acked add, voter gone after a removal of unknown voter left open", base().reconfig(2, add, histories.OK, 1003, "NONE").
			add(3.5, histories.NemesisProcess, histories.Invoke, rem, histories.NemesisValue{Fault: rem}, "").
			voters(4.5, 1000, 3, 1000, 1001, 1002), nil, "", ""},
		{"add ok by read-back, not acked", base().reconfig(2, add, histories.OK, 1003, "REQUEST_TIMED_OUT").
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "", ""},
		{"add ok by auto-join, not asked", base().reconfig(2, add, histories.OK, 1003, "", "already_voter", map[string]any{"id": 1003}).
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "", ""},
		{"add answered NONE, read-back timed out (info), voter gone", base().reconfig(2, add, histories.Info, 1003, "NONE").
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "add-controller 1003 counted at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked add, gone only in a deposed leader's older epoch", new(h).voters(1, 1000, 3, 1000, 1001, 1002).voters(1.5, 1001, 4, 1000, 1001, 1002).
			reconfig(2, add, histories.OK, 1003, "NONE").voters(3, 1001, 4, 1000, 1001, 1002, 1003).voters(4, 1000, 3, 1000, 1001, 1002), nil, "", ""},
		{"acked add, gone in a newer epoch", new(h).voters(1, 1000, 3, 1000, 1001, 1002).reconfig(2, add, histories.OK, 1003, "NONE").
			voters(3, 1000, 3, 1000, 1001, 1002, 1003).voters(4, 1001, 4, 1000, 1001, 1002), nil, "add-controller 1003 counted at 4 epoch 4 [1000 1001 1002] 1/2", ""},
		{"acked add, gone only below quorum_after's epoch", base().
			reconfig(2, add, histories.OK, 1003, "NONE", "quorum_after", map[string]any{"leader_id": 1001, "leader_epoch": 4}).
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "", "no quorum sample asked after it lists the voters in epoch 4 or newer"},
		{"acked add, gone only before the ack", base().add(2, histories.NemesisProcess, histories.Invoke, add, histories.NemesisValue{Fault: add}, "").
			voters(2.2, 1000, 3, 1000, 1001, 1002).
			add(2.5, histories.NemesisProcess, histories.OK, add, histories.NemesisValue{Fault: add, Nodes: []int32{1003},
				Details: map[string]any{"node": 1003, "answers": []map[string]any{{"code": "NONE"}}}}, "").
			voters(3, 1000, 3, 1000, 1001, 1002, 1003), nil, "", ""},
		{"acked add, gone in an answer asked before the ack and received after it", base().reconfig(2, add, histories.OK, 1003, "NONE").
			votersAsked(2.7, 2.3, 1000, 3, 1000, 1001, 1002).voters(4, 1000, 3, 1000, 1001, 1002, 1003), nil, "", ""},
		{"acked add, gone in an answer asked just after the ack", base().reconfig(2, add, histories.OK, 1003, "NONE").
			votersAsked(2.7, 2.51, 1000, 3, 1000, 1001, 1002).voters(4, 1000, 3, 1000, 1001, 1002, 1003), nil,
			"add-controller 1003 counted at 2.7 epoch 3 [1000 1001 1002] 1/2", ""},
		{"acked add, ask not recorded: its source's previous sample before the ack bounds it", new(h).votersAsked(1, 0, 1000, 3, 1000, 1001, 1002).
			reconfig(2, add, histories.OK, 1003, "NONE").votersAsked(2.7, 0, 1000, 3, 1000, 1001, 1002), nil, "",
			"no quorum sample asked after it lists the voters in epoch 3 or newer"},
		{"acked add, ask not recorded: its source's previous sample after the ack bounds it", new(h).votersAsked(1, 0, 1000, 3, 1000, 1001, 1002).
			reconfig(2, add, histories.OK, 1003, "NONE").votersAsked(2.7, 0, 1000, 3, 1000, 1001, 1002).votersAsked(4, 0, 1000, 3, 1000, 1001, 1002), nil,
			"add-controller 1003 counted at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked add, no sample after", base().reconfig(2, add, histories.OK, 1003, "NONE"), nil, "",
			"voter-change-lost: add-controller of voter 1003 (directory id dir1003) acknowledged at 2.500 s (Kafka answered NONE), and no quorum sample asked after it lists the voters in epoch 3 or newer"},
		{"acked add, later samples list no voters", base().reconfig(2, add, histories.OK, 1003, "NONE").quorum(4, 1000, 3, 12), nil, "",
			"no quorum sample asked after it lists the voters"},

		{"acked removal, stopped before, back", base().reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "before").
			voters(3, 1000, 3, 1000, 1001).voters(4, 1000, 3, 1000, 1001, 1002), nil, "remove-controller 1002 counted at 4 epoch 3 [1000 1001 1002] 1/2", ""},
		{"acked removal, stopped before, after another's add, back", base().reconfig(1.5, add, histories.OK, 1003, "NONE").
			reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "before").voters(4, 1000, 3, 1000, 1001, 1002, 1003), nil,
			"remove-controller 1002 counted at 4 epoch 3 [1000 1001 1002 1003] 1/1", ""},
		{"acked removal, killed before it, started, back", base().nem(1.2, histories.FKill, 1002).nem(1.5, histories.FStart, 1002).
			reconfig(2, rem, histories.OK, 1002, "NONE").voters(4, 1000, 3, 1000, 1001, 1002), nil,
			"remove-controller 1002 unknown at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked removal, stopped before, back after an add", base().reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "before").
			voters(3, 1000, 3, 1000, 1001).reconfig(3.5, add, histories.OK, 1002, "NONE", "started", true).voters(4.5, 1000, 3, 1000, 1001, 1002), nil, "", ""},
		{"acked removal, stopped before, started by a heal, back", base().reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "before").
			voters(3, 1000, 3, 1000, 1001).nem(3.5, histories.FHeal).voters(4.5, 1000, 3, 1000, 1001, 1002), nil,
			"remove-controller 1002 unknown at 4.5 epoch 3 [1000 1001 1002] 1/2", ""},
		{"acked removal, killed before it, back", base().nem(1.5, histories.FKill, 1002).reconfig(2, rem, histories.OK, 1002, "NONE").
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "remove-controller 1002 counted at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked removal, stopped after, back", base().reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "after").
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "remove-controller 1002 unknown at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked removal, running, auto-join off", base().reconfig(2, rem, histories.OK, 1002, "NONE").
			voters(4, 1000, 3, 1000, 1001, 1002), off, "remove-controller 1002 counted at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked removal, running, auto-join on", base().reconfig(2, rem, histories.OK, 1002, "NONE").
			voters(4, 1000, 3, 1000, 1001, 1002), on, "", "controller.quorum.auto.join.enable=true on 1002"},
		{"acked removal, running, auto-join not recorded", base().reconfig(2, rem, histories.OK, 1002, "NONE").
			voters(4, 1000, 3, 1000, 1001, 1002), nil, "remove-controller 1002 unknown at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked removal, running, auto-join shown by a spare", new(h).voters(1, 1000, 3, 1000, 1001, 1002).voters(1.5, 1000, 3, 1000, 1001, 1002, 1003).
			reconfig(2, rem, histories.OK, 1002, "NONE").voters(4, 1000, 3, 1000, 1001, 1002, 1003), nil, "",
			"which the history shows (controller 1003 became a voter at 1.500 s with no add-controller of it"},
		{"acked removal, running, auto-join shown by already_voter", base().reconfig(1.2, add, histories.OK, 1003, "", "already_voter", map[string]any{"id": 1003}).
			reconfig(2, rem, histories.OK, 1002, "NONE").voters(4, 1000, 3, 1000, 1001, 1003, 1002), nil, "",
			"add-controller at 1.200 s found controller 1003 voting before it asked"},
		{"acked removal, stopped before, back, auto-join on", base().reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "before").
			voters(4, 1000, 3, 1000, 1001, 1002), on, "remove-controller 1002 counted at 4 epoch 3 [1000 1001 1002] 1/1", ""},
		{"acked removal, gone for good", base().reconfig(2, rem, histories.OK, 1002, "NONE", "stopped", "before").
			voters(3, 1000, 3, 1000, 1001).voters(9, 1000, 3, 1000, 1001), nil, "", ""},
		{"removal refused, voter stays", base().reconfig(2, rem, histories.Info, 1002, "VOTER_NOT_FOUND").
			voters(3, 1000, 3, 1000, 1001, 1002), nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{AutoJoin: tc.autoJoin})
			for i := range tc.b.evs {
				if err := c.Add(&tc.b.evs[i]); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
			r := c.result()
			var got []string
			for _, e := range r.VoterChangeLost {
				state := "unknown"
				if e.Counted {
					state = "counted"
				}
				got = append(got, fmt.Sprintf("%s %d %s at %g epoch %d %v %d/%d", e.F, e.Voter, state, e.First.AtS, e.First.Epoch, e.First.Voters, e.Samples, e.Judged))
				if e.Why == "" || e.DirectoryID == "" || e.Final.Voters == nil {
					t.Errorf("entry without why, directory id or final sample: %+v", e)
				}
			}
			wantOne(t, "voter-change-lost", got, tc.want)
			reasons := strings.Join(append(r.Unknowns, r.Notes...), "\n")
			if tc.reason == "" && reasons != "" || !strings.Contains(reasons, tc.reason) {
				t.Errorf("reasons %q, want %q", reasons, tc.reason)
			}
		})
	}
}

// TestAutoJoinFrom: run.json's controller configs say auto-join per
// controller; none recorded is unknown.
func TestAutoJoinFrom(t *testing.T) {
	got := AutoJoinFrom(map[int32]map[string]string{1000: {AutoJoinKey: "true"}, 1001: {AutoJoinKey: "false"}, 1002: {}})
	if len(got) != 3 || !got[1000] || got[1001] || got[1002] {
		t.Errorf("AutoJoinFrom = %v", got)
	}
	if AutoJoinFrom(nil) != nil {
		t.Error("no configs recorded: want nil (unknown)")
	}
}
