package quorum

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// removeControllerKind removes a voter from a dynamic quorum through the
// admin API; stopping the node too needs the backend's kill capability
// (RemoveControllerParams.needs).
var removeControllerKind = nemesis.Kind{Name: histories.FRemoveController, New: func() nemesis.Params { return &RemoveControllerParams{} },
	LeavesState: "changes the controller quorum's voters", VoterChange: -1,
	Heal: nemesis.Instant, Color: "#8e3b5a", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: quorumProof}

// quorumProof: a voter set change reads the quorum back after it.
const quorumProof = "the quorum read back after the change (DescribeQuorum), recorded with the op"

// When remove-controller stops the removed node.
const (
	// stopBefore stops the node cleanly, then removes it: what Kafka's
	// 3.9 docs advise until pre-vote (KIP-996, 4.0), since a removed voter
	// that keeps running may disturb the quorum with elections.
	stopBefore = "before"
	// stopAfter removes the node, then stops it (an operator retiring a
	// controller).
	stopAfter = "after"
)

// RemoveControllerParams are a remove-controller's. Its target, required,
// resolves to controllers (active-controller, controller-followers, or
// role nodes with controller ids); the lowest voter among them is
// removed.
type RemoveControllerParams struct {
	// Stop, when set, stops the node before or after its removal; unset,
	// the removed controller keeps running (as an observer, or, with
	// auto-join, adding itself back: KAFKA-19850).
	Stop string `yaml:"stop,omitempty"`
	// Timeout bounds the step (default reconfigWait).
	Timeout nemesis.Duration `yaml:"timeout,omitempty"`
}

func (rp *RemoveControllerParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	nemesis.NeedTarget(p, st, st.Fault, add)
	if t := st.Target; t != nil {
		nemesis.ValidateTarget(p+".target", t, false, false, add)
		if t.Role != nemesis.RoleNodes && !slices.Contains(nemesis.ControllerRoles, t.Role) {
			add(p+".target.role", "%s: remove-controller removes a voter: want %s, or nodes with a controller id", t.Role, joinOr(nemesis.ControllerRoles))
		}
	}
	if rp.Stop != "" && rp.Stop != stopBefore && rp.Stop != stopAfter {
		add(p+".stop", "%q: want %s or %s (or leave it out: the controller keeps running)", rp.Stop, stopBefore, stopAfter)
	}
}

func (rp *RemoveControllerParams) Needs() cluster.Caps {
	if rp.Stop != "" {
		return cluster.NewCaps(cluster.CapKill)
	}
	return 0
}

func (rp *RemoveControllerParams) Build(st nemesis.Step) nemesis.Fault {
	return &removeController{target: st.Target, stop: rp.Stop, timeout: durationOr(rp.Timeout, reconfigWait)}
}

func joinOr(s []string) string {
	if len(s) < 2 {
		return fmt.Sprint(s)
	}
	out := ""
	for i, x := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			out += " or "
		default:
			out += ", "
		}
		out += x
	}
	return out
}

// removeController sends RemoveRaftVoter for a voter (by id and the
// directory id DescribeQuorum names) until Kafka accepts it or the voter
// set lacks it, optionally stopping the node before or after. The op
// records Kafka's answers and the quorum before and after.
type removeController struct {
	target  *nemesis.Target
	stop    string
	timeout time.Duration
}

func (f *removeController) Name() string { return histories.FRemoveController }

func (f *removeController) Spec() map[string]any {
	s := map[string]any{"target": f.target}
	if f.stop != "" {
		s["stop"] = f.stop
	}
	return s
}

func (f *removeController) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	qa, before, err := reconfigStart(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	d := map[string]any{"quorum_before": before}
	targets, err := e.Resolve(ctx, f.target)
	if err != nil {
		return nil, d, err
	}
	i := slices.IndexFunc(targets, func(id int32) bool { _, ok := before.Voter(id); return ok })
	if i < 0 {
		return nil, d, fmt.Errorf("targets %v: none is a voter (voters %v)", targets, before.VoterIDs())
	}
	v, _ := before.Voter(targets[i])
	id := v.ID
	d["node"], d["directory_id"] = id, v.DirectoryID
	if len(before.Voters) == 1 {
		return []int32{id}, d, fmt.Errorf("controller %d is the only voter: removing it would leave no quorum", id)
	}
	if f.stop == stopBefore {
		if err := e.Stop(ctx, id); err != nil {
			return []int32{id}, d, err
		}
		d["stopped"] = stopBefore
	}
	gone := func(m admin.Members) bool { _, ok := m.Voter(id); return !ok }
	answers, err := reconfigure(ctx, e, qa, fmt.Sprintf("remove controller %d", id), func(ctx context.Context) (admin.Answer, error) {
		return qa.RemoveRaftVoter(ctx, id, v.DirectoryID)
	}, gone)
	d["answers"] = answers
	if err != nil {
		return []int32{id}, d, err
	}
	// Kafka's NONE says the removal committed (or a read showed it gone):
	// one read records the voter set now. With auto-join (4.2+) a removed
	// controller that runs may already be back (KAFKA-19850): recorded,
	// not waited out, since that is what a story measures.
	after, err := members(ctx, e, qa)
	if err != nil {
		return []int32{id}, d, err
	}
	d["quorum_after"] = after
	if !gone(after) {
		d["voter_again"] = true
	}
	if f.stop == stopAfter {
		if err := e.Stop(ctx, id); err != nil {
			return []int32{id}, d, err
		}
		d["stopped"] = stopAfter
	}
	return []int32{id}, d, nil
}

// Heal: a voter set change is undone only by another change (a stopped
// node is started by heal kill, as every stopped node).
func (f *removeController) Heal(context.Context, *nemesis.Env) error { return nil }
