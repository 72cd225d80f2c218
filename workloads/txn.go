package workloads

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
)

// TxnPollWait bounds one poll inside a transaction: shorter than a
// consumer's poll, since the transaction waits for it (its timeout has
// not started yet: it starts at the first send). Exported for the driver
// packages (workloads/java), whose transactional polls it bounds.
const TxnPollWait = 300 * time.Millisecond

// txnPlan is what one transaction will do, drawn before its invoke.
type txnPlan struct {
	value histories.TxnValue // the invoke's value
	msgs  []Message
	polls []int32 // partitions to poll first; nil: no poll
	// crashAt: the producer crashes after this many sends (1..len(msgs));
	// -1: no crash.
	crashAt int
}

// txnDone is a txn completion's value: histories.TxnValue plus an
// extension, as sendDone is for sends. Crashed says the producer was
// abandoned mid-transaction and a successor with the same transactional id
// initialised before this client went on (see crash); readers that do not
// know the field ignore it.
type txnDone struct {
	histories.TxnValue
	Crashed bool `json:"crashed,omitempty"`
}

// txnRun is what running a plan learned.
type txnRun struct {
	value     histories.TxnValue // the completion's value
	end       TxnEnd
	crashed   bool
	successor TxnProducer // after a crash: the client that fenced the zombie
}

// txnClients are the live transactional clients, so that a drain that
// gives up can close them all (each slot closes its own otherwise).
type txnClients struct {
	mu sync.Mutex
	m  map[TxnProducer]bool
}

func (r *txnClients) add(c TxnProducer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[TxnProducer]bool{}
	}
	r.m[c] = true
}

func (r *txnClients) close(c TxnProducer) {
	r.mu.Lock()
	delete(r.m, c)
	r.mu.Unlock()
	c.Close()
}

func (r *txnClients) closeAll() {
	r.mu.Lock()
	cs := make([]TxnProducer, 0, len(r.m))
	for c := range r.m {
		cs = append(cs, c)
	}
	r.m = nil
	r.mu.Unlock()
	closeAll(cs)
}

// openTxnProducers creates cfg.Producers transactional clients.
func (w *Workload) openTxnProducers(reg *txnClients) ([]TxnProducer, error) {
	td, ok := w.drv.(TxnDriver)
	if !ok {
		return nil, errors.New("workload: driver " + w.drv.Name() + " has no transactional producer")
	}
	out := make([]TxnProducer, 0, w.cfg.Producers)
	for i := 0; i < w.cfg.Producers; i++ {
		p, err := td.NewTxnProducer(w.cfg, w.bootstrap, i)
		if err != nil {
			reg.closeAll()
			return nil, err
		}
		reg.add(p)
		out = append(out, p)
	}
	return out, nil
}

// runTxnProducers runs one transactional process per producer until stop
// ends and each one's last transaction completed. ops bounds every
// request, as for sends.
func (w *Workload) runTxnProducers(stop, ops context.Context, clients []TxnProducer, reg *txnClients) error {
	return firstErr(runAll(len(clients), func(i int) error { return w.txnSlot(stop, ops, i, clients[i], reg) }))
}

// txnSlot is producer i's process (and its successors): one transaction
// at a time, each a txn op. A process whose txn ended info retires, as for
// sends; so does a crashed one (its successor is a new process, with the
// same transactional id). A client that is fenced, or whose state after
// an error only a new InitProducerId cleans, is closed and re-created.
func (w *Workload) txnSlot(stop, ops context.Context, i int, cl TxnProducer, reg *txnClients) error {
	td := w.drv.(TxnDriver)
	pid := w.rec.NewProcess()
	seq := 0
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
	defer func() {
		if cl != nil {
			reg.close(cl)
		}
	}()
	for {
		if Ended(stop) || !w.takeSend() {
			return nil
		}
		if cl == nil {
			c, err := td.NewTxnProducer(w.cfg, w.bootstrap, i)
			if err != nil {
				w.c.countError(ErrorName(err))
				_ = ctxsleep.Sleep(stop, FailureBackoff)
				continue
			}
			reg.add(c)
			cl = c
		}
		plan := w.planTxn(rng, i, pid, &seq)
		for range plan.msgs {
			if err := w.limiter.Wait(stop); err != nil {
				return nil
			}
		}
		if _, err := w.rec.Invoke(pid, histories.FTxn, plan.value); err != nil {
			w.c.recordErrors.Add(1)
			return err
		}
		w.c.txns.Add(1)
		r := w.runTxn(ops, i, cl, plan, reg)
		typ, name, recreate := TxnOutcome(r.end)
		if _, err := w.rec.Complete(pid, typ, histories.FTxn, txnDone{TxnValue: r.value, Crashed: r.crashed}, name); err != nil {
			w.c.recordErrors.Add(1)
			return err
		}
		w.countTxn(typ, name, r)
		if recreate || r.crashed {
			reg.close(cl)
			cl = r.successor // nil unless a successor fenced the zombie
		}
		if typ == histories.Info || r.crashed {
			pid, seq = w.rec.NewProcess(), 0
		}
		if typ != histories.OK && name != CauseAborted {
			// As after a failed send: no hot loop of failing transactions
			// while the cluster cannot take them.
			_ = ctxsleep.Sleep(stop, FailureBackoff)
		}
	}
}

func (w *Workload) countTxn(typ histories.Type, name string, r txnRun) {
	switch typ {
	case histories.OK:
		w.c.txnCommitted.Add(1)
	case histories.Fail:
		w.c.txnAborted.Add(1)
	default:
		w.c.txnUnknown.Add(1)
	}
	if name != "" && name != CauseAborted {
		w.c.countError(name)
	}
	if IsFenced(r.end.StepErr) || IsFenced(r.end.CommitErr) || IsFenced(r.end.AbortErr) {
		w.c.txnFenced.Add(1)
	}
}

// planTxn draws one transaction: its sends (random partitions, unique
// values), its poll of those partitions, and how it ends. The abort and
// crash fractions are disjoint bands of one draw, so each is exactly its
// rate of the transactions; a crash only befalls one meant to commit.
func (w *Workload) planTxn(rng *rand.Rand, i, pid int, seq *int) txnPlan {
	t := w.cfg.Transactions
	n := t.MinSends + rng.IntN(t.MaxSends-t.MinSends+1)
	plan := txnPlan{crashAt: -1}
	v := histories.TxnValue{TransactionalID: TransactionalID(w.cfg.Topic, i), Intent: histories.TxnCommit}
	switch r := rng.Float64(); {
	case r < t.AbortRate:
		v.Intent = histories.TxnAbort
	case r < t.AbortRate+t.CrashRate:
		plan.crashAt = 1 + rng.IntN(n)
	}
	for range n {
		m := Message{Partition: int32(rng.IntN(w.cfg.Partitions)), Value: sendValueName(pid, *seq)}
		*seq++
		plan.msgs = append(plan.msgs, m)
		if !slices.Contains(plan.polls, m.Partition) {
			plan.polls = append(plan.polls, m.Partition)
		}
	}
	slices.Sort(plan.polls)
	if !t.Polls {
		plan.polls = nil
	} else {
		v.Ops = append(v.Ops, histories.TxnOp{F: histories.TxnPoll, Topic: w.cfg.Topic, Partitions: plan.polls})
	}
	for _, m := range plan.msgs {
		v.Ops = append(v.Ops, sendOp(w.cfg.Topic, m))
	}
	plan.value = v
	return plan
}

func sendOp(topic string, m Message) histories.TxnOp {
	p := m.Partition
	return histories.TxnOp{F: histories.TxnSend, Topic: topic, Partition: &p, Value: m.Value}
}

// runTxn runs one transaction on cl and says what happened. The
// completion lists what was learned: polls that returned (with their
// records; a poll that failed is left out, since it read nothing it could
// claim, and it ends the transaction) and every send attempted, with its
// offset once acked. Sends after the first error are never attempted.
func (w *Workload) runTxn(ops context.Context, i int, cl TxnProducer, plan txnPlan, reg *txnClients) txnRun {
	r := txnRun{value: plan.value}
	r.value.Ops = nil
	step := func(err error) bool {
		if err != nil && r.end.StepErr == nil {
			r.end.StepErr = err
		}
		return err == nil
	}
	began := step(cl.Begin())
	if began {
		ctx, cancel := context.WithTimeout(ops, w.cfg.OpTimeout())
		id, epoch, err := cl.ProducerID(ctx)
		cancel()
		if step(err) {
			r.value.ProducerID, r.value.ProducerEpoch = &id, &epoch
		}
	}
	if r.end.StepErr == nil && plan.polls != nil {
		ctx, cancel := context.WithTimeout(ops, TxnPollWait)
		recs, err := cl.Poll(ctx, plan.polls)
		cancel()
		if step(err) {
			r.value.Ops = append(r.value.Ops, histories.TxnOp{F: histories.TxnPoll, Topic: w.cfg.Topic,
				Partitions: plan.polls, Records: recs})
		}
	}
	for k := 0; r.end.StepErr == nil && k < len(plan.msgs); k++ {
		m := plan.msgs[k]
		ctx, cancel := context.WithTimeout(ops, w.cfg.OpTimeout())
		off, err := cl.Send(ctx, m)
		cancel()
		op := sendOp(w.cfg.Topic, m)
		if err == nil {
			op.Offset = &off
		}
		r.value.Ops = append(r.value.Ops, op)
		if step(err) && k+1 == plan.crashAt {
			r.crashed = true
			r.successor, r.end.Superseded = w.crash(ops, i, reg)
		}
	}
	if h := w.cfg.Transactions.Hold.Std(); h > 0 && r.end.StepErr == nil && plan.value.Intent != histories.TxnAbort {
		select { // the work between the writes and the commit
		case <-time.After(h):
		case <-ops.Done():
		}
	}
	ctx, cancel := context.WithTimeout(ops, w.cfg.OpTimeout())
	defer cancel()
	switch {
	case r.end.StepErr != nil:
		// Not begun: nothing to end. Fenced: the coordinator refuses the
		// abort too, and has aborted (or will abort) the transaction.
		if began && !IsFenced(r.end.StepErr) {
			r.value.EndInvoked = w.runClock()
			r.end.AbortAsked = true
			r.end.AbortErr = cl.End(ctx, false)
		}
	case plan.value.Intent == histories.TxnAbort:
		r.value.EndInvoked = w.runClock()
		r.end.AbortAsked = true
		r.end.AbortErr = cl.End(ctx, false)
	default:
		// A zombie gets here when its remaining sends were not refused
		// (none were left, or kgo sent none): its commit is refused if the
		// successor's InitProducerId, complete by now, fenced it.
		r.value.EndInvoked = w.runClock()
		r.end.CommitAsked = true
		r.end.CommitErr = cl.End(ctx, true)
	}
	return r
}

// crash simulates a producer crash mid-transaction: the current client is
// abandoned with its transaction open (not closed: the zombie goes on
// after this returns), and a successor with the same transactional id
// initialises. Its InitProducerId bumps the epoch, and the coordinator
// aborts the open transaction before answering (it returns
// CONCURRENT_TRANSACTIONS, which kgo retries, until the abort is
// complete). So once it returns, the zombie's transaction is aborted and
// any later request at the old epoch is fenced: superseded is true. If
// the successor cannot initialise, nothing is known (superseded false).
func (w *Workload) crash(ops context.Context, i int, reg *txnClients) (succ TxnProducer, superseded bool) {
	w.c.txnCrashes.Add(1)
	succ, err := w.drv.(TxnDriver).NewTxnProducer(w.cfg, w.bootstrap, i)
	if err != nil {
		w.c.countError(ErrorName(err))
		return nil, false
	}
	reg.add(succ)
	ctx, cancel := context.WithTimeout(ops, w.cfg.Transactions.Timeout.Std()+w.cfg.OpTimeout())
	defer cancel()
	if _, _, err := succ.ProducerID(ctx); err != nil {
		w.c.countError(ErrorName(err))
		reg.close(succ)
		return nil, false
	}
	return succ, true
}

// runClock is the recorder's run clock now (ns since the run started, the
// clock of event times), or nil when the recorder keeps none.
func (w *Workload) runClock() *int64 {
	c, ok := w.rec.(interface{ Elapsed() time.Duration })
	if !ok {
		return nil
	}
	t := int64(c.Elapsed())
	return &t
}

// txnDrainTimeout bounds the wait for the last transactions at the end of
// a run: a whole transaction's requests (begin, sends, end) and a crash's
// successor initialisation, not one send's.
func (c *Config) txnDrainTimeout() time.Duration {
	t := c.Transactions
	return time.Duration(t.MaxSends+3)*c.OpTimeout() + TxnPollWait + t.Timeout.Std()
}
