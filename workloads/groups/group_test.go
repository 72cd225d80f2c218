package groups

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// fakeLog is one partition's records, shared by the fake producer and the
// fake group members; the fake coordinator keeps the committed offset.
type fakeLog struct {
	mu        sync.Mutex
	vals      []string
	committed int64
	epochs    map[int32]int32 // the last commit's
	gen       int32
	commits   int
}

// fakeGroupDriver's producer appends to the fake's partition (send), its
// group members read it.
type fakeGroupDriver struct {
	log  *fakeLog
	send func(n int, m workloads.Message) (int64, error)
	offs offsets
	n    atomic.Int64
}

func (d *fakeGroupDriver) Name() string                                   { return "fake" }
func (d *fakeGroupDriver) Refuse(workloads.Config) []workloads.FieldError { return nil }
func (d *fakeGroupDriver) NewProducer(workloads.Config, []string, int) (workloads.Producer, error) {
	return fakeProducer{d}, nil
}
func (d *fakeGroupDriver) NewConsumer(workloads.Config, []string, int) (workloads.Consumer, error) {
	return nil, errors.New("fake: no plain consumer")
}

type fakeProducer struct{ d *fakeGroupDriver }

func (p fakeProducer) Send(_ context.Context, m workloads.Message) (int64, error) {
	return p.d.send(int(p.d.n.Add(1)-1), m)
}
func (p fakeProducer) Close() {}

// offsets hands out increasing offsets per partition.
type offsets struct {
	mu   sync.Mutex
	next map[int32]int64
}

func (o *offsets) take(p int32) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.next == nil {
		o.next = map[int32]int64{}
	}
	v := o.next[p]
	o.next[p]++
	return v
}

func (d *fakeGroupDriver) NewGroupMember(_ workloads.Config, _ []string, i int, h workloads.GroupHandler) (workloads.GroupMember, error) {
	d.log.mu.Lock()
	d.log.gen++
	gen := d.log.gen
	pos := d.log.committed
	d.log.mu.Unlock()
	m := &fakeMember{log: d.log, h: h, gen: gen, pos: pos, id: workloads.MemberName(i)}
	go h.Rebalanced(context.Background(), workloads.RebalanceEvent{MemberID: m.id, Generation: gen, Assigned: []int32{0}})
	return m, nil
}

type fakeMember struct {
	log    *fakeLog
	h      workloads.GroupHandler
	id     string
	gen    int32
	pos    int64
	killed bool
}

func (m *fakeMember) Poll(ctx context.Context) (workloads.Fetch, error) {
	m.log.mu.Lock()
	var f workloads.Fetch
	for ; m.pos < int64(len(m.log.vals)) && len(f.Records) < 3; m.pos++ {
		f.Records = append(f.Records, histories.Record{Partition: 0, Offset: m.pos, Value: m.log.vals[m.pos], LeaderEpoch: 1})
	}
	m.log.mu.Unlock()
	if len(f.Records) == 0 {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	return f, nil
}

func (m *fakeMember) Commit(_ context.Context, offs map[int32]int64, epochs map[int32]int32) workloads.CommitResult {
	m.log.mu.Lock()
	defer m.log.mu.Unlock()
	if m.gen != m.log.gen {
		return workloads.CommitResult{Offsets: offs, Err: kerr.IllegalGeneration}
	}
	m.log.committed = offs[0]
	m.log.epochs = epochs
	m.log.commits++
	return workloads.CommitResult{MemberID: m.id, Generation: m.gen, Offsets: offs, Committed: offs}
}

func (m *fakeMember) Meta() (string, int32) { return m.id, m.gen }
func (m *fakeMember) AutoCommits() bool     { return false }
func (m *fakeMember) Leave(ctx context.Context) {
	m.h.Rebalanced(ctx, workloads.RebalanceEvent{MemberID: m.id, Generation: m.gen, Revoked: []int32{0}})
}
func (m *fakeMember) Kill() { m.killed = true }

// newFakeGroupWorkload is a workload of one group member (manual
// commits every 50 ms, commit_epoch epochMode) on the fake group driver,
// producing at 200/s for d, its slots made; log is the fake's partition.
func newFakeGroupWorkload(t *testing.T, d time.Duration, epochMode string) (*workloads.Workload, *histories.Recorder, *bytes.Buffer, *fakeLog) {
	t.Helper()
	log := &fakeLog{}
	drv := &fakeGroupDriver{log: log}
	drv.send = func(_ int, m workloads.Message) (int64, error) {
		log.mu.Lock()
		defer log.mu.Unlock()
		log.vals = append(log.vals, m.Value)
		return drv.offs.take(m.Partition), nil
	}
	cfg := workloads.Config{Rate: 200, Duration: workloads.Duration(d),
		Group: workloads.GroupConfig{ID: "g", Members: 1, Commit: workloads.CommitManual, CommitInterval: workloads.Duration(50 * time.Millisecond), CommitEpoch: epochMode}}
	rec, buf := newRecorder(t, &cfg)
	// Its group is made by this package's kind, registered in the binary.
	w, err := workloads.NewWithDriver(cfg, drv, []string{"fake:9092"}, rec, 0)
	if err != nil {
		t.Fatal(err)
	}
	return w, rec, buf, log
}

// newRecorder checks cfg as the seam's tests do (Defaults, Validate) and
// is a recorder writing to a buffer.
func newRecorder(t *testing.T, cfg *workloads.Config) (*histories.Recorder, *bytes.Buffer) {
	t.Helper()
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	return histories.NewRecorder(&buf), &buf
}

// newGroup is cfg's group over d alone, lent only a recorder (no
// workload runs it: the tests drive one slot).
func newGroup(t *testing.T, cfg workloads.Config, d workloads.Driver) (*group, *histories.Recorder, *bytes.Buffer) {
	t.Helper()
	rec, buf := newRecorder(t, &cfg)
	g, err := newConsumerGroup(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	g.env = workloads.KindEnv{Config: cfg, Driver: d, Bootstrap: []string{"fake:9092"}, Recorder: rec}
	return g, rec, buf
}

// TestGroupMemberLoop: a member subscribes, is assigned, polls with its
// group, member id and generation, commits what it delivered; killed, it
// records nothing more, and started again it is a new process under the
// same member name that re-reads from the committed offset.
func TestGroupMemberLoop(t *testing.T) {
	w, rec, buf, _ := newFakeGroupWorkload(t, 1500*time.Millisecond, "")
	ctl := w.Group()
	done := make(chan error, 1)
	go func() { _, err := w.Run(context.Background()); done <- err }()
	time.Sleep(500 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ctl.Kill(ctx, "member-0"); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Kill(ctx, "member-0"); err == nil {
		t.Error("killing a killed member: want an error")
	}
	if err := ctl.Kill(ctx, "member-9"); err == nil {
		t.Error("killing an unknown member: want an error")
	}
	time.Sleep(200 * time.Millisecond)
	if err := ctl.Start(ctx, "member-0"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	evs := workloadstest.ReadBack(t, rec, buf)

	procs := map[int]bool{}
	var subs, rebals, okCommits, groupPolls int
	gens := map[int32]bool{}
	for _, e := range evs {
		if e.Process < 0 || e.Type == histories.Invoke {
			continue
		}
		switch e.F {
		case histories.FSubscribe:
			var v histories.SubscribeValue
			if err := e.Decode(&v); err != nil || v.Group != "g" || v.Member != "member-0" || v.Protocol != histories.ProtocolClassic {
				t.Errorf("subscribe %s: %v", e.Value, err)
			}
			subs++
			procs[e.Process] = true
		case histories.FRebalance:
			rebals++
		case histories.FCommit:
			if e.Type == histories.OK {
				okCommits++
			}
		case histories.FPoll:
			if !procs[e.Process] {
				t.Errorf("poll by p%d, which never subscribed", e.Process)
			}
		}
	}
	for _, e := range evs {
		if e.F == histories.FPoll && e.Type == histories.Invoke && e.Process >= 0 {
			var v histories.GroupReadRequest
			if err := e.Decode(&v); err != nil || v.Group != "g" || v.Generation == nil || v.MemberID != "member-0" {
				t.Fatalf("group poll %s: %v", e.Value, err)
			}
			gens[*v.Generation] = true
			groupPolls++
		}
	}
	if subs != 2 || len(procs) != 2 {
		t.Errorf("%d subscribes by %d processes, want 2 by 2 (a new process after the kill)", subs, len(procs))
	}
	if rebals < 3 || okCommits < 2 || groupPolls < 5 || len(gens) != 2 {
		t.Errorf("rebalances %d (want >= 3: two assigns, the final leave's revoke), ok commits %d, group polls %d, generations %v",
			rebals, okCommits, groupPolls, gens)
	}
	// The killed process recorded nothing after the kill: its last event
	// precedes the second subscribe.
	var first, second int = -1, -1
	for _, e := range evs {
		if e.F == histories.FSubscribe && e.Type == histories.Invoke {
			if first < 0 {
				first = e.Process
			} else {
				second = e.Process
			}
		}
	}
	var lastOfFirst, subOfSecond int64
	for _, e := range evs {
		if e.Process == first {
			lastOfFirst = e.Index
		}
		if e.Process == second && e.F == histories.FSubscribe && subOfSecond == 0 {
			subOfSecond = e.Index
		}
	}
	if lastOfFirst > subOfSecond {
		t.Errorf("killed p%d recorded event %d after p%d subscribed (%d)", first, lastOfFirst, second, subOfSecond)
	}
}

// TestGroupStaleCallbacks: a killed client's late callbacks are not
// recorded as its successor's.
func TestGroupStaleCallbacks(t *testing.T) {
	log := &fakeLog{}
	d := &fakeGroupDriver{log: log}
	cfg := workloads.Config{Duration: workloads.Duration(5 * time.Second), Group: workloads.GroupConfig{ID: "g", Members: 1}}
	g, rec, buf := newGroup(t, cfg, d)
	s := g.slots[0]
	s.mu.Lock()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	old := memberHandler{s, s.inc}
	s.mu.Unlock()
	stop := context.Background()
	if err := s.apply(stop, workloads.MemberFault{Op: workloads.MemberKill}); err != nil {
		t.Fatal(err)
	}
	if err := s.apply(stop, workloads.MemberFault{Op: workloads.MemberStart}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the fake's own assign callbacks
	old.Rebalanced(context.Background(), workloads.RebalanceEvent{MemberID: "stale", Generation: 1, Revoked: []int32{0}})
	old.AutoCommitted(workloads.CommitResult{MemberID: "stale", Offsets: map[int32]int64{0: 1}, Committed: map[int32]int64{0: 1}})
	for _, e := range workloadstest.ReadBack(t, rec, buf) {
		if e.F == histories.FRebalance || e.F == histories.FCommit {
			var v struct {
				MemberID string `json:"member_id"`
			}
			_ = e.Decode(&v)
			if v.MemberID == "stale" {
				t.Errorf("the killed client's callback was recorded: %s", e.Value)
			}
		}
	}
}

// TestGroupStallBlocksCallbacks: a stalled member holds its op lock, so a
// rebalance callback waits until the stall ends.
func TestGroupStallBlocksCallbacks(t *testing.T) {
	log := &fakeLog{}
	d := &fakeGroupDriver{log: log}
	d.send = func(int, workloads.Message) (int64, error) { return 0, errors.New("no sends in this test") }
	cfg := workloads.Config{Duration: workloads.Duration(5 * time.Second), Group: workloads.GroupConfig{ID: "g", Members: 1}}
	g, _, _ := newGroup(t, cfg, d)
	s := g.slots[0]
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.mu.Lock()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	s.mu.Unlock()
	if err := s.apply(stop, workloads.MemberFault{Op: workloads.MemberStall, D: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	memberHandler{s, s.inc}.Rebalanced(context.Background(), workloads.RebalanceEvent{Generation: 2, Revoked: []int32{0}})
	if waited := time.Since(began); waited < 250*time.Millisecond {
		t.Errorf("the callback waited %s, want the stall's 300ms", waited)
	}
}

// TestCommitEpochs: a manual commit carries the leader epoch of the last
// record delivered under commit_epoch record (the fake's records are in
// epoch 1), none (-1) by default, and each commit op records what its
// request carried (leader_epochs) on its invoke and its completion.
func TestCommitEpochs(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want int32
	}{{"", -1}, {workloads.CommitEpochNone, -1}, {workloads.CommitEpochRecord, 1}} {
		t.Run("commit_epoch="+tc.mode, func(t *testing.T) {
			w, rec, buf, log := newFakeGroupWorkload(t, 600*time.Millisecond, tc.mode)
			if _, err := w.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			commits := 0
			for _, e := range workloadstest.ReadBack(t, rec, buf) {
				if e.F != histories.FCommit || (e.Type != histories.Invoke && e.Type != histories.OK) {
					continue
				}
				var v histories.CommitValue
				if err := e.Decode(&v); err != nil {
					t.Fatal(err)
				}
				if got, ok := v.LeaderEpochs["0"]; !ok || got != tc.want {
					t.Errorf("commit %s %s: leader_epochs %v, want partition 0 at %d", e.Type, e.Value, v.LeaderEpochs, tc.want)
				}
				commits++
			}
			if commits == 0 {
				t.Fatal("no commit")
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			if log.epochs[0] != tc.want {
				t.Errorf("the client was asked for epoch %d, want %d", log.epochs[0], tc.want)
			}
		})
	}
}

// TestSubscribeRecordsMemberProtocol: in a mixed group each member's
// subscribe names its own protocol (group.protocols).
func TestSubscribeRecordsMemberProtocol(t *testing.T) {
	d := &fakeGroupDriver{log: &fakeLog{}}
	want := []string{histories.ProtocolConsumer, histories.ProtocolClassic, histories.ProtocolClassic}
	cfg := workloads.Config{Duration: workloads.Duration(5 * time.Second),
		Group: workloads.GroupConfig{ID: "g", Members: 3, Protocols: want}}
	g, rec, buf := newGroup(t, cfg, d)
	for _, s := range g.slots {
		s.mu.Lock()
		err := s.start()
		s.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	for _, e := range workloadstest.ReadBack(t, rec, buf) {
		if e.F != histories.FSubscribe || e.Type != histories.OK {
			continue
		}
		var v histories.SubscribeValue
		if err := e.Decode(&v); err != nil {
			t.Fatal(err)
		}
		got[v.Member] = v.Protocol
	}
	for i, p := range want {
		if got[workloads.MemberName(i)] != p {
			t.Errorf("%s subscribed with %q, want %q", workloads.MemberName(i), got[workloads.MemberName(i)], p)
		}
	}
}
