package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// A bootstrap schedule (Schedule.Bootstrap, a scenario's
// nemesis.bootstrap) plays its steps while the cluster starts: from the
// moment the backend has launched every node's process (formatting, then
// Kafka) until its last step and its final heal, before the cluster is
// ready, the topic exists or the workload runs (cluster.CapBootstrap,
// cluster.DuringStart). It is how kchaos strikes the controller quorum
// during its first activation (KAFKA-20839: a leadership change while the
// first leader writes the bootstrap records). Nothing but the nodes and
// the controllers exists yet, so:
//
//   - its faults are the kinds that act through the backend alone
//     (Kind.Bootstrap: kill, pause, a partition, netem, a power loss);
//   - its targets are nodes by id, the controllers, or the quorum's roles
//     (active-controller, controller-followers), read from the
//     controllers on their own listeners (Env.Quorum);
//   - its only condition is quorum_leader (until: {quorum_leader: true}
//     waits for the first leader).
//
// Its ops go to the run's history like any nemesis op, before the
// workload's first; its final heal undoes what it left and does not wait
// for the brokers, which the backend's start then does.

// bootstrapRoles are the target roles a bootstrap step may take.
var bootstrapRoles = []string{RoleNodes, RoleController, RoleActiveController, RoleControllerFollowers}

// validateBootstrap reports what a bootstrap schedule may not do.
func validateBootstrap(steps []Step, add AddFunc) {
	for i := range steps {
		p, st := fmt.Sprintf("nemesis.bootstrap[%d]", i), &steps[i]
		validateStep(p, st, add)
		switch {
		case st.Until != nil:
			c := *st.Until
			c.QuorumLeader, c.Partition = nil, 0
			if c.String() != "" || st.Until.QuorumLeader == nil {
				add(p+".until", "while the cluster starts only quorum_leader can be waited for (no topic exists and no broker answers yet)")
			}
		case st.Fault != "":
			if k, ok := LookupKind(st.Fault); ok && !k.Bootstrap {
				add(p+".fault", "%s cannot strike while the cluster starts (it needs the topic, the admin API or the workload); these can: %s",
					st.Fault, strings.Join(bootstrapKinds(), ", "))
			}
			if st.Target != nil && !slices.Contains(bootstrapRoles, st.Target.Role) {
				add(p+".target.role", "%q while the cluster starts: want one of %s (no topic exists yet)", st.Target.Role, strings.Join(bootstrapRoles, ", "))
			}
		}
	}
}

// bootstrapKinds are the fault kinds a bootstrap schedule may use.
func bootstrapKinds() []string {
	var out []string
	for _, k := range registry {
		if k.Bootstrap {
			out = append(out, k.Name)
		}
	}
	return out
}

// quorumOnly is the state source of a bootstrap schedule: the quorum, as
// the controllers answer it, and nothing else (no broker answers yet).
type quorumOnly struct{ q QuorumSource }

var errStarting = errors.New("the cluster is starting: only the controllers answer")

func (s quorumOnly) Quorum(ctx context.Context) (histories.QuorumValue, error) {
	if s.q == nil {
		return histories.QuorumValue{}, errors.New("no controller to ask")
	}
	return s.q.Quorum(ctx)
}
func (quorumOnly) Describe(context.Context, string) ([]admin.PartitionState, error) {
	return nil, errStarting
}
func (quorumOnly) LiveBrokers(context.Context) ([]int32, error) { return nil, errStarting }
func (quorumOnly) HighWatermark(context.Context, int32, string, int32) (int64, error) {
	return 0, errStarting
}
func (quorumOnly) LastStableOffset(context.Context, int32, string, int32) (int64, error) {
	return 0, errStarting
}
func (s quorumOnly) ActiveController(ctx context.Context) (int32, error) {
	q, err := s.Quorum(ctx)
	if err != nil {
		return -1, err
	}
	return q.LeaderID, nil
}

// RunBootstrap plays a bootstrap schedule's steps against e (its Admin
// nil: nothing answers but the controllers, through e.Quorum) and then
// its final heal, as Run does a schedule's: a step that fails stops it,
// and the heal runs whatever happened.
func (r *Runner) RunBootstrap(ctx context.Context, steps []Step) error {
	if len(steps) == 0 {
		return nil
	}
	r.bootstrap = true
	defer func() { r.bootstrap = false }()
	return r.Run(ctx, Schedule{Steps: steps})
}
