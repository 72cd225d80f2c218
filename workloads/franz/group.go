package franz

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// franzMember is a kgo group consumer (kgo.ConsumerGroup).
//
//   - protocol consumer (the member's: GroupConfig.MemberProtocol):
//     kgo.ServerSideBalancer with the range balancer (KIP-848; kgo runs it
//     only against Kafka 4.0+, ConsumerGroupHeartbeat v1, and falls back
//     to classic otherwise: the integration test checks the group's type
//     on the broker);
//   - protocol classic: kgo's default balancers, or with metadata_bytes
//     the range balancer whose subscription carries the user data
//     (userDataBalancer);
//   - commit auto: kgo's autocommit every commit interval, reported by
//     AutoCommitCallback; since kchaos sets OnPartitionsRevoked (which
//     replaces kgo's default revoke, the one that commits), the revoke
//     callback commits what was polled, as that default does;
//   - commit manual: DisableAutoCommit; the member loop commits through
//     CommitOffsetsSync, and the revoke callback through the handler;
//   - max poll interval: RebalanceTimeout (how long a member may take to
//     rejoin, or under KIP-848 to acknowledge a revocation, before the
//     coordinator drops it).
//
// Its dialer can be cut (Kill): every connection closed and new dials
// refused, so the client vanishes as a crashed process would, and its
// LeaveGroup on close never arrives.
type franzMember struct {
	cfg  workloads.Config
	cl   *kgo.Client
	h    workloads.GroupHandler
	cut  *workloads.CutDialer
	once sync.Once
}

// NewGroupMember makes member i's client, subscribed to cfg.Topic.
func (franzDriver) NewGroupMember(cfg workloads.Config, bootstrap []string, i int, h workloads.GroupHandler) (workloads.GroupMember, error) {
	m := &franzMember{cfg: cfg, h: h, cut: &workloads.CutDialer{}}
	g := cfg.Group
	reset := kgo.NewOffset().AtStart()
	if cfg.OffsetReset == workloads.ResetLatest {
		reset = kgo.NewOffset().AtEnd()
	}
	opts := append(workloads.FranzCommon(cfg, bootstrap, workloads.GroupMemberClientID(g.ID, workloads.MemberName(i))),
		kgo.Dialer(m.cut.Dial),
		kgo.ConsumerGroup(g.ID),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(reset),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.FetchIsolationLevel(franzIsolation(cfg.Isolation)),
		kgo.SessionTimeout(g.SessionTimeout.Std()),
		kgo.HeartbeatInterval(g.SessionTimeout.Std()/6),
		kgo.RebalanceTimeout(g.MaxPollInterval.Std()),
		kgo.OnPartitionsAssigned(func(ctx context.Context, cl *kgo.Client, a map[string][]int32) {
			m.rebalanced(ctx, workloads.RebalanceEvent{Assigned: sorted(a[cfg.Topic])})
		}),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, r map[string][]int32) {
			if g.Commit == workloads.CommitAuto {
				cl.CommitOffsetsSync(cl.Context(), cl.UncommittedOffsets(), m.autoCommitted)
			}
			m.rebalanced(ctx, workloads.RebalanceEvent{Revoked: sorted(r[cfg.Topic])})
		}),
		kgo.OnPartitionsLost(func(ctx context.Context, cl *kgo.Client, l map[string][]int32) {
			m.rebalanced(ctx, workloads.RebalanceEvent{Lost: sorted(l[cfg.Topic])})
		}),
	)
	switch {
	case g.MemberProtocol(i) == histories.ProtocolConsumer:
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	case g.MetadataBytes > 0:
		opts = append(opts, kgo.Balancers(newUserDataBalancer(kgo.RangeBalancer(), workloads.SubscriptionUserData(g.MetadataBytes))))
	}
	if g.Commit == workloads.CommitManual {
		opts = append(opts, kgo.DisableAutoCommit())
	} else {
		opts = append(opts, kgo.AutoCommitInterval(g.CommitInterval.Std()), kgo.AutoCommitCallback(m.autoCommitted))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	m.cl = cl
	return m, nil
}

func sorted(ps []int32) []int32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	return out
}

// rebalanced reports an assignment change with the generation kgo is in.
// An empty change (kgo calls onAssigned after every sync) is not one.
func (m *franzMember) rebalanced(ctx context.Context, ev workloads.RebalanceEvent) {
	if len(ev.Assigned)+len(ev.Revoked)+len(ev.Lost) == 0 {
		return
	}
	ev.MemberID, ev.Generation = m.Meta()
	m.h.Rebalanced(ctx, ev)
}

// autoCommitted turns kgo's commit callback into a CommitResult.
func (m *franzMember) autoCommitted(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
	m.h.AutoCommitted(franzCommitResult(m.cfg.Topic, req, resp, err))
}

func franzCommitResult(topic string, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) workloads.CommitResult {
	r := workloads.CommitResult{MemberID: req.MemberID, Generation: req.Generation, Offsets: map[int32]int64{},
		Committed: map[int32]int64{}, Epochs: map[int32]int32{}, Err: err}
	for _, t := range req.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			r.Offsets[p.Partition] = p.Offset
			r.Epochs[p.Partition] = p.LeaderEpoch // what the request carried (-1: none; v6+ only)
		}
	}
	if err != nil || resp == nil {
		return r
	}
	for _, t := range resp.Topics {
		if t.Topic != topic {
			continue
		}
		for _, p := range t.Partitions {
			if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
				if r.Errors == nil {
					r.Errors = map[int32]error{}
				}
				r.Errors[p.Partition] = perr
			} else if o, ok := r.Offsets[p.Partition]; ok {
				r.Committed[p.Partition] = o
			}
		}
	}
	return r
}

func (m *franzMember) Poll(ctx context.Context) (workloads.Fetch, error) {
	return franzFetch(ctx, m.cl)
}

func (m *franzMember) Commit(ctx context.Context, offsets map[int32]int64, epochs map[int32]int32) workloads.CommitResult {
	at := map[int32]kgo.EpochOffset{}
	for p, o := range offsets {
		e, ok := epochs[p]
		if !ok {
			e = -1
		}
		at[p] = kgo.EpochOffset{Epoch: e, Offset: o}
	}
	var r workloads.CommitResult
	m.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{m.cfg.Topic: at},
		func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			r = franzCommitResult(m.cfg.Topic, req, resp, err)
		})
	return r
}

func (m *franzMember) Meta() (string, int32) {
	id, gen := m.cl.GroupMetadata()
	return id, gen
}

func (m *franzMember) AutoCommits() bool { return true }

func (m *franzMember) Leave(ctx context.Context) {
	m.once.Do(func() {
		_ = m.cl.LeaveGroupContext(ctx)
		m.cl.Close()
	})
}

func (m *franzMember) Kill() {
	m.cut.Cut()
	// Close waits for the leave it cannot send; a crashed process
	// would not wait at all.
	m.once.Do(func() { go m.cl.Close() })
}
