package workloads

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// GroupView is what the group read-back needs of the cluster's admin
// API: the coordinator's committed offsets and description of a group.
// *admin.Client implements it; tests use fakes.
type GroupView interface {
	CommittedOffsets(ctx context.Context, group, topic string) (map[int32]admin.CommittedOffset, error)
	DescribeGroup(ctx context.Context, group, protocol, topic string) (admin.GroupDescription, error)
}

var _ GroupView = (*admin.Client)(nil)

// groupFinalRetry is the pause between two OffsetFetch attempts while the
// coordinator cannot answer (loading __consumer_offsets after a move).
const groupFinalRetry = 500 * time.Millisecond

// GroupFinal records the group coordinator's state (docs/HISTORY.md,
// "group-final"): once the workload stopped and the faults are healed, it
// reads the group's committed offsets and its description, as one op on a
// process of its own. The members' ops say what the coordinator
// acknowledged; this is what it kept, which only the coordinator can
// tell. While the coordinator answers COORDINATOR_LOAD_IN_PROGRESS or
// NOT_COORDINATOR (it is loading its partition of __consumer_offsets, or
// moved) it asks again, within the final read's timeout; a coordinator
// that never answers ends the op info (with its last error), so that
// nothing is judged from what it did not say. Without a group it records
// nothing. The error is only the recorder's.
func (w *Workload) GroupFinal(ctx context.Context, view GroupView) error {
	if w.cfg.Group.ID == "" || view == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.FinalReadTimeout.Std())
	defer cancel()
	pid := w.rec.NewProcess()
	v := histories.GroupFinalValue{Group: w.cfg.Group.ID, Topic: w.cfg.Topic}
	if _, err := w.rec.Invoke(pid, histories.FGroupFinal, v); err != nil {
		return err
	}
	offs, attempts, err := readCommitted(ctx, view, v.Group, v.Topic)
	v.Attempts = attempts
	if err != nil {
		name := ErrorName(err)
		if errors.Is(err, context.DeadlineExceeded) {
			name = CauseTimeout
		}
		_, rerr := w.rec.Complete(pid, histories.Info, histories.FGroupFinal, v, name)
		return rerr
	}
	fillOffsets(&v, offs)
	// The offsets are the evidence; the description is for people (and
	// not judged), so one that fails leaves the op ok with its error.
	if d, derr := view.DescribeGroup(ctx, v.Group, w.cfg.Group.DescribeProtocol(), v.Topic); derr != nil {
		v.DescribeError = derr.Error()
	} else {
		fillDescription(&v, d)
	}
	_, err = w.rec.Complete(pid, histories.OK, histories.FGroupFinal, v, "")
	return err
}

// readCommitted asks OffsetFetch until the coordinator answers, or ctx
// ends, or it answers an error that asking again will not change.
func readCommitted(ctx context.Context, view GroupView, group, topic string) (map[int32]admin.CommittedOffset, int, error) {
	for n := 1; ; n++ {
		offs, err := view.CommittedOffsets(ctx, group, topic)
		if err == nil {
			return offs, n, nil
		}
		if !admin.Retriable(err) || ctx.Err() != nil {
			return nil, n, err
		}
		select {
		case <-ctx.Done():
			return nil, n, err
		case <-time.After(groupFinalRetry):
		}
	}
}

func fillOffsets(v *histories.GroupFinalValue, offs map[int32]admin.CommittedOffset) {
	for _, p := range slices.Sorted(maps.Keys(offs)) {
		o := offs[p]
		key := histories.PartitionKey(p)
		if o.Err != nil {
			if v.Errors == nil {
				v.Errors = map[string]string{}
			}
			v.Errors[key] = ErrorName(o.Err)
			continue
		}
		if o.Offset < 0 {
			continue // no committed offset (-1): as absent
		}
		if v.Offsets == nil {
			v.Offsets = map[string]histories.GroupFinalOffset{}
		}
		v.Offsets[key] = histories.GroupFinalOffset{Offset: o.Offset, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata}
	}
}

func fillDescription(v *histories.GroupFinalValue, d admin.GroupDescription) {
	v.Type, v.State, v.Protocol = d.Type, d.State, d.Protocol
	if d.Generation >= 0 {
		g := d.Generation
		v.Generation = &g
	}
	if d.Coordinator >= 0 {
		c := d.Coordinator
		v.Coordinator = &c
	}
	for _, m := range d.Members {
		fm := histories.GroupFinalMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID, Assigned: m.Assigned}
		if m.Epoch >= 0 {
			e := m.Epoch
			fm.Epoch = &e
		}
		v.Members = append(v.Members, fm)
	}
}
