package workloads

import (
	"context"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

// What a consumer group (workload.group, workloads/groups) asks of a
// driver: its members' clients, and how a commit's outcome is judged
// (CommitOutcome), which the drivers' tests check their clients' errors
// against; in the seam since a driver package implements or names them
// and imports no kind.

// GroupDriver is a Driver that can make consumer-group members.
type GroupDriver interface {
	// NewGroupMember returns member i of cfg.Group, subscribed to
	// cfg.Topic; h receives what its client learns by itself.
	NewGroupMember(cfg Config, bootstrap []string, i int, h GroupHandler) (GroupMember, error)
}

// GroupHandler receives what a member's client learns by itself. Both are
// called synchronously from the client's own goroutines; Rebalanced with
// revoked or lost partitions before the client gives them up, so that the
// handler can commit first.
type GroupHandler interface {
	Rebalanced(ctx context.Context, r RebalanceEvent)
	AutoCommitted(r CommitResult)
}

// RebalanceEvent is one assignment change of a member.
type RebalanceEvent struct {
	MemberID   string
	Generation int32
	Assigned   []int32
	Revoked    []int32
	Lost       []int32
}

// CommitResult is what a commit learned. Offsets are what it asked for
// (the next offset to read, per partition); Committed those the
// coordinator acknowledged; Errors the per-partition errors; Err an error
// of the whole request.
type CommitResult struct {
	MemberID   string
	Generation int32
	Offsets    map[int32]int64
	Committed  map[int32]int64
	Errors     map[int32]error
	Err        error
	// Epochs are the leader epochs the commit request carried per
	// partition (-1: none), where the client tells; nil otherwise.
	Epochs map[int32]int32
}

// GroupMember is one member's client.
type GroupMember interface {
	// Poll waits until records arrive or ctx ends.
	Poll(ctx context.Context) (Fetch, error)
	// Commit commits offsets synchronously, each with its leader epoch
	// from epochs (nil, or -1 for a partition: without one).
	Commit(ctx context.Context, offsets map[int32]int64, epochs map[int32]int32) CommitResult
	// Meta is the member id and generation the client is in now ("", -1
	// before it joined).
	Meta() (memberID string, generation int32)
	// Leave leaves the group (revoking its partitions through the
	// handler) and closes the client.
	Leave(ctx context.Context)
	// Kill cuts the client off from the cluster at once, as a crash
	// would, and closes it without leaving: the coordinator learns of it
	// only when its session times out. Its callbacks may still run.
	Kill()
	// AutoCommits reports whether the client commits by itself in auto
	// mode (every commit interval and before a revoke, reporting through
	// AutoCommitted); if not, the member loop commits on the same timer.
	AutoCommits() bool
}

// definiteCommitErrors are the OffsetCommit errors the group coordinator
// returns before it writes anything to __consumer_offsets (request
// validation: membership, generation, authorization, sizes), so the
// commit definitely did not happen. The coordinator maps a failed or
// timed-out append to COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR
// (CoordinatorOperationExceptionHelper: REQUEST_TIMED_OUT and
// NOT_ENOUGH_REPLICAS become COORDINATOR_NOT_AVAILABLE), after which the
// offsets may be in the log: those, and every client-side error but a
// refused dial, leave the outcome unknown.
var definiteCommitErrors = map[int16]bool{
	kerr.IllegalGeneration.Code:         true,
	kerr.UnknownMemberID.Code:           true,
	kerr.RebalanceInProgress.Code:       true,
	kerr.FencedInstanceID.Code:          true,
	kerr.StaleMemberEpoch.Code:          true,
	kerr.CoordinatorLoadInProgress.Code: true,
	kerr.GroupAuthorizationFailed.Code:  true,
	kerr.TopicAuthorizationFailed.Code:  true,
	kerr.OffsetMetadataTooLarge.Code:    true,
	kerr.InvalidCommitOffsetSize.Code:   true,
	kerr.UnknownTopicOrPartition.Code:   true,
	kerr.GroupIDNotFound.Code:           true,
	kerr.UnsupportedVersion.Code:        true,
}

// commitDefinite reports whether err proves the commit did not happen.
func commitDefinite(err error) bool {
	if code, ok := KafkaCode(err); ok {
		return definiteCommitErrors[code]
	}
	return RuleFor(err).Name == CauseConnectionRefused
}

// CommitOutcome maps a CommitResult to the op's completion: ok when every
// partition committed, or some did and the others were refused
// definitely; fail when none did and every error was definite; info
// otherwise (one unknown partition makes the op's outcome unknown).
// Exported for the driver packages' tests (workloads/java), which check
// that their client's commit errors are judged as the Go drivers' are.
func CommitOutcome(r CommitResult) (histories.Type, string) {
	if r.Err != nil {
		if commitDefinite(r.Err) {
			return histories.Fail, ErrorName(r.Err)
		}
		return histories.Info, ErrorName(r.Err)
	}
	name := ""
	for _, p := range slices.Sorted(maps.Keys(r.Errors)) {
		if name == "" {
			name = ErrorName(r.Errors[p])
		}
		if !commitDefinite(r.Errors[p]) {
			return histories.Info, ErrorName(r.Errors[p])
		}
	}
	if len(r.Committed) == 0 && len(r.Offsets) > 0 {
		if name == "" {
			return histories.Info, "no partition acknowledged"
		}
		return histories.Fail, name
	}
	return histories.OK, name
}
