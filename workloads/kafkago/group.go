package kafkago

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// kafkaGoMember is a kafka-go group member: kafka.ConsumerGroup for the
// membership (join, sync, heartbeats, generations, commits) and the
// workload's own kafka-go fetcher (kafkaGoConsumer) for the records.
// kafka-go's Reader with a GroupID runs the same ConsumerGroup inside, but
// hides what the history must record: the generation, the member id, the
// assignment of each generation and each commit's outcome.
//
// kafka-go's groups are eager: a generation ends with every partition
// revoked, and the next begins with its whole assignment. The generation's
// Start function is where a revoke is learned (its context ends): it
// reports the revoke to the handler, which commits, before the group may
// go on to the next generation. kafka-go has no autocommit of its own in
// ConsumerGroup (the Reader's CommitInterval is a loop of its own): with
// commit auto the member loop commits on the same timer (AutoCommits is
// false).
type kafkaGoMember struct {
	cfg   workloads.Config
	h     workloads.GroupHandler
	cg    *kafka.ConsumerGroup
	fetch *kafkaGoConsumer
	cut   *workloads.CutDialer
	done  chan struct{} // closed when the generation loop ends

	mu    sync.Mutex // gen, genID, mid, fetching, the fetcher's positions
	gen   *kafka.Generation
	genID int32
	mid   string
	// fetching: Poll may deliver the generation's partitions. It is set
	// only after the assignment was reported and cleared before the
	// revoke is, so that the history never shows a delivery of a
	// partition outside the rebalances that gave and took it (the
	// checker judges where a newly assigned member resumed from its
	// first delivery after the assignment).
	fetching bool
	once     sync.Once
}

// NewGroupMember joins member i; kafka-go has only the classic protocol.
func (d kafkaGoDriver) NewGroupMember(cfg workloads.Config, bootstrap []string, i int, h workloads.GroupHandler) (workloads.GroupMember, error) {
	g := cfg.Group
	if p := g.MemberProtocol(i); p != histories.ProtocolClassic {
		return nil, fmt.Errorf("kafka-go has no %s protocol", p)
	}
	c, err := d.NewConsumer(cfg, bootstrap, 1000+i)
	if err != nil {
		return nil, err
	}
	cut := &workloads.CutDialer{}
	start := kafka.FirstOffset
	if cfg.OffsetReset == workloads.ResetLatest {
		start = kafka.LastOffset
	}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                g.ID,
		Brokers:           bootstrap,
		Dialer:            &kafka.Dialer{Timeout: 5 * time.Second, ClientID: workloads.GroupMemberClientID(g.ID, workloads.MemberName(i)), DialFunc: cut.Dial},
		Topics:            []string{cfg.Topic},
		HeartbeatInterval: g.SessionTimeout.Std() / 6,
		SessionTimeout:    g.SessionTimeout.Std(),
		RebalanceTimeout:  g.MaxPollInterval.Std(),
		JoinGroupBackoff:  time.Second,
		StartOffset:       start,
		Timeout:           cfg.RequestTimeout.Std(),
		GroupBalancers:    groupBalancers(g),
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	m := &kafkaGoMember{cfg: cfg, h: h, cg: cg, fetch: c.(*kafkaGoConsumer), cut: cut, genID: -1, done: make(chan struct{})}
	go m.generations()
	return m, nil
}

// groupBalancers is nil (kafka-go's default: range, then round-robin), or
// with group.metadata_bytes the range balancer whose subscription
// carries the user data.
func groupBalancers(g workloads.GroupConfig) []kafka.GroupBalancer {
	if g.MetadataBytes <= 0 {
		return nil
	}
	return []kafka.GroupBalancer{userDataBalancer{GroupBalancer: kafka.RangeGroupBalancer{}, data: workloads.SubscriptionUserData(g.MetadataBytes)}}
}

// userDataBalancer is a GroupBalancer whose UserData is the workload's
// (group.metadata_bytes): the coordinator keeps each classic member's
// subscription in the group's GroupMetadata record (KAFKA-20845).
type userDataBalancer struct {
	kafka.GroupBalancer
	data []byte
}

func (b userDataBalancer) UserData() ([]byte, error) { return b.data, nil }

// generations follows the group from generation to generation until the
// group is closed.
func (m *kafkaGoMember) generations() {
	defer close(m.done)
	for {
		gen, err := m.cg.Next(context.Background())
		if errors.Is(err, kafka.ErrGroupClosed) {
			return
		}
		if err != nil {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		var parts []int32
		for _, a := range gen.Assignments[m.cfg.Topic] {
			parts = append(parts, int32(a.ID))
		}
		slices.Sort(parts)
		// The assignment is recorded before Poll may deliver from it: a
		// poll that ran first would show the new owner's first records
		// before the rebalance that gave it the partition (seen in g2:
		// both members resumed about 560 records below the group's
		// commit, and the checker, which compares a member's first
		// delivery after its assignment with the commit, saw no
		// assignment yet).
		m.mu.Lock()
		m.genID, m.mid = gen.ID, gen.MemberID
		m.mu.Unlock()
		if len(parts) > 0 {
			m.h.Rebalanced(context.Background(), workloads.RebalanceEvent{MemberID: gen.MemberID, Generation: gen.ID, Assigned: parts})
		}
		// Where to start is read after the assignment is recorded, as kgo
		// and the Java client fetch committed offsets after their
		// assignment callback. kafka-go fetched them when the generation
		// began, which can be seconds earlier (a member stalled while its
		// assignment waited to be recorded), and a newer generation may
		// have committed since: seen in g3, a stalled member resumed 155
		// below a commit made after its generation's fetch.
		pos, err := m.positions(parts)
		if err != nil {
			// Without positions this generation cannot consume: end it
			// (the group rejoins) rather than guess.
			if len(parts) > 0 {
				m.h.Rebalanced(context.Background(), workloads.RebalanceEvent{MemberID: gen.MemberID, Generation: gen.ID, Revoked: parts})
			}
			gen.Start(func(context.Context) {})
			continue
		}
		m.mu.Lock()
		m.gen, m.fetching = gen, true
		_ = m.fetch.Assign(context.Background(), pos)
		m.mu.Unlock()
		ended := make(chan struct{})
		gen.Start(func(ctx context.Context) {
			defer close(ended)
			<-ctx.Done()
			// Deliveries stop before the revoke is recorded; the revoke's
			// commit still has the generation.
			m.mu.Lock()
			m.fetching = false
			m.mu.Unlock()
			if len(parts) > 0 {
				m.h.Rebalanced(context.Background(), workloads.RebalanceEvent{MemberID: gen.MemberID, Generation: gen.ID, Revoked: parts})
			}
			m.mu.Lock()
			m.gen = nil
			_ = m.fetch.Assign(context.Background(), map[int32]int64{})
			m.mu.Unlock()
		})
		// The next generation waits for this one's revoke. kafka-go waits
		// for the functions Start launched, but a generation that ended
		// before Start was called (its assignment waited on a stalled
		// member) has none to wait for, and its late revoke was recorded
		// after the next generation's assignment, and cleared it.
		<-ended
	}
}

// positions are where the member starts its partitions: the group's
// committed offsets now, else the reset rule's.
func (m *kafkaGoMember) positions(parts []int32) (map[int32]int64, error) {
	pos := map[int32]int64{}
	if len(parts) == 0 {
		return pos, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	committed, err := m.fetch.Committed(ctx, m.cfg.Group.ID, parts)
	if err != nil {
		return nil, err
	}
	var unknown []int32
	for _, p := range parts {
		if o, ok := committed[p]; ok && o >= 0 {
			pos[p] = o
		} else {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) > 0 {
		offs, err := m.fetch.Offsets(ctx, unknown, m.cfg.OffsetReset)
		if err != nil || len(offs) != len(unknown) {
			return nil, fmt.Errorf("reset positions of %v: %v", unknown, err)
		}
		maps.Copy(pos, offs)
	}
	return pos, nil
}

func (m *kafkaGoMember) Poll(ctx context.Context) (workloads.Fetch, error) {
	m.mu.Lock()
	assigned := m.gen != nil && m.fetching
	m.mu.Unlock()
	if !assigned {
		<-ctx.Done()
		return workloads.Fetch{}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.fetching {
		return workloads.Fetch{}, nil // revoked in between
	}
	return m.fetch.Poll(ctx)
}

func (m *kafkaGoMember) Commit(ctx context.Context, offsets map[int32]int64, _ map[int32]int32) workloads.CommitResult {
	m.mu.Lock()
	gen := m.gen
	r := workloads.CommitResult{MemberID: m.mid, Generation: m.genID, Offsets: offsets, Committed: map[int32]int64{}}
	m.mu.Unlock()
	if gen == nil {
		r.Err = kafka.IllegalGeneration // no generation: nothing is sent
		return r
	}
	at := map[int]int64{}
	for p, o := range offsets {
		at[int(p)] = o
	}
	errc := make(chan error, 1)
	go func() { errc <- gen.CommitOffsets(map[string]map[int]int64{m.cfg.Topic: at}) }()
	select {
	case err := <-errc:
		r.Err = err
	case <-ctx.Done():
		r.Err = ctx.Err()
	}
	if r.Err == nil {
		for p, o := range offsets {
			r.Committed[p] = o
		}
	}
	return r
}

func (m *kafkaGoMember) Meta() (string, int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mid, m.genID
}

func (m *kafkaGoMember) AutoCommits() bool { return false }

func (m *kafkaGoMember) Leave(ctx context.Context) {
	m.once.Do(func() {
		closed := make(chan struct{})
		go func() {
			m.cg.Close() // LeaveGroup, after the last generation's revoke
			close(closed)
		}()
		select {
		case <-closed:
		case <-ctx.Done():
		}
		m.fetch.Close()
	})
}

func (m *kafkaGoMember) Kill() {
	m.cut.Cut()
	m.once.Do(func() {
		go m.cg.Close() // its LeaveGroup cannot be sent
		m.fetch.Close()
	})
}
