package workloads

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

// Consumer groups (workload.group): each member is a client process that
// subscribes, polls, commits and learns of rebalances, recorded in the
// vocabulary of histories/groups.go.
//
// A member's ops are serialized by its slot's lock: the member loop holds
// it for each poll and commit, and the client's callbacks (a rebalance, an
// auto-commit) take it to record theirs, so that one process never has two
// ops open. A callback therefore waits for a poll in flight, so a member
// polls for at most groupPollWait: kgo runs the KIP-848 reconciliation
// (and the offset fetch of newly assigned partitions) only after the
// assign callback returns, and a callback held for a whole second per
// step left partitions unfetched while the group kept moving them.
// Neither driver's poll waits for a callback.

// groupPollWait bounds a member's poll, and so how long a rebalance
// callback waits for the member's lock.
const groupPollWait = 200 * time.Millisecond

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

// commitValue renders a commit's invoke (committed nil) or completion.
func (w *Workload) commitValue(r CommitResult, offsets map[int32]int64, auto bool) histories.CommitValue {
	v := histories.CommitValue{Group: w.cfg.Group.ID, MemberID: r.MemberID, Topic: w.cfg.Topic,
		Offsets: map[string]int64{}, Auto: auto}
	if r.Generation >= 0 || r.MemberID != "" {
		g := r.Generation
		v.Generation = &g
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
		v.Errors[histories.PartitionKey(p)] = ErrorName(err)
	}
	return v
}

// memberSlot is one member name: a succession of processes, each with its
// own client (a killed member is replaced by a new process).
type memberSlot struct {
	w    *Workload
	i    int
	name string
	drv  GroupDriver

	mu        sync.Mutex // one op at a time on the process (see above)
	pid       int
	cl        GroupMember
	dead      bool            // the client was killed or left: its callbacks record nothing
	inc       int             // the client's incarnation: a killed client's late callbacks name an older one
	delivered map[int32]int64 // per partition, the offset after the last record delivered
	// deliveredEpoch is, per partition, the leader epoch of the last
	// record delivered (for commit_epoch: record).
	deliveredEpoch map[int32]int32
	committed      map[int32]int64 // what this process last committed (ok) or asked to
	lastSync       time.Time

	ctl chan MemberFault // faults: kill, leave, stall (group_faults.go)
}

// gen returns the generation pointer of a poll or rebalance value.
func genOf(g int32) *int32 { return &g }

// memberHandler is the GroupHandler of one client of a slot: the
// callbacks of a client that was killed or left (kgo's Close revokes,
// kafka-go's last generation ends) may come after its successor started,
// and must not be recorded as the successor's.
type memberHandler struct {
	s   *memberSlot
	inc int
}

func (h memberHandler) Rebalanced(ctx context.Context, r RebalanceEvent) {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || s.inc != h.inc {
		return
	}
	s.rebalancedLocked(ctx, r)
}

func (h memberHandler) AutoCommitted(r CommitResult) {
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
func (s *memberSlot) rebalancedLocked(ctx context.Context, r RebalanceEvent) {
	if len(r.Revoked) > 0 {
		s.commitLocked(ctx, r.Revoked, s.w.cfg.Group.Commit == CommitAuto && s.cl != nil && s.cl.AutoCommits())
	}
	v := histories.RebalanceValue{Group: s.w.cfg.Group.ID, MemberID: r.MemberID, Generation: genOf(r.Generation),
		Topic: s.w.cfg.Topic, Assigned: r.Assigned, Revoked: r.Revoked, Lost: r.Lost}
	if _, err := s.w.rec.Invoke(s.pid, histories.FRebalance, v); err == nil {
		_, err = s.w.rec.Complete(s.pid, histories.OK, histories.FRebalance, v, "")
		if err != nil {
			s.w.c.recordErrors.Add(1)
		}
	} else {
		s.w.c.recordErrors.Add(1)
	}
	for _, p := range slices.Concat(r.Revoked, r.Lost) {
		delete(s.delivered, p)
		delete(s.deliveredEpoch, p)
		delete(s.committed, p)
	}
}

// recordCommit writes a commit's invoke and completion (s.mu held).
func (s *memberSlot) recordCommit(r CommitResult, auto bool) {
	w := s.w
	if _, err := w.rec.Invoke(s.pid, histories.FCommit, w.commitValue(CommitResult{MemberID: r.MemberID, Generation: r.Generation}, r.Offsets, auto)); err != nil {
		w.c.recordErrors.Add(1)
		return
	}
	typ, name := CommitOutcome(r)
	done := w.commitValue(r, r.Committed, auto)
	if typ != histories.OK {
		done = w.commitValue(r, r.Offsets, auto)
	}
	if _, err := w.rec.Complete(s.pid, typ, histories.FCommit, done, name); err != nil {
		w.c.recordErrors.Add(1)
	}
	if name != "" {
		w.c.countError(name)
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
	s.pid = s.w.rec.NewProcess()
	s.recordSubscribeAs(histories.OK, "", &old)
}

// commitEpochs is the leader epoch each of offs is committed with: the
// last delivered record's under commit_epoch record (-1 where none was
// delivered), else -1, without one (GroupConfig.CommitEpoch).
func (s *memberSlot) commitEpochs(offs map[int32]int64) map[int32]int32 {
	out := make(map[int32]int32, len(offs))
	for p := range offs {
		e, ok := s.deliveredEpoch[p]
		if !ok || s.w.cfg.Group.CommitEpoch != CommitEpochRecord {
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
	cctx, cancel := context.WithTimeout(ctx, s.w.cfg.RequestTimeout.Std()+5*time.Second)
	defer cancel()
	s.w.rec.Invoke(s.pid, histories.FCommit, s.w.commitValue(CommitResult{MemberID: mid, Generation: gen, Epochs: epochs}, offs, false))
	r := s.cl.Commit(cctx, offs, epochs)
	r.Offsets = offs
	if r.Epochs == nil {
		r.Epochs = epochs
	}
	if r.MemberID == "" {
		r.MemberID, r.Generation = mid, gen
	}
	typ, name := CommitOutcome(r)
	done := s.w.commitValue(r, r.Committed, false)
	if typ != histories.OK {
		done = s.w.commitValue(r, offs, false)
	}
	if _, err := s.w.rec.Complete(s.pid, typ, histories.FCommit, done, name); err != nil {
		s.w.c.recordErrors.Add(1)
	}
	if name != "" {
		s.w.c.countError(name)
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
	w := s.w
	v := histories.SubscribeValue{Group: w.cfg.Group.ID, Member: s.name, Topic: w.cfg.Topic, Protocol: w.cfg.Group.Protocol,
		Continues: continues}
	if w.cfg.OffsetReset == ResetLatest {
		v.OffsetReset = ResetLatest
	}
	if _, err := w.rec.Invoke(s.pid, histories.FSubscribe, v); err != nil {
		w.c.recordErrors.Add(1)
		return
	}
	if _, err := w.rec.Complete(s.pid, typ, histories.FSubscribe, v, errText); err != nil {
		w.c.recordErrors.Add(1)
	}
}

// start makes a new process and its client (s.mu held).
func (s *memberSlot) start() error {
	s.pid = s.w.rec.NewProcess()
	s.dead = false
	s.delivered, s.committed, s.deliveredEpoch = map[int32]int64{}, map[int32]int64{}, map[int32]int32{}
	s.inc++
	cl, err := s.drv.NewGroupMember(s.w.cfg, s.w.bootstrap, s.i, memberHandler{s, s.inc})
	if err != nil {
		s.recordSubscribe(histories.Fail, ErrorName(err))
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
	for !Ended(stop) {
		if err := s.control(stop); err != nil {
			return err
		}
		if s.cl == nil {
			continue
		}
		if err := s.pollOnce(stop); err != nil {
			return err
		}
	}
	return nil
}

// pollOnce records one poll and what follows it: the delivered positions,
// and a commit when one is due.
func (s *memberSlot) pollOnce(stop context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.w
	mid, gen := s.cl.Meta()
	req := histories.GroupReadRequest{ReadRequest: histories.ReadRequest{Topic: w.cfg.Topic, Partitions: []int32{},
		Isolation: txnIsolationOf(w.cfg.Isolation)}, GroupPoll: histories.GroupPoll{Group: w.cfg.Group.ID, MemberID: mid, Generation: genOf(gen)}}
	if _, err := w.rec.Invoke(s.pid, histories.FPoll, req); err != nil {
		w.c.recordErrors.Add(1)
		return err
	}
	pctx, cancel := context.WithTimeout(stop, groupPollWait)
	f, perr := s.cl.Poll(pctx)
	cancel()
	if err := w.completePoll(s.pid, req.ReadRequest, f, perr); err != nil {
		return err
	}
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
		if err := w.recordAssign(s.pid, slices.Sorted(maps.Keys(f.Resets)), f.Resets); err != nil {
			return err
		}
	}
	due := time.Since(s.lastSync) >= w.cfg.Group.CommitInterval.Std()
	if due && (w.cfg.Group.Commit == CommitManual || !s.cl.AutoCommits()) {
		s.lastSync = time.Now()
		s.commitLocked(context.WithoutCancel(stop), nil, false)
	}
	return nil
}

// close ends the member at the end of the run: a last commit of what it
// delivered, then it leaves the group.
func (s *memberSlot) close() {
	s.mu.Lock()
	cl := s.cl
	if cl != nil && !s.dead && (s.w.cfg.Group.Commit == CommitManual || !cl.AutoCommits()) {
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

// runGroup runs every member until stop.
func (w *Workload) runGroup(stop context.Context, slots []*memberSlot) error {
	return errors.Join(runAll(len(slots), func(i int) error {
		if err := slots[i].run(stop); err != nil {
			return fmt.Errorf("group member %s: %w", slots[i].name, err)
		}
		return nil
	})...)
}

// newSlots makes the member slots (their clients start in run).
func (w *Workload) newSlots() ([]*memberSlot, error) {
	gd, ok := w.drv.(GroupDriver)
	if !ok {
		return nil, fmt.Errorf("driver %s has no group consumer", w.drv.Name())
	}
	out := make([]*memberSlot, w.cfg.Group.Members)
	for i := range out {
		out[i] = &memberSlot{w: w, i: i, name: MemberName(i), drv: gd, ctl: make(chan MemberFault, 4)}
	}
	return out, nil
}
