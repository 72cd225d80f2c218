package quorum

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// fakeQuorum is the fake admin with a KRaft voter set that
// AddRaftVoter and RemoveRaftVoter change as Kafka's leader would: the
// running controllers that are not voters are observers (a stopped one
// is not listed), each request answers from its script first (e.g.
// REQUEST_TIMED_OUT while the new voter catches up), and with autoJoin a
// removed controller that runs is a voter again at once (KAFKA-19850).
type fakeQuorum struct {
	*fakeAdmin
	mu                 sync.Mutex
	voters             []int32
	leader             int32
	addScript, rmWords []string // error codes answered before NONE
	autoJoin           bool
	calls              []string
}

func (q *fakeQuorum) dir(id int32) string { return cluster.DirectoryID("run", id) }

func (q *fakeQuorum) QuorumMembers(ctx context.Context) (admin.Members, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	m := admin.Members{LeaderID: q.leader, LeaderEpoch: 3}
	for _, n := range q.C.Controllers() {
		st, _ := q.C.State(ctx, n.ID)
		mem := admin.Member{ID: n.ID, DirectoryID: q.dir(n.ID), LogEndOffset: 50}
		switch {
		case slices.Contains(q.voters, n.ID):
			m.Voters = append(m.Voters, mem)
		case st.Running:
			m.Observers = append(m.Observers, mem)
		}
	}
	return m, nil
}

// Quorum answers the quorum roles from the same voter set.
func (q *fakeQuorum) Quorum(ctx context.Context) (histories.QuorumValue, error) {
	m, _ := q.QuorumMembers(ctx)
	v := histories.QuorumValue{LeaderID: m.LeaderID, LeaderEpoch: m.LeaderEpoch}
	for _, x := range m.Voters {
		v.Voters = append(v.Voters, histories.QuorumReplica{ID: x.ID})
	}
	return v, nil
}

func (q *fakeQuorum) answer(script *[]string) admin.Answer {
	if len(*script) == 0 {
		return admin.Answer{Code: "NONE"}
	}
	code := (*script)[0]
	*script = (*script)[1:]
	return admin.Answer{Code: code, Message: "scripted", Retriable: code == "REQUEST_TIMED_OUT"}
}

func (q *fakeQuorum) AddRaftVoter(_ context.Context, id int32, dir, host string, port uint16) (admin.Answer, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls = append(q.calls, fmt.Sprintf("add %d %s %s:%d", id, dir, host, port))
	a := q.answer(&q.addScript)
	if a.OK() {
		q.voters = append(q.voters, id)
	}
	return a, nil
}

func (q *fakeQuorum) RemoveRaftVoter(ctx context.Context, id int32, dir string) (admin.Answer, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls = append(q.calls, fmt.Sprintf("remove %d %s", id, dir))
	a := q.answer(&q.rmWords)
	if a.OK() {
		q.voters = slices.DeleteFunc(q.voters, func(v int32) bool { return v == id })
		if st, _ := q.C.State(ctx, id); q.autoJoin && st.Running {
			q.voters = append(q.voters, id)
		}
	}
	return a, nil
}

// newReconfigEnv: controllers 1000-1003 (1003 a spare), voters 1000-1002
// led by 1001.
func newReconfigEnv() (*nemesis.Env, *fakeCluster, *fakeQuorum) {
	env, c, a := newQuorumEnv(nil)
	c.Nodes[1003] = cluster.Node{ID: 1003, Role: cluster.RoleController, IP: "10.9.0.13"}
	c.States[1003] = cluster.NodeState{Running: true}
	q := &fakeQuorum{fakeAdmin: a, voters: []int32{1000, 1001, 1002}, leader: 1001}
	env.Admin = q
	return env, c, q
}

// TestReconfigFaults: add-controller and remove-controller against the
// fake quorum: what they send Kafka, what they record (Kafka's answers,
// the quorum before and after), what they start and stop, and what they
// refuse.
func TestReconfigFaults(t *testing.T) {
	for _, tc := range []struct {
		name    string
		step    string
		setup   func(c *fakeCluster, q *fakeQuorum)
		calls   string // the requests sent, joined by "; "
		answers string // the codes recorded
		voters  string // quorum_after's voters
		stopped []int32
		details []string // keys the op's details must have
		err     string
	}{
		{name: "add the spare, after Kafka's catching-up answer",
			step: "{fault: add-controller}", setup: func(_ *fakeCluster, q *fakeQuorum) { q.addScript = []string{"REQUEST_TIMED_OUT"} },
			calls:   "add 1003 " + cluster.DirectoryID("run", 1003) + " 10.9.0.13:9093; add 1003 " + cluster.DirectoryID("run", 1003) + " 10.9.0.13:9093",
			answers: "[REQUEST_TIMED_OUT NONE]", voters: "[1000 1001 1002 1003]", details: []string{"quorum_before", "directory_id"}},
		{name: "add a removed controller that was stopped: started first",
			step: "{fault: add-controller, target: {role: nodes, nodes: [1002]}}",
			setup: func(c *fakeCluster, q *fakeQuorum) {
				q.voters = []int32{1000, 1001}
				c.States[1002] = cluster.NodeState{}
			},
			calls: "add 1002 " + cluster.DirectoryID("run", 1002) + " 10.9.0.12:9093", answers: "[NONE]", voters: "[1000 1001 1002]",
			details: []string{"started"}},
		{name: "add when every controller votes", step: "{fault: add-controller}",
			setup: func(c *fakeCluster, q *fakeQuorum) { q.voters = []int32{1000, 1001, 1002, 1003} },
			err:   "every controller of this run is a voter"},
		{name: "add a voter", step: "{fault: add-controller, target: {role: nodes, nodes: [1000]}}",
			err: "controller 1000 is a voter already"},
		{name: "add a broker", step: "{fault: add-controller, target: {role: nodes, nodes: [1]}}",
			err: "node 1 is not a controller"},
		{name: "add refused for good", step: "{fault: add-controller}",
			setup: func(_ *fakeCluster, q *fakeQuorum) { q.addScript = []string{"INVALID_REQUEST"} },
			calls: "add 1003 " + cluster.DirectoryID("run", 1003) + " 10.9.0.13:9093", answers: "[INVALID_REQUEST]",
			err: "Kafka answered INVALID_REQUEST: scripted"},
		{name: "remove a follower, then stop it",
			step:  "{fault: remove-controller, target: {role: controller-followers}, stop: after}",
			calls: "remove 1000 " + cluster.DirectoryID("run", 1000), answers: "[NONE]", voters: "[1001 1002]", stopped: []int32{1000}},
		{name: "remove the active controller, stopped first, after a timed-out answer",
			step:    "{fault: remove-controller, target: {role: active-controller}, stop: before}",
			setup:   func(_ *fakeCluster, q *fakeQuorum) { q.rmWords = []string{"REQUEST_TIMED_OUT"} },
			calls:   "remove 1001 " + cluster.DirectoryID("run", 1001) + "; remove 1001 " + cluster.DirectoryID("run", 1001),
			answers: "[REQUEST_TIMED_OUT NONE]", voters: "[1000 1002]", stopped: []int32{1001}},
		{name: "auto-join adds the removed controller straight back (KAFKA-19850): recorded, not an error",
			step:  "{fault: remove-controller, target: {role: nodes, nodes: [1002]}}",
			setup: func(_ *fakeCluster, q *fakeQuorum) { q.autoJoin = true },
			calls: "remove 1002 " + cluster.DirectoryID("run", 1002), answers: "[NONE]", voters: "[1000 1001 1002]",
			details: []string{"voter_again"}},
		{name: "remove the only voter", step: "{fault: remove-controller, target: {role: active-controller}}",
			setup: func(_ *fakeCluster, q *fakeQuorum) { q.voters = []int32{1001} },
			err:   "the only voter: removing it would leave no quorum"},
		{name: "remove a non-voter", step: "{fault: remove-controller, target: {role: nodes, nodes: [1003]}}",
			err: "targets [1003]: none is a voter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, c, q := newReconfigEnv()
			if tc.setup != nil {
				tc.setup(c, q)
			}
			s, err := nemesis.ParseSchedule([]byte("steps:\n - " + tc.step))
			if err != nil {
				t.Fatal(err)
			}
			f, err := nemesis.NewFault(s.Steps[0])
			if err != nil {
				t.Fatal(err)
			}
			_, d, err := f.Inject(context.Background(), env)
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("Inject: %v, want error %q", err, tc.err)
			}
			if got := strings.Join(q.calls, "; "); got != tc.calls {
				t.Errorf("requests %q, want %q", got, tc.calls)
			}
			if tc.answers != "" {
				as, _ := d["answers"].([]admin.Answer)
				var codes []string
				for _, a := range as {
					codes = append(codes, a.Code)
				}
				if got := fmt.Sprint(codes); got != tc.answers {
					t.Errorf("answers %s, want %s", got, tc.answers)
				}
			}
			if tc.voters != "" {
				after, ok := d["quorum_after"].(admin.Members)
				if !ok || fmt.Sprint(after.VoterIDs()) != tc.voters {
					t.Errorf("quorum_after %+v, want voters %s", d["quorum_after"], tc.voters)
				}
			}
			for _, k := range tc.details {
				if _, ok := d[k]; !ok {
					t.Errorf("details lack %s: %v", k, d)
				}
			}
			for _, id := range tc.stopped {
				if c.States[id].Running {
					t.Errorf("node %d still runs", id)
				}
			}
		})
	}
}

// TestReconfigAsksTheControllers: where Env.Quorum can change the voter
// set (admin.Controllers: the leading controller on its own listener) the
// requests go there, not through a broker (Env.Admin), which a fault may
// have cut off (q4); without it, through Env.Admin.
func TestReconfigAsksTheControllers(t *testing.T) {
	for _, viaControllers := range []bool{true, false} {
		t.Run(fmt.Sprint("via controllers ", viaControllers), func(t *testing.T) {
			env, _, brokers := newReconfigEnv()
			ctrl := &fakeQuorum{fakeAdmin: brokers.fakeAdmin, voters: []int32{1000, 1001, 1002}, leader: 1001}
			if viaControllers {
				env.Quorum = ctrl
			}
			s, err := nemesis.ParseSchedule([]byte("steps:\n - {fault: add-controller}"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := nemesis.NewFault(s.Steps[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := f.Inject(context.Background(), env); err != nil {
				t.Fatal(err)
			}
			want, other := ctrl, brokers
			if !viaControllers {
				want, other = brokers, ctrl
			}
			if len(want.calls) != 1 || len(other.calls) != 0 {
				t.Errorf("requests %v to the one that should have them, %v to the other", want.calls, other.calls)
			}
		})
	}
}

// TestReconfigNeeds: remove-controller needs the kill capability only
// when it stops the node; add-controller always (it may start one).
func TestReconfigNeeds(t *testing.T) {
	for _, tc := range []struct {
		step string
		want cluster.Caps
	}{
		{"{fault: remove-controller, target: {role: active-controller}}", 0},
		{"{fault: remove-controller, target: {role: active-controller}, stop: before}", caps(cluster.CapKill)},
		{"{fault: add-controller}", caps(cluster.CapKill)},
	} {
		s, err := nemesis.ParseSchedule([]byte("steps:\n - " + tc.step))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Steps[0].Needs(); got != tc.want {
			t.Errorf("%s needs %s, want %s", tc.step, got, tc.want)
		}
	}
}

// TestReconfigValidate: each parameter's problem is named under its key.
func TestReconfigValidate(t *testing.T) {
	for _, tc := range []struct{ step, err string }{
		{"{fault: remove-controller}", "nemesis.steps[0].target: fault remove-controller needs a target"},
		{"{fault: remove-controller, target: {role: controller-followers}, stop: sideways}", `nemesis.steps[0].stop: "sideways": want before or after`},
		{"{fault: remove-controller, target: {role: observers}}", "nemesis.steps[0].target.role: observers: remove-controller removes a voter"},
		{"{fault: add-controller, target: {role: nodes, nodes: [1003, 1004]}}", "nemesis.steps[0].target: add-controller adds one controller"},
		{"{fault: add-controller, timeout: -1s}", `duration "-1s": must not be negative`},
		{"{fault: add-controller, stop: after}", "nemesis.steps[0].stop: only for fault remove-controller"},
	} {
		_, err := nemesis.ParseSchedule([]byte("steps:\n - " + tc.step))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.step, err, tc.err)
		}
	}
}
