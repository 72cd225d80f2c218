package groups

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/workloads"
)

// groupPollWait bounds a member's poll, and so how long a rebalance
// callback waits for the member's lock.
const groupPollWait = 200 * time.Millisecond

// commitValue renders a commit's invoke (committed nil) or completion.
func (g *group) commitValue(r workloads.CommitResult, offsets map[int32]int64, auto bool) histories.CommitValue {
	v := histories.CommitValue{Group: g.cfg.Group.ID, MemberID: r.MemberID, Topic: g.cfg.Topic,
		Offsets: map[string]int64{}, Auto: auto}
	if r.Generation >= 0 || r.MemberID != "" {
		gen := r.Generation
		v.Generation = &gen
	}
	for p, o := range offsets {
		v.Offsets[histories.PartitionKey(p)] = o
	}
	for p, e := range r.Epochs {
		if _, ok := offsets[p]; !ok {
			continue
		}
		if v.LeaderEpochs == nil {
			v.LeaderEpochs = map[string]int32{}
		}
		v.LeaderEpochs[histories.PartitionKey(p)] = e
	}
	for p, err := range r.Errors {
		if v.Errors == nil {
			v.Errors = map[string]string{}
		}
		v.Errors[histories.PartitionKey(p)] = workloads.ErrorName(err)
	}
	return v
}

// memberSlot is one member name: a succession of processes, each with its
// own client (a killed member is replaced by a new process).
type memberSlot struct {
	g    *group
	i    int
	name string
	drv  workloads.GroupDriver

	mu        sync.Mutex // one op at a time on the process (see above)
	pid       int
	cl        workloads.GroupMember
	dead      bool            // the client was killed or left: its callbacks record nothing
	inc       int             // the client's incarnation: a killed client's late callbacks name an older one
	delivered map[int32]int64 // per partition, the offset after the last record delivered
	// deliveredEpoch is, per partition, the leader epoch of the last
	// record delivered (for commit_epoch: record).
	deliveredEpoch map[int32]int32
	committed      map[int32]int64 // what this process last committed (ok) or asked to
	lastSync       time.Time

	ctl chan workloads.MemberFault // faults: kill, leave, stall (group_faults.go)
}

// gen returns the generation pointer of a poll or rebalance value.
func genOf(g int32) *int32 { return &g }

// memberHandler is the workloads.GroupHandler of one client of a slot: the
// callbacks of a client that was killed or left (kgo's Close revokes,
// kafka-go's last generation ends) may come after its successor started,
// and must not be recorded as the successor's.
type memberHandler struct {
	s   *memberSlot
	inc int
}

func (h memberHandler) Rebalanced(ctx context.Context, r workloads.RebalanceEvent) {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || s.inc != h.inc {
		return
	}
	s.rebalancedLocked(ctx, r)
}

func (h memberHandler) AutoCommitted(r workloads.CommitResult) {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || s.inc != h.inc || len(r.Offsets) == 0 {
		return
	}
	s.recordCommit(r, true)
}

// rebalancedLocked records a rebalance; with revoked partitions it first
// commits what was delivered on them (both commit modes commit before a
// revoke; a lost partition cannot be committed: the member was fenced).
func (s *memberSlot) rebalancedLocked(ctx context.Context, r workloads.RebalanceEvent) {
	if len(r.Revoked) > 0 {
		s.commitLocked(ctx, r.Revoked, s.g.cfg.Group.Commit == workloads.CommitAuto && s.cl != nil && s.cl.AutoCommits())
	}
	v := histories.RebalanceValue{Group: s.g.cfg.Group.ID, MemberID: r.MemberID, Generation: genOf(r.Generation),
		Topic: s.g.cfg.Topic, Assigned: r.Assigned, Revoked: r.Revoked, Lost: r.Lost}
	if _, err := s.g.env.Recorder.Invoke(s.pid, histories.FRebalance, v); err == nil {
		_, err = s.g.env.Recorder.Complete(s.pid, histories.OK, histories.FRebalance, v, "")
		if err != nil {
			s.g.env.Count.RecordError()
		}
	} else {
		s.g.env.Count.RecordError()
	}
	for _, p := range slices.Concat(r.Revoked, r.Lost) {
		delete(s.delivered, p)
		delete(s.deliveredEpoch, p)
		delete(s.committed, p)
	}
}

// recordCommit writes a commit's invoke and completion (s.mu held).
func (s *memberSlot) recordCommit(r workloads.CommitResult, auto bool) {
	g := s.g
	if _, err := g.env.Recorder.Invoke(s.pid, histories.FCommit, g.commitValue(workloads.CommitResult{MemberID: r.MemberID, Generation: r.Generation}, r.Offsets, auto)); err != nil {
		g.env.Count.RecordError()
		return
	}
	typ, name := workloads.CommitOutcome(r)
	done := g.commitValue(r, r.Committed, auto)
	if typ != histories.OK {
		done = g.commitValue(r, r.Offsets, auto)
	}
	if _, err := g.env.Recorder.Complete(s.pid, typ, histories.FCommit, done, name); err != nil {
		g.env.Count.RecordError()
	}
	if name != "" {
		g.env.Count.Error(name)
	}
	for p, o := range r.Committed {
		s.committed[p] = o
	}
	if typ == histories.Info {
		s.retire()
	}
}

// retire ends the process after an info: its next op needs a new process
// id (the operation model). The client lives on under the new id: only
// the history's process changes, and the new process re-subscribes (a
// subscribe record: the same client, a new process).
func (s *memberSlot) retire() {
	old := s.pid
	s.pid = s.g.env.Recorder.NewProcess()
	s.recordSubscribeAs(histories.OK, "", &old)
}

// commitEpochs is the leader epoch each of offs is committed with: the
// last delivered record's under commit_epoch record (-1 where none was
// delivered), else -1, without one (GroupConfig.CommitEpoch).
func (s *memberSlot) commitEpochs(offs map[int32]int64) map[int32]int32 {
	out := make(map[int32]int32, len(offs))
	for p := range offs {
		e, ok := s.deliveredEpoch[p]
		if !ok || s.g.cfg.Group.CommitEpoch != workloads.CommitEpochRecord {
			e = -1
		}
		out[p] = e
	}
	return out
}

// commitLocked commits the delivered offsets of parts (all if nil) that
// are ahead of what this process committed (s.mu held).
func (s *memberSlot) commitLocked(ctx context.Context, parts []int32, skip bool) {
	if skip || s.cl == nil {
		return
	}
	offs := map[int32]int64{}
	for p, o := range s.delivered {
		if parts != nil && !slices.Contains(parts, p) {
			continue
		}
		if c, ok := s.committed[p]; !ok || o > c {
			offs[p] = o
		}
	}
	if len(offs) == 0 {
		return
	}
	epochs := s.commitEpochs(offs)
	mid, gen := s.cl.Meta()
	cctx, cancel := context.WithTimeout(ctx, s.g.cfg.RequestTimeout.Std()+5*time.Second)
	defer cancel()
	s.g.env.Recorder.Invoke(s.pid, histories.FCommit, s.g.commitValue(workloads.CommitResult{MemberID: mid, Generation: gen, Epochs: epochs}, offs, false))
	r := s.cl.Commit(cctx, offs, epochs)
	r.Offsets = offs
	if r.Epochs == nil {
		r.Epochs = epochs
	}
	if r.MemberID == "" {
		r.MemberID, r.Generation = mid, gen
	}
	typ, name := workloads.CommitOutcome(r)
	done := s.g.commitValue(r, r.Committed, false)
	if typ != histories.OK {
		done = s.g.commitValue(r, offs, false)
	}
	if _, err := s.g.env.Recorder.Complete(s.pid, typ, histories.FCommit, done, name); err != nil {
		s.g.env.Count.RecordError()
	}
	if name != "" {
		s.g.env.Count.Error(name)
	}
	for p, o := range r.Committed {
		s.committed[p] = o
	}
	if typ == histories.Info {
		s.retire()
	}
}

// recordSubscribe writes the subscribe of the current process: invoke,
// then typ (subscribing is local to the client: it fails only when the
// client cannot be made).
func (s *memberSlot) recordSubscribe(typ histories.Type, errText string) {
	s.recordSubscribeAs(typ, errText, nil)
}

// recordSubscribeAs writes the subscribe, naming the process whose client
// it continues (nil: a new client).
func (s *memberSlot) recordSubscribeAs(typ histories.Type, errText string, continues *int) {
	g := s.g
	v := histories.SubscribeValue{Group: g.cfg.Group.ID, Member: s.name, Topic: g.cfg.Topic, Protocol: g.cfg.Group.MemberProtocol(s.i),
		Continues: continues}
	if g.cfg.OffsetReset == workloads.ResetLatest {
		v.OffsetReset = workloads.ResetLatest
	}
	if _, err := g.env.Recorder.Invoke(s.pid, histories.FSubscribe, v); err != nil {
		g.env.Count.RecordError()
		return
	}
	if _, err := g.env.Recorder.Complete(s.pid, typ, histories.FSubscribe, v, errText); err != nil {
		g.env.Count.RecordError()
	}
}

// start makes a new process and its client (s.mu held).
func (s *memberSlot) start() error {
	s.pid = s.g.env.Recorder.NewProcess()
	s.dead = false
	s.delivered, s.committed, s.deliveredEpoch = map[int32]int64{}, map[int32]int64{}, map[int32]int32{}
	s.inc++
	cl, err := s.drv.NewGroupMember(s.g.cfg, s.g.env.Bootstrap, s.i, memberHandler{s, s.inc})
	if err != nil {
		s.recordSubscribe(histories.Fail, workloads.ErrorName(err))
		return err
	}
	s.cl = cl
	s.recordSubscribe(histories.OK, "")
	s.lastSync = time.Now()
	return nil
}

// run is the member loop: subscribe, then poll, deliver, commit (manual
// mode, or kafka-go's auto mode) until stop; a fault may kill the member,
// make it leave and rejoin, or stall it.
func (s *memberSlot) run(stop context.Context) error {
	s.mu.Lock()
	for s.start() != nil {
		s.mu.Unlock()
		select {
		case <-stop.Done():
			return nil
		case <-time.After(time.Second):
		}
		s.mu.Lock()
	}
	s.mu.Unlock()
	defer s.close()
	for !workloads.Ended(stop) {
		if err := s.control(stop); err != nil {
			return err
		}
		if s.cl == nil {
			continue
		}
		failed, err := s.pollOnce(stop)
		if err != nil {
			return err
		}
		if failed {
			// As the plain consumer (workloads.PollFailed): a poll that
			// fails at once is not repeated at once.
			_ = ctxsleep.Sleep(stop, workloads.FailureBackoff)
		}
	}
	return nil
}

// pollOnce records one poll and what follows it: the delivered positions,
// and a commit when one is due. failed: the poll returned no record and an
// error.
func (s *memberSlot) pollOnce(stop context.Context) (failed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.g
	mid, gen := s.cl.Meta()
	req := histories.GroupReadRequest{ReadRequest: histories.ReadRequest{Topic: g.cfg.Topic, Partitions: []int32{},
		Isolation: workloads.IsolationOf(g.cfg.Isolation)}, GroupPoll: histories.GroupPoll{Group: g.cfg.Group.ID, MemberID: mid, Generation: genOf(gen)}}
	if _, err := g.env.Recorder.Invoke(s.pid, histories.FPoll, req); err != nil {
		g.env.Count.RecordError()
		return false, err
	}
	pctx, cancel := context.WithTimeout(stop, groupPollWait)
	f, perr := s.cl.Poll(pctx)
	cancel()
	if err := g.env.RecordPoll(s.pid, req.ReadRequest, f, perr); err != nil {
		return false, err
	}
	failed = workloads.PollFailed(f, perr)
	for _, r := range f.Records {
		if r.Offset+1 >= s.delivered[r.Partition] {
			s.deliveredEpoch[r.Partition] = r.LeaderEpoch
		}
		s.delivered[r.Partition] = max(s.delivered[r.Partition], r.Offset+1)
	}
	for p, next := range f.Next {
		if _, ok := s.delivered[p]; ok {
			s.delivered[p] = max(s.delivered[p], next)
		}
	}
	if len(f.Resets) > 0 {
		if err := g.env.RecordAssign(s.pid, slices.Sorted(maps.Keys(f.Resets)), f.Resets); err != nil {
			return false, err
		}
	}
	due := time.Since(s.lastSync) >= g.cfg.Group.CommitInterval.Std()
	if due && (g.cfg.Group.Commit == workloads.CommitManual || !s.cl.AutoCommits()) {
		s.lastSync = time.Now()
		s.commitLocked(context.WithoutCancel(stop), nil, false)
	}
	return failed, nil
}

// close ends the member at the end of the run: a last commit of what it
// delivered, then it leaves the group.
func (s *memberSlot) close() {
	s.mu.Lock()
	cl := s.cl
	if cl != nil && !s.dead && (s.g.cfg.Group.Commit == workloads.CommitManual || !cl.AutoCommits()) {
		s.commitLocked(context.Background(), nil, false)
	}
	s.mu.Unlock()
	if cl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cl.Leave(ctx)
		cancel()
	}
	s.mu.Lock()
	s.dead, s.cl = true, nil
	s.mu.Unlock()
}
