package workloads

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
)

// Share-group members (workload.shares, share_config.go): each member is
// a client process that subscribes, polls, processes and acks, recorded
// in the vocabulary of histories/shares.go. A member's ops are serial (it
// flushes its acks before it polls again), so one process never has two
// ops open. Its client fetches only when it polls (MaxConcurrentFetches
// 0, no fetch buffering), so what a poll returns was acquired during it.

// SharePollWait bounds a poll, so that a member answers its faults.
// Exported for the driver packages (workloads/java), whose share members'
// polls it bounds.
const SharePollWait = 500 * time.Millisecond

// shareSlot is one member: its name and the faults sent to its loop.
type shareSlot struct {
	i    int
	name string
	ctl  chan memberCtl
	rng  *rand.Rand

	// A kill or stall waits for the member's next poll that delivers
	// records, so that it strikes while the member holds their locks
	// (killAt: when the kill came; past killWait it strikes anyway).
	kill   *memberCtl
	killAt time.Time
	stall  time.Duration
}

// killWait bounds how long a kill waits for a poll that delivers records.
const killWait = 3 * time.Second

// shareMember is one client of a slot (a new one after a kill): its
// process and its driver's client, and the share-poll op it keeps open
// across empty polls when its client may hand out records acquired
// before a poll (ShareMember.AcquiresInPoll).
type shareMember struct {
	proc int
	cl   ShareMember
	poll *histories.SharePollValue // the open share-poll's invoke, or nil
}

// shareTally is what every member saw confirmed: records in a final
// state (accept or reject confirmed ok), for the drain. It is a bitset per
// partition, 64 offsets to a word: the members add every record they
// finish at the group's full rate, and a map entry per record (millions
// in a long run) cost them map growth and garbage collection in their
// synchronous loops (BenchmarkShareAccept).
type shareTally struct {
	mu    sync.Mutex
	final map[int32]map[int64]uint64 // partition -> offset/64 -> bits
}

func (t *shareTally) add(p int32, off int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.final == nil {
		t.final = map[int32]map[int64]uint64{}
	}
	if t.final[p] == nil {
		t.final[p] = map[int64]uint64{}
	}
	t.final[p][off>>6] |= 1 << (off & 63)
}

// has reports whether partition p's offset off is final (under mu).
func (t *shareTally) has(p int32, off int64) bool {
	return t.final[p][off>>6]&(1<<(off&63)) != 0
}

// missing counts the offsets below ends not yet final: from the log start
// (starts) or, past it, the group's share-partition start offset (spso,
// nil if unknown), below which Kafka holds every record final.
func (t *shareTally) missing(starts, spso, ends map[int32]int64) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	for p, end := range ends {
		for off := max(starts[p], spso[p]); off < end; off++ {
			if !t.has(p, off) {
				n++
			}
		}
	}
	return n
}

// shareLimits is what the brokers run with: the lock duration and the
// delivery count limit (read once, recorded in each share-subscribe).
type shareLimits struct {
	lockMS int64
	limit  int32
}

func (w *Workload) newShareSlots() []*shareSlot {
	out := make([]*shareSlot, w.cfg.Shares.Members)
	for i := range out {
		out[i] = &shareSlot{i: i, name: ShareMemberName(i), ctl: make(chan memberCtl),
			rng: rand.New(rand.NewPCG(w.cfg.Shares.Seed, uint64(i)))}
	}
	return out
}

// openShareMember makes a slot's client and records its share-subscribe.
func (w *Workload) openShareMember(s *shareSlot) (*shareMember, error) {
	sd, ok := w.drv.(ShareDriver)
	if !ok {
		return nil, fmt.Errorf("driver %s has no share consumer", w.drv.Name())
	}
	m := &shareMember{proc: w.rec.NewProcess()}
	v := histories.ShareSubscribeValue{Group: w.cfg.Shares.Group, Member: s.name, Topic: w.cfg.Topic,
		LockMS: w.shareLim.lockMS, DeliveryLimit: w.shareLim.limit}
	if _, err := w.rec.Invoke(m.proc, histories.FShareSubscribe, v); err != nil {
		return nil, err
	}
	cl, err := sd.NewShareMember(w.cfg, w.bootstrap, s.name)
	if err != nil {
		_, rerr := w.rec.Complete(m.proc, histories.Fail, histories.FShareSubscribe, v, err.Error())
		return nil, errors.Join(err, rerr)
	}
	m.cl = cl
	if _, err := w.rec.Complete(m.proc, histories.OK, histories.FShareSubscribe, v, ""); err != nil {
		cl.Leave()
		return nil, err
	}
	return m, nil
}

// end ends a member's client (leave or kill) and then its open share-poll,
// if any: completed ok with no records, since the member was handed
// nothing more (what its last fetch acquired comes back to the group when
// the broker frees the locks).
func (w *Workload) end(m *shareMember, kill bool) error {
	if kill {
		m.cl.Kill()
	} else {
		m.cl.Leave()
	}
	if m.poll == nil {
		return nil
	}
	v := *m.poll
	m.poll = nil
	v.Records = []histories.ShareRecord{}
	_, err := w.rec.Complete(m.proc, histories.OK, histories.FSharePoll, v, "")
	return err
}

// runShares runs every member until stop; then they leave (their client
// closes and releases what it holds). A recorder error ends the run.
func (w *Workload) runShares(stop context.Context) error { return w.shareLoops(stop, nil) }

// shareLoops runs every slot's shareLoop at once until they end (ctx, or
// done for the drain) and returns the first error.
func (w *Workload) shareLoops(ctx context.Context, done func() bool) error {
	return firstErr(runAll(len(w.shareSlots), func(i int) error { return w.shareLoop(ctx, w.shareSlots[i], done) }))
}

// shareLoop is one slot's member: poll, process, ack, until ctx ends or
// done says the drain is over; it carries out the faults sent to it.
func (w *Workload) shareLoop(ctx context.Context, s *shareSlot, done func() bool) (err error) {
	m, err := w.openShareMember(s)
	if err != nil {
		return err
	}
	defer func() {
		if m != nil {
			err = errors.Join(err, w.end(m, false))
		}
	}()
	for ctx.Err() == nil && (done == nil || !done()) {
		select {
		case c := <-s.ctl:
			if m, err = w.shareCtl(ctx, s, m, c); err != nil {
				return err
			}
			continue
		default:
		}
		if s.kill != nil && time.Since(s.killAt) > killWait {
			if m, err = w.strike(s, m); err != nil {
				return err
			}
			continue
		}
		if m == nil {
			// Killed or left: wait for a start.
			select {
			case c := <-s.ctl:
				if m, err = w.shareCtl(ctx, s, m, c); err != nil {
					return err
				}
			case <-ctx.Done():
			case <-time.After(SharePollWait):
			}
			continue
		}
		alive, err := w.shareRound(ctx, s, m)
		if err != nil {
			return err
		}
		switch {
		case s.kill != nil && alive && m.poll == nil:
			if m, err = w.strike(s, m); err != nil { // it holds what its last poll delivered
				return err
			}
		case !alive:
			if s.kill != nil {
				s.kill.done <- nil // its process ended anyway
				s.kill = nil
			}
			err = w.end(m, false)
			m = nil
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// shareCtl carries out a member fault; it returns the member's client
// after it (nil: none running).
func (w *Workload) shareCtl(ctx context.Context, s *shareSlot, m *shareMember, c memberCtl) (*shareMember, error) {
	var err error
	switch c.op {
	case ctlKill:
		if m == nil {
			c.done <- fmt.Errorf("%s is not running", s.name)
			return m, nil
		}
		s.kill, s.killAt = &c, time.Now()
		return m, nil
	case ctlLeave:
		if m == nil {
			c.done <- fmt.Errorf("%s is not running", s.name)
			return m, nil
		}
		err = w.end(m, false)
		m = nil
	case ctlStart:
		if m != nil {
			c.done <- fmt.Errorf("%s is running", s.name)
			return m, nil
		}
		m, err = w.openShareMember(s)
	case ctlStall:
		// After its next poll that delivers records the member holds them
		// and does nothing for d: past the lock duration the broker gives
		// them to others, and its late acks are refused.
		s.stall = c.d
		c.done <- nil
		return m, nil
	}
	c.done <- err
	return m, err
}

// strike carries out a pending kill: the member's client ends as a
// crashed process's (ShareMember.Kill); what it holds comes back when the
// broker notices.
func (w *Workload) strike(s *shareSlot, m *shareMember) (*shareMember, error) {
	var err error
	if m != nil {
		err = w.end(m, true)
	}
	s.kill.done <- nil
	s.kill = nil
	return nil, err
}

// shareRound is one poll, its processing and its acks. It reports false
// when the member's op ended info (the process is retired). A member
// whose client may hand out records acquired before a poll keeps its
// share-poll op open while its polls come back empty (m.poll).
func (w *Workload) shareRound(ctx context.Context, s *shareSlot, m *shareMember) (bool, error) {
	cfg := w.cfg.Shares
	if m.poll == nil {
		inv := histories.SharePollValue{Group: cfg.Group, Member: s.name, Topic: w.cfg.Topic}
		if _, err := w.rec.Invoke(m.proc, histories.FSharePoll, inv); err != nil {
			return false, err
		}
		m.poll = &inv
	}
	recs, perr := m.cl.Poll(ctx, cfg.MaxRecords)
	inv := *m.poll
	if errors.Is(perr, ErrShareClosed) {
		m.poll = nil
		_, err := w.rec.Complete(m.proc, histories.Info, histories.FSharePoll, inv, "client closed")
		return false, err
	}
	if perr != nil {
		m.poll = nil
		_, err := w.rec.Complete(m.proc, histories.Info, histories.FSharePoll, inv, ErrorName(perr))
		return false, err
	}
	if len(recs) == 0 && !m.cl.AcquiresInPoll() {
		return true, nil // the op stays open (shareMember.poll)
	}
	m.poll = nil
	done := inv
	done.Records = recs
	if _, err := w.rec.Complete(m.proc, histories.OK, histories.FSharePoll, done, ""); err != nil {
		return false, err
	}
	if len(recs) == 0 {
		return true, nil
	}
	w.c.polls.Add(1)
	w.c.polledRecords.Add(int64(len(recs)))
	if s.kill != nil {
		return true, nil // killed holding these (shareLoop strikes)
	}
	if d := s.stall; d > 0 {
		s.stall = 0
		sleepCtx(ctx, d)
	}
	if cfg.Renew {
		alive, err := w.shareAck(ctx, m, s.name, recs, func() string { return histories.AckRenew })
		if err != nil || !alive {
			return alive, err
		}
	}
	sleepCtx(ctx, cfg.Processing.Std())
	return w.shareAck(ctx, m, s.name, recs, func() string { return s.draw(cfg.Ack) })
}

// draw picks an ack status by the mix's weights.
func (s *shareSlot) draw(mix ShareAckMix) string {
	n := s.rng.IntN(mix.Accept + mix.Release + mix.Reject)
	switch {
	case n < mix.Accept:
		return histories.AckAccept
	case n < mix.Accept+mix.Release:
		return histories.AckRelease
	}
	return histories.AckReject
}

// shareAck acks the poll's records polled with the statuses status
// draws, in order, and records one share-ack op with each record's
// outcome (shareOutcome).
func (w *Workload) shareAck(ctx context.Context, m *shareMember, member string, polled []histories.ShareRecord, status func() string) (bool, error) {
	v := histories.ShareAckValue{Group: w.cfg.Shares.Group, Member: member, Topic: w.cfg.Topic,
		Acks: make([]histories.ShareAck, len(polled))}
	sts := make([]string, len(polled))
	for i, r := range polled {
		sts[i] = status()
		v.Acks[i] = histories.ShareAck{Partition: r.Partition, Offset: r.Offset, Value: r.Value,
			DeliveryCount: r.DeliveryCount, Status: sts[i]}
	}
	if _, err := w.rec.Invoke(m.proc, histories.FShareAck, v); err != nil {
		return false, err
	}
	// The flush outlives the run's end (as a send in flight does): acks
	// canceled at the stop would leave records whose accept Kafka applied
	// with an unknown outcome, which the drain then waits for in vain
	// (w1, 2026-12-02: 22 such records, the drain never finished).
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.OpTimeout())
	res, ferr := m.cl.Ack(fctx, sts)
	cancel()
	done := v
	done.Acks = slices.Clone(v.Acks)
	for i := range done.Acks {
		a := &done.Acks[i]
		a.Outcome, a.Error = shareOutcome(res.Results[a.Partition])
		if res.Wire != nil {
			a.Wire = res.Wire(a.Partition, a.Offset)
		}
		if ferr != nil {
			// The flush did not finish: a result in hand may be another
			// ack's, and this one's may come later.
			a.Outcome, a.Error = histories.ShareOutcomeInfo, ErrorName(ferr)
		}
		if a.Outcome == histories.ShareOutcomeOK && (a.Status == histories.AckAccept || a.Status == histories.AckReject) {
			w.shareTally.add(a.Partition, a.Offset)
		}
	}
	typ, errText := histories.OK, ""
	if ferr != nil {
		typ, errText = histories.Info, ErrorName(ferr)
	}
	if _, err := w.rec.Complete(m.proc, typ, histories.FShareAck, done, errText); err != nil {
		return false, err
	}
	return typ == histories.OK, nil
}

// shareOutcome maps a partition's ack results in one flush to a record's
// outcome: ok when every result says the broker applied the acks; fail
// when every one is INVALID_RECORD_STATE (the broker checked the records
// and refused: the member no longer held them; franz-go also reports it
// for acks it dropped unsent because the partition's cursor moved to
// another broker, which released the locks); info otherwise (no result,
// or an error that does not say whether anything was applied). FlushAcks
// returns once every queued ack's callback ran, so a finished flush holds
// each of its acks' results.
func shareOutcome(errs []error) (string, string) {
	if len(errs) == 0 {
		return histories.ShareOutcomeInfo, histories.ShareAckNoResult
	}
	okN, refused := 0, 0
	name := ""
	for _, err := range errs {
		switch {
		case err == nil:
			okN++
		case errors.Is(err, kerr.InvalidRecordState):
			refused++
			name = ErrorName(err)
		default:
			name = ErrorName(err)
		}
	}
	switch {
	case okN == len(errs):
		return histories.ShareOutcomeOK, ""
	case refused == len(errs):
		return histories.ShareOutcomeFail, name
	}
	return histories.ShareOutcomeInfo, name
}

// sleepCtx sleeps d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}
