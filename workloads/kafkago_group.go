package workloads

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"

	"github.com/kchaos/kchaos/histories"
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
	cfg   Config
	h     GroupHandler
	cg    *kafka.ConsumerGroup
	fetch *kafkaGoConsumer
	cut   *cutDialer
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
func (d kafkaGoDriver) NewGroupMember(cfg Config, bootstrap []string, i int, h GroupHandler) (GroupMember, error) {
	g := cfg.Group
	if g.Protocol != histories.ProtocolClassic {
		return nil, fmt.Errorf("kafka-go has no %s protocol", g.Protocol)
	}
	c, err := d.NewConsumer(cfg, bootstrap, 1000+i)
	if err != nil {
		return nil, err
	}
	cut := &cutDialer{}
	start := kafka.FirstOffset
	if cfg.OffsetReset == ResetLatest {
		start = kafka.LastOffset
	}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                g.ID,
		Brokers:           bootstrap,
		Dialer:            &kafka.Dialer{Timeout: 5 * time.Second, ClientID: fmt.Sprintf("kchaos-%s-%s", g.ID, MemberName(i)), DialFunc: cut.dial},
		Topics:            []string{cfg.Topic},
		HeartbeatInterval: g.SessionTimeout.Std() / 6,
		SessionTimeout:    g.SessionTimeout.Std(),
		RebalanceTimeout:  g.MaxPollInterval.Std(),
		JoinGroupBackoff:  time.Second,
		StartOffset:       start,
		Timeout:           cfg.RequestTimeout.Std(),
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	m := &kafkaGoMember{cfg: cfg, h: h, cg: cg, fetch: c.(*kafkaGoConsumer), cut: cut, genID: -1, done: make(chan struct{})}
	go m.generations()
	return m, nil
}

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
		pos := map[int32]int64{}
		var unknown []int32
		for _, a := range gen.Assignments[m.cfg.Topic] {
			p := int32(a.ID)
			parts = append(parts, p)
			if a.Offset >= 0 {
				pos[p] = a.Offset
			} else {
				unknown = append(unknown, p)
			}
		}
		slices.Sort(parts)
		if len(unknown) > 0 {
			// No committed offset: the reset rule's, as the Reader would.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			offs, err := m.fetch.Offsets(ctx, unknown, m.cfg.OffsetReset)
			cancel()
			if err != nil || len(offs) != len(unknown) {
				// Without positions this generation cannot consume: end
				// it (the group rejoins) rather than guess.
				gen.Start(func(context.Context) {})
				continue
			}
			for p, o := range offs {
				pos[p] = o
			}
		}
		// The assignment is recorded before Poll may deliver from it: a
		// poll that ran first would show the new owner's first records
		// before the rebalance that gave it the partition (seen in g2:
		// both members resumed about 560 records below the group's commit, and
		// the checker, which compares a member's first delivery after its
		// assignment with the commit, saw no assignment yet).
		m.mu.Lock()
		m.genID, m.mid = gen.ID, gen.MemberID
		m.mu.Unlock()
		if len(parts) > 0 {
			m.h.Rebalanced(context.Background(), RebalanceEvent{MemberID: gen.MemberID, Generation: gen.ID, Assigned: parts})
		}
		m.mu.Lock()
		m.gen, m.fetching = gen, true
		_ = m.fetch.Assign(context.Background(), pos)
		m.mu.Unlock()
		gen.Start(func(ctx context.Context) {
			<-ctx.Done()
			// Deliveries stop before the revoke is recorded; the revoke's
			// commit still has the generation.
			m.mu.Lock()
			m.fetching = false
			m.mu.Unlock()
			if len(parts) > 0 {
				m.h.Rebalanced(context.Background(), RebalanceEvent{MemberID: gen.MemberID, Generation: gen.ID, Revoked: parts})
			}
			m.mu.Lock()
			m.gen = nil
			_ = m.fetch.Assign(context.Background(), map[int32]int64{})
			m.mu.Unlock()
		})
	}
}

func (m *kafkaGoMember) Poll(ctx context.Context) (Fetch, error) {
	m.mu.Lock()
	assigned := m.gen != nil && m.fetching
	m.mu.Unlock()
	if !assigned {
		<-ctx.Done()
		return Fetch{}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.fetching {
		return Fetch{}, nil // revoked in between
	}
	return m.fetch.Poll(ctx)
}

func (m *kafkaGoMember) Commit(ctx context.Context, offsets map[int32]int64) CommitResult {
	m.mu.Lock()
	gen := m.gen
	r := CommitResult{MemberID: m.mid, Generation: m.genID, Offsets: offsets, Committed: map[int32]int64{}}
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
	m.cut.cut()
	m.once.Do(func() {
		go m.cg.Close() // its LeaveGroup cannot be sent
		m.fetch.Close()
	})
}
