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

// addControllerKind adds a controller to a dynamic quorum's voter set. It
// may start the node first (a removed controller that was stopped), so it
// needs the backend's kill capability (stop and start).
var addControllerKind = nemesis.Kind{Name: histories.FAddController, Needs: cluster.NewCaps(cluster.CapKill),
	New:         func() nemesis.Params { return &AddControllerParams{} },
	LeavesState: "changes the controller quorum's voters", VoterChange: 1,
	Heal: nemesis.Instant, Color: "#3b8e5a", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: quorumProof}

// AddControllerParams are an add-controller's. Its target, optional, is
// one controller by id (role nodes); without one it adds the controller
// of lowest id that is not a voter when the step fires (a spare, or one
// a remove-controller took out).
type AddControllerParams struct {
	// Timeout bounds the step (default reconfigWait): the node's start,
	// its catching up as an observer, and the new voter set read back.
	Timeout nemesis.Duration `yaml:"timeout,omitempty"`
}

func (ap *AddControllerParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if t := st.Target; t != nil {
		nemesis.ValidateTarget(p+".target", t, false, false, add)
		if t.Role != nemesis.RoleNodes || len(t.Nodes) != 1 {
			add(p+".target", "add-controller adds one controller: give role nodes with one controller id, or no target (the lowest controller that is not a voter)")
		}
	}
}

func (ap *AddControllerParams) Build(st nemesis.Step) nemesis.Fault {
	return &addController{target: st.Target, timeout: durationOr(ap.Timeout, reconfigWait)}
}

func durationOr(d nemesis.Duration, def time.Duration) time.Duration {
	if d > 0 {
		return d.Std()
	}
	return def
}

// addController starts a controller if it is down, waits until the
// leader lists it as an observer (DescribeQuorum names its metadata
// directory id, which AddRaftVoter needs), and sends AddRaftVoter until
// Kafka accepts it (REQUEST_TIMED_OUT while it catches up) or the voter
// set shows it. The op records Kafka's answers and the quorum before and
// after.
type addController struct {
	target  *nemesis.Target
	timeout time.Duration
}

func (f *addController) Name() string { return histories.FAddController }

func (f *addController) Spec() map[string]any {
	if f.target == nil {
		return nil
	}
	return map[string]any{"target": f.target}
}

func (f *addController) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	qa, before, err := reconfigStart(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	d := map[string]any{"quorum_before": before}
	id, err := f.pick(e, before)
	if err != nil {
		return nil, d, err
	}
	d["node"] = id
	n, _ := e.Cluster.Node(id)
	st, err := e.Cluster.State(ctx, id)
	if err != nil {
		return nil, d, err
	}
	if !st.Running {
		if err := e.Start(ctx, id); err != nil {
			return nil, d, err
		}
		d["started"] = true
	}
	isVoter := func(m admin.Members) bool { _, ok := m.Voter(id); return ok }
	obs, err := waitMembers(ctx, qa, fmt.Sprintf("controller %d as an observer", id), func(m admin.Members) bool {
		_, ok := m.Observer(id)
		return ok || isVoter(m)
	})
	if err != nil {
		return []int32{id}, d, err
	}
	if v, ok := obs.Voter(id); ok {
		// Auto-join (4.2+) may add it before the step does.
		d["already_voter"] = v
		d["quorum_after"] = obs
		return []int32{id}, d, nil
	}
	o, _ := obs.Observer(id)
	d["directory_id"] = o.DirectoryID
	answers, err := reconfigure(ctx, e, qa, fmt.Sprintf("add controller %d", id), func(ctx context.Context) (admin.Answer, error) {
		return qa.AddRaftVoter(ctx, id, o.DirectoryID, n.IP, cluster.ControllerPort)
	}, isVoter)
	d["answers"] = answers
	if err != nil {
		return []int32{id}, d, err
	}
	after, err := waitMembers(ctx, qa, fmt.Sprintf("controller %d as a voter", id), isVoter)
	d["quorum_after"] = after
	return []int32{id}, d, err
}

// pick is the target's controller, or the lowest controller that is not
// a voter.
func (f *addController) pick(e *nemesis.Env, m admin.Members) (int32, error) {
	ctrls := e.ControllerIDs()
	if f.target != nil {
		id := f.target.Nodes[0]
		if !slices.Contains(ctrls, id) {
			return 0, fmt.Errorf("node %d is not a controller of this run (controllers %v)", id, ctrls)
		}
		if _, ok := m.Voter(id); ok {
			return 0, fmt.Errorf("controller %d is a voter already (voters %v)", id, m.VoterIDs())
		}
		return id, nil
	}
	for _, id := range ctrls {
		if _, ok := m.Voter(id); !ok {
			return id, nil
		}
	}
	return 0, fmt.Errorf("every controller of this run is a voter (%v): none to add (cluster.quorum.spare_controllers adds spares)", m.VoterIDs())
}

// Heal: a voter set change is undone only by another change.
func (f *addController) Heal(context.Context, *nemesis.Env) error { return nil }
