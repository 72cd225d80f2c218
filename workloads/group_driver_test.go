package workloads

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

func TestCommitOutcome(t *testing.T) {
	offs := map[int32]int64{0: 5, 1: 7}
	for _, tc := range []struct {
		name string
		r    CommitResult
		typ  histories.Type
		err  string
	}{
		{"all committed", CommitResult{Offsets: offs, Committed: offs}, histories.OK, ""},
		{"refused: illegal generation", CommitResult{Offsets: offs, Err: kerr.IllegalGeneration}, histories.Fail, "ILLEGAL_GENERATION"},
		{"refused: stale member epoch (KIP-848)", CommitResult{Offsets: offs, Err: kerr.StaleMemberEpoch}, histories.Fail, "STALE_MEMBER_EPOCH"},
		{"coordinator not available: the append may have happened", CommitResult{Offsets: offs, Err: kerr.CoordinatorNotAvailable}, histories.Info, "COORDINATOR_NOT_AVAILABLE"},
		{"not coordinator: maybe", CommitResult{Offsets: offs, Err: kerr.NotCoordinator}, histories.Info, "NOT_COORDINATOR"},
		{"timeout", CommitResult{Offsets: offs, Err: context.DeadlineExceeded}, histories.Info, CauseTimeout},
		{"partly refused definitely", CommitResult{Offsets: offs, Committed: map[int32]int64{0: 5},
			Errors: map[int32]error{1: kerr.UnknownTopicOrPartition}}, histories.OK, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"one partition unknown makes it unknown", CommitResult{Offsets: offs, Committed: map[int32]int64{0: 5},
			Errors: map[int32]error{1: kerr.RequestTimedOut}}, histories.Info, "REQUEST_TIMED_OUT"},
		{"every partition refused", CommitResult{Offsets: offs, Committed: map[int32]int64{},
			Errors: map[int32]error{0: kerr.RebalanceInProgress, 1: kerr.RebalanceInProgress}}, histories.Fail, "REBALANCE_IN_PROGRESS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, name := CommitOutcome(tc.r)
			if typ != tc.typ || name != tc.err {
				t.Errorf("got %s %q, want %s %q", typ, name, tc.typ, tc.err)
			}
		})
	}
}
