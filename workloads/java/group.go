package java

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

var _ workloads.GroupDriver = javaDriver{}

// javaMember is one group member: a KafkaConsumer subscribed with a
// ConsumerRebalanceListener (javaclient/MemberHandle.java), in a JVM of
// its own.
//
// Its own JVM, because Kill must be a crash: the Java consumer has no way
// to drop out without a word (close(Duration.ZERO) still sends
// LeaveGroup, or the KIP-848 leave heartbeat; an abandoned consumer's
// heartbeat thread keeps it in the group, then leaves at
// max.poll.interval.ms; CloseOptions' REMAIN_IN_GROUP is 4.1+ only). A
// SIGKILL of the member's JVM is what a crashed service is: its sockets
// close with the process and the coordinator learns of it only when the
// session times out, as franz-go's cut dialer does for franzMember.
//
//   - protocol: group.protocol classic or consumer (KIP-848; in 3.9's
//     client a preview), the member's own (GroupConfig.MemberProtocol:
//     each member is a JVM of its own, so a mixed group, group.protocols,
//     is one property per member); session.timeout.ms and
//     heartbeat.interval.ms only with classic (the consumer protocol takes
//     them from the broker and the client refuses them);
//   - commit auto: the member loop commits (AutoCommits false), with the
//     client's enable.auto.commit off. The Java client's auto-commit is
//     invisible to the application: it reports nothing of a commit that
//     failed or whose answer never came (an interceptor's onCommit sees
//     only successes), so a history of it would miss commits that may have
//     happened. kchaos commits what was delivered every commit interval
//     and before every revoke instead, as for kafka-go, and the history
//     shows each commit's outcome;
//   - commit manual: commitSync with the offsets given;
//   - the rebalance callbacks come as events (proc.go) while the JVM
//     serves the handler's commits, so that a revoke is recorded, and its
//     partitions committed, before the client gives them up.
type javaMember struct {
	cons  javaConsumer // the member's handle, its JVM and its late poll
	topic string
	hd    workloads.GroupHandler

	mu   sync.Mutex
	mid  string
	gen  int32
	once sync.Once
}

// javaMemberProps maps the group config onto KafkaConsumer properties,
// then the service's ConsumerProps over them.
func javaMemberProps(cfg workloads.Config, bootstrap []string, i int) map[string]string {
	g := cfg.Group
	p := javaConsumerProps(cfg, bootstrap, i)
	p["client.id"] = workloads.GroupMemberClientID(g.ID, workloads.MemberName(i))
	p["group.id"] = g.ID
	proto := g.MemberProtocol(i)
	p["group.protocol"] = proto
	p["enable.auto.commit"] = "false"
	p["auto.offset.reset"] = workloads.ResetEarliest
	if cfg.OffsetReset == workloads.ResetLatest {
		p["auto.offset.reset"] = workloads.ResetLatest
	}
	p["max.poll.interval.ms"] = ms(g.MaxPollInterval.Std())
	if proto != histories.ProtocolConsumer {
		p["session.timeout.ms"] = ms(g.SessionTimeout.Std())
		p["heartbeat.interval.ms"] = ms(g.SessionTimeout.Std() / 6)
	}
	return withProps(p, cfg.ConsumerProps) // the service's word wins here too
}

// NewGroupMember starts member i's JVM and subscribes its consumer.
func (javaDriver) NewGroupMember(cfg workloads.Config, bootstrap []string, i int, h workloads.GroupHandler) (workloads.GroupMember, error) {
	m := &javaMember{topic: cfg.Topic, hd: h, gen: -1}
	j, hnd, err := javaOwnJVM(cfg, "open-member", map[string]any{"props": javaMemberProps(cfg, bootstrap, i), "topic": cfg.Topic}, m.event)
	if err != nil {
		return nil, err
	}
	m.cons = javaConsumer{javaHandle: javaHandle{j: j, h: hnd}, topic: cfg.Topic}
	return m, nil
}

// javaOwnJVM starts a JVM of the client's own (a member that must be able
// to crash alone: javaMember, javaShareMember), gives it the event
// handler (nil: none) before any request, and opens the handle op asks
// for; the JVM is stopped if the open fails.
func javaOwnJVM(cfg workloads.Config, op string, fields map[string]any, events func(javaResp)) (*jvm, int, error) {
	v, err := javaClientVersion(cfg)
	if err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a first build resolves jars
	defer cancel()
	j, err := startJVMIn(ctx, v, cfg.Runner)
	if err != nil {
		return nil, 0, err
	}
	if events != nil {
		j.mu.Lock()
		j.events = events
		j.mu.Unlock()
	}
	h, err := javaOpenOn(ctx, j, op, fields)
	if err != nil {
		j.stop(5 * time.Second)
		return nil, 0, err
	}
	return j, h, nil
}

// setMeta keeps the member id and generation an answer carries.
func (m *javaMember) setMeta(r javaResp) {
	if r.MemberID == nil || r.Generation == nil {
		return
	}
	m.mu.Lock()
	m.mid, m.gen = *r.MemberID, *r.Generation
	m.mu.Unlock()
}

// event is a rebalance callback: the handler records it (and commits
// revoked partitions), then the client may go on.
func (m *javaMember) event(r javaResp) {
	m.setMeta(r)
	ev := workloads.RebalanceEvent{}
	ev.MemberID, ev.Generation = m.Meta()
	switch r.Kind {
	case "assigned":
		ev.Assigned = slices.Sorted(slices.Values(r.Partitions))
	case "revoked":
		ev.Revoked = slices.Sorted(slices.Values(r.Partitions))
	case "lost":
		ev.Lost = slices.Sorted(slices.Values(r.Partitions))
	}
	if len(r.Partitions) > 0 {
		m.hd.Rebalanced(context.Background(), ev)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = m.cons.j.call(ctx, "rebalance-done", map[string]any{"handle": m.cons.h, "cb": r.CB})
}

// Poll is the consumer's poll (a late answer comes with the next, as
// javaConsumer's).
func (m *javaMember) Poll(ctx context.Context) (workloads.Fetch, error) {
	r, err := m.cons.pollResp(ctx)
	if err != nil || r.ID == 0 {
		return workloads.Fetch{}, err
	}
	m.setMeta(r)
	return javaFetch(r)
}

// Commit is commitSync of offsets, bounded by ctx. Java's commitSync
// fails or succeeds as a whole: Committed is every offset, or Err the one
// exception.
func (m *javaMember) Commit(ctx context.Context, offsets map[int32]int64, _ map[int32]int32) workloads.CommitResult {
	mid, gen := m.Meta()
	res := workloads.CommitResult{MemberID: mid, Generation: gen, Offsets: offsets}
	offs := map[string]int64{}
	for p, o := range offsets {
		offs[strconv.Itoa(int(p))] = o
	}
	r, err := m.cons.j.call(ctx, "commit", map[string]any{"handle": m.cons.h, "topic": m.topic, "offsets": offs,
		"timeout_ms": timeoutMS(ctx, 30*time.Second, 200*time.Millisecond)})
	if r.MemberID != nil && r.Generation != nil {
		res.MemberID, res.Generation = *r.MemberID, *r.Generation
	}
	if err != nil {
		res.Err = err
		return res
	}
	m.setMeta(r)
	res.Committed = map[int32]int64{}
	for p, o := range offsets {
		res.Committed[p] = o
	}
	return res
}

// Meta is what the client last said of its member id and generation.
func (m *javaMember) Meta() (string, int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mid, m.gen
}

// AutoCommits: no (see javaMember).
func (m *javaMember) AutoCommits() bool { return false }

// Leave closes the consumer (its revoke callback, then LeaveGroup), then
// its JVM.
func (m *javaMember) Leave(ctx context.Context) {
	m.once.Do(func() {
		_, _ = m.cons.j.call(ctx, "leave", map[string]any{"handle": m.cons.h,
			"timeout_ms": timeoutMS(ctx, 10*time.Second, 500*time.Millisecond)})
		m.cons.j.stop(5 * time.Second)
	})
}

// Kill kills the member's JVM (see javaMember).
func (m *javaMember) Kill() {
	m.once.Do(m.cons.j.kill)
}
