package nemesis

import (
	"context"
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// Target roles of the KRaft controller quorum, as DescribeQuorum reports it
// when the fault fires (the voter set can change during a run, and the
// active controller moves): the active controller (RoleController is its
// older name), the other voters, and the observers (the brokers, and
// controllers that are not voters). Explicit controller ids are role
// nodes.
const (
	RoleActiveController    = "active-controller"
	RoleControllerFollowers = "controller-followers"
	RoleObservers           = "observers"
)

// Partition shapes that cut the quorum along the controllers' roles: the
// targets (controllers) lose the other voters but keep the brokers (a
// leader that still serves its brokers and reaches no majority:
// KAFKA-15489's story), or the reverse, lose the brokers but keep the
// voters (the quorum is whole; the brokers' heartbeats do not arrive).
const (
	ShapeFromVoters  = "from-voters"
	ShapeFromBrokers = "from-brokers"
)

// quorumRoles are the roles read from DescribeQuorum, and the ones that
// target controllers: a scenario with one controller cannot use them for a
// fault that needs another voter (validated against the cluster).
var quorumRoles = []string{RoleController, RoleActiveController, RoleControllerFollowers, RoleObservers}

// isQuorumRole reports whether role is read from the KRaft quorum.
func isQuorumRole(role string) bool { return slices.Contains(quorumRoles, role) }

// ControllerRoles are the roles that resolve to controllers only: the
// ones a shape cutting controllers (from-voters, from-brokers) takes,
// beside role nodes naming controller ids.
var ControllerRoles = []string{RoleController, RoleActiveController, RoleControllerFollowers}

// quorumShapes are the partition and netem shapes whose targets must be
// controllers.
var quorumShapes = []string{ShapeFromVoters, ShapeFromBrokers}

// quorum resolves a quorum role from the quorum as it is now.
func (e *Env) quorum(ctx context.Context, role string) ([]int32, error) {
	var q histories.QuorumValue
	err := e.AdminCall(ctx, func(ctx context.Context) (err error) {
		if e.Quorum != nil {
			q, err = e.Quorum.Quorum(ctx)
		} else {
			q, err = e.Admin.Quorum(ctx)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("role %s: describe quorum: %w", role, err)
	}
	return quorumRole(q, role)
}

// quorumRole picks a role's members from one quorum sample.
func quorumRole(q histories.QuorumValue, role string) ([]int32, error) {
	var out []int32
	switch role {
	case RoleController, RoleActiveController:
		if q.LeaderID < 0 {
			return nil, fmt.Errorf("role %s: the quorum has no leader (epoch %d)", role, q.LeaderEpoch)
		}
		return []int32{q.LeaderID}, nil
	case RoleControllerFollowers:
		if q.LeaderID < 0 {
			return nil, fmt.Errorf("role %s: the quorum has no leader (epoch %d), so no followers", role, q.LeaderEpoch)
		}
		out = without(q.VoterIDs(), []int32{q.LeaderID})
	case RoleObservers:
		out = q.ObserverIDs()
	default:
		return nil, fmt.Errorf("unknown quorum role %q", role)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("role %s: none in the quorum (leader %d, voters %v, observers %v)",
			role, q.LeaderID, q.VoterIDs(), q.ObserverIDs())
	}
	return sortedIDs(out), nil
}
