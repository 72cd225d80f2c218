package shares

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/workloads"
)

// openMember makes a slot's client and records its share-subscribe.
func (g *group) openMember(s *slot) (*member, error) {
	sd, ok := g.env.Driver.(workloads.ShareDriver)
	if !ok {
		return nil, fmt.Errorf("driver %s has no share consumer", g.env.Driver.Name())
	}
	m := &member{proc: g.env.Recorder.NewProcess()}
	v := histories.ShareSubscribeValue{Group: g.cfg.Shares.Group, Member: s.name, Topic: g.cfg.Topic,
		LockMS: g.lim.lockMS, DeliveryLimit: g.lim.limit}
	if _, err := g.env.Recorder.Invoke(m.proc, histories.FShareSubscribe, v); err != nil {
		return nil, err
	}
	cl, err := sd.NewShareMember(g.cfg, g.env.Bootstrap, s.name)
	if err != nil {
		_, rerr := g.env.Recorder.Complete(m.proc, histories.Fail, histories.FShareSubscribe, v, err.Error())
		return nil, errors.Join(err, rerr)
	}
	m.cl = cl
	if _, err := g.env.Recorder.Complete(m.proc, histories.OK, histories.FShareSubscribe, v, ""); err != nil {
		cl.Leave()
		return nil, err
	}
	return m, nil
}

// end ends a member's client (leave or kill) and then its open share-poll,
// if any: completed ok with no records, since the member was handed
// nothing more (what its last fetch acquired comes back to the group when
// the broker frees the locks).
func (g *group) end(m *member, kill bool) error {
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
	_, err := g.env.Recorder.Complete(m.proc, histories.OK, histories.FSharePoll, v, "")
	return err
}

// loops runs every slot's loop at once until they end (ctx, or
// done for the drain), waits for all of them and returns the first
// error.
func (g *group) loops(ctx context.Context, done func() bool) error {
	errs := make([]error, len(g.slots))
	var wg sync.WaitGroup
	for i, s := range g.slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.loop(ctx, s, done)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// loop is one slot's member: poll, process, ack, until ctx ends or
// done says the drain is over; it carries out the faults sent to it.
func (g *group) loop(ctx context.Context, s *slot, done func() bool) (err error) {
	m, err := g.openMember(s)
	if err != nil {
		return err
	}
	defer func() {
		if m != nil {
			err = errors.Join(err, g.end(m, false))
		}
	}()
	for ctx.Err() == nil && (done == nil || !done()) {
		select {
		case c := <-s.ctl:
			if m, err = g.fault(ctx, s, m, c); err != nil {
				return err
			}
			continue
		default:
		}
		if s.kill != nil && time.Since(s.killAt) > killWait {
			if m, err = g.strike(s, m); err != nil {
				return err
			}
			continue
		}
		if m == nil {
			// Killed or left: wait for a start.
			select {
			case c := <-s.ctl:
				if m, err = g.fault(ctx, s, m, c); err != nil {
					return err
				}
			case <-ctx.Done():
			case <-time.After(workloads.SharePollWait):
			}
			continue
		}
		alive, err := g.round(ctx, s, m)
		if err != nil {
			return err
		}
		switch {
		case s.kill != nil && alive && m.poll == nil:
			if m, err = g.strike(s, m); err != nil { // it holds what its last poll delivered
				return err
			}
		case !alive:
			if s.kill != nil {
				s.kill.Done <- nil // its process ended anyway
				s.kill = nil
			}
			err = g.end(m, false)
			m = nil
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// fault carries out a member fault; it returns the member's client
// after it (nil: none running).
func (g *group) fault(ctx context.Context, s *slot, m *member, c workloads.MemberFault) (*member, error) {
	var err error
	switch c.Op {
	case workloads.MemberKill:
		if m == nil {
			c.Done <- fmt.Errorf("%s is not running", s.name)
			return m, nil
		}
		s.kill, s.killAt = &c, time.Now()
		return m, nil
	case workloads.MemberLeave:
		if m == nil {
			c.Done <- fmt.Errorf("%s is not running", s.name)
			return m, nil
		}
		err = g.end(m, false)
		m = nil
	case workloads.MemberStart:
		if m != nil {
			c.Done <- fmt.Errorf("%s is running", s.name)
			return m, nil
		}
		m, err = g.openMember(s)
	case workloads.MemberStall:
		// After its next poll that delivers records the member holds them
		// and does nothing for d: past the lock duration the broker gives
		// them to others, and its late acks are refused.
		s.stall = c.D
		c.Done <- nil
		return m, nil
	}
	c.Done <- err
	return m, err
}

// strike carries out a pending kill: the member's client ends as a
// crashed process's (workloads.ShareMember.Kill); what it holds comes back when the
// broker notices.
func (g *group) strike(s *slot, m *member) (*member, error) {
	var err error
	if m != nil {
		err = g.end(m, true)
	}
	s.kill.Done <- nil
	s.kill = nil
	return nil, err
}

// round is one poll, its processing and its acks. It reports false
// when the member's op ended info (the process is retired). A member
// whose client may hand out records acquired before a poll keeps its
// share-poll op open while its polls come back empty (m.poll).
func (g *group) round(ctx context.Context, s *slot, m *member) (bool, error) {
	cfg := g.cfg.Shares
	if m.poll == nil {
		inv := histories.SharePollValue{Group: cfg.Group, Member: s.name, Topic: g.cfg.Topic}
		if _, err := g.env.Recorder.Invoke(m.proc, histories.FSharePoll, inv); err != nil {
			return false, err
		}
		m.poll = &inv
	}
	recs, perr := m.cl.Poll(ctx, cfg.MaxRecords)
	inv := *m.poll
	if errors.Is(perr, workloads.ErrShareClosed) {
		m.poll = nil
		_, err := g.env.Recorder.Complete(m.proc, histories.Info, histories.FSharePoll, inv, "client closed")
		return false, err
	}
	if perr != nil {
		m.poll = nil
		_, err := g.env.Recorder.Complete(m.proc, histories.Info, histories.FSharePoll, inv, workloads.ErrorName(perr))
		return false, err
	}
	if len(recs) == 0 && !m.cl.AcquiresInPoll() {
		return true, nil // the op stays open (member.poll)
	}
	m.poll = nil
	done := inv
	done.Records = recs
	if _, err := g.env.Recorder.Complete(m.proc, histories.OK, histories.FSharePoll, done, ""); err != nil {
		return false, err
	}
	if len(recs) == 0 {
		return true, nil
	}
	g.env.Count.Polled(len(recs))
	if s.kill != nil {
		return true, nil // killed holding these (loop strikes)
	}
	if d := s.stall; d > 0 {
		s.stall = 0
		ctxsleep.Sleep(ctx, d)
	}
	if cfg.Renew {
		alive, err := g.ack(ctx, m, s.name, recs, func() string { return histories.AckRenew })
		if err != nil || !alive {
			return alive, err
		}
	}
	ctxsleep.Sleep(ctx, cfg.Processing.Std())
	return g.ack(ctx, m, s.name, recs, func() string { return s.draw(cfg.Ack) })
}

// draw picks an ack status by the mix's weights.
func (s *slot) draw(mix workloads.ShareAckMix) string {
	n := s.rng.IntN(mix.Accept + mix.Release + mix.Reject)
	switch {
	case n < mix.Accept:
		return histories.AckAccept
	case n < mix.Accept+mix.Release:
		return histories.AckRelease
	}
	return histories.AckReject
}

// ack acks the poll's records polled with the statuses status
// draws, in order, and records one share-ack op with each record's
// outcome (outcome).
func (g *group) ack(ctx context.Context, m *member, member string, polled []histories.ShareRecord, status func() string) (bool, error) {
	v := histories.ShareAckValue{Group: g.cfg.Shares.Group, Member: member, Topic: g.cfg.Topic,
		Acks: make([]histories.ShareAck, len(polled))}
	sts := make([]string, len(polled))
	for i, r := range polled {
		sts[i] = status()
		v.Acks[i] = histories.ShareAck{Partition: r.Partition, Offset: r.Offset, Value: r.Value,
			DeliveryCount: r.DeliveryCount, Status: sts[i]}
	}
	if _, err := g.env.Recorder.Invoke(m.proc, histories.FShareAck, v); err != nil {
		return false, err
	}
	// The flush outlives the run's end (as a send in flight does): acks
	// canceled at the stop would leave records whose accept Kafka applied
	// with an unknown outcome, which the drain then waits for in vain
	// (w1, 2026-12-02: 22 such records, the drain never finished).
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.cfg.OpTimeout())
	res, ferr := m.cl.Ack(fctx, sts)
	cancel()
	done := v
	done.Acks = slices.Clone(v.Acks)
	for i := range done.Acks {
		a := &done.Acks[i]
		a.Outcome, a.Error = outcome(res.Results[a.Partition])
		if res.Wire != nil {
			a.Wire = res.Wire(a.Partition, a.Offset)
		}
		if ferr != nil {
			// The flush did not finish: a result in hand may be another
			// ack's, and this one's may come later.
			a.Outcome, a.Error = histories.ShareOutcomeInfo, workloads.ErrorName(ferr)
		}
		if a.Outcome == histories.ShareOutcomeOK && (a.Status == histories.AckAccept || a.Status == histories.AckReject) {
			g.tally.add(a.Partition, a.Offset)
		}
	}
	typ, errText := histories.OK, ""
	if ferr != nil {
		typ, errText = histories.Info, workloads.ErrorName(ferr)
	}
	if _, err := g.env.Recorder.Complete(m.proc, typ, histories.FShareAck, done, errText); err != nil {
		return false, err
	}
	return typ == histories.OK, nil
}

// outcome maps a partition's ack results in one flush to a record's
// outcome: ok when every result says the broker applied the acks; fail
// when every one is INVALID_RECORD_STATE (the broker checked the records
// and refused: the member no longer held them; franz-go also reports it
// for acks it dropped unsent because the partition's cursor moved to
// another broker, which released the locks); info otherwise (no result,
// or an error that does not say whether anything was applied). FlushAcks
// returns once every queued ack's callback ran, so a finished flush holds
// each of its acks' results.
func outcome(errs []error) (string, string) {
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
			name = workloads.ErrorName(err)
		default:
			name = workloads.ErrorName(err)
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
