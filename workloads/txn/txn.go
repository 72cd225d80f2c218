// Package txn is the transactional producers (workload.transactions), a
// workload kind of its own: every producer is transactional, each
// process runs one transaction at a time, recorded as one txn op
// (histories/txn.go), and may crash on purpose to be fenced by its
// successor.
//
// The Workload runs it in the plain producers' place (a
// workloads.ProducerKind, registered at init): the send budget, the rate
// limit and StopProducers act on it as on them. Its settings
// (workloads.TxnConfig), what a driver gives it (workloads.TxnDriver,
// TxnProducer, TxnPollWait) and how a transaction's end is judged
// (workloads.TxnOutcome, which the drivers' tests check their clients'
// errors against) are the seam's, since a driver package implements or
// names them and imports no kind.
package txn

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/workloads"
)

// The seam makes the transactional producers of a workload that asks for
// them (workloads.New) through the registry: this package is linked by
// workloads/kinds.
func init() {
	workloads.RegisterKind(workloads.KindTransactions, func(cfg workloads.Config, _ workloads.Driver) (workloads.Kind, error) {
		return newProducers(cfg), nil
	})
}

// producers is a workload's transactional producers: a workloads
// ProducerKind.
type producers struct {
	cfg     workloads.Config
	env     workloads.KindEnv // lent by the Workload at Open
	reg     *txnClients
	clients []workloads.TxnProducer // opened by Open, one per producer
}

var _ workloads.ProducerKind = (*producers)(nil)

// newProducers is the transactional producers of cfg (its Defaults applied); they
// connect to nothing yet.
func newProducers(cfg workloads.Config) *producers { return &producers{cfg: cfg, reg: &txnClients{}} }

// Open creates cfg.Producers transactional clients.
func (p *producers) Open(_ context.Context, env workloads.KindEnv) error {
	p.env = env
	cs, err := p.openTxnProducers(p.reg)
	p.clients = cs
	return err
}

// Close closes every transactional client still open.
func (p *producers) Close() { p.reg.closeAll() }

// firstOf is the first error of errs, or nil.
func firstOf(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// txnPlan is what one transaction will do, drawn before its invoke.
type txnPlan struct {
	value histories.TxnValue // the invoke's value
	msgs  []workloads.Message
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
	end       workloads.TxnEnd
	crashed   bool
	successor workloads.TxnProducer // after a crash: the client that fenced the zombie
}

// txnClients are the live transactional clients, so that a drain that
// gives up can close them all (each slot closes its own otherwise).
type txnClients struct {
	mu sync.Mutex
	m  map[workloads.TxnProducer]bool
}

func (r *txnClients) add(c workloads.TxnProducer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[workloads.TxnProducer]bool{}
	}
	r.m[c] = true
}

func (r *txnClients) close(c workloads.TxnProducer) {
	r.mu.Lock()
	delete(r.m, c)
	r.mu.Unlock()
	c.Close()
}

func (r *txnClients) closeAll() {
	r.mu.Lock()
	cs := make([]workloads.TxnProducer, 0, len(r.m))
	for c := range r.m {
		cs = append(cs, c)
	}
	r.m = nil
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
}

// openTxnProducers creates cfg.Producers transactional clients.
func (p *producers) openTxnProducers(reg *txnClients) ([]workloads.TxnProducer, error) {
	td, ok := p.env.Driver.(workloads.TxnDriver)
	if !ok {
		return nil, errors.New("workload: driver " + p.env.Driver.Name() + " has no transactional producer")
	}
	out := make([]workloads.TxnProducer, 0, p.cfg.Producers)
	for i := 0; i < p.cfg.Producers; i++ {
		c, err := td.NewTxnProducer(p.cfg, p.env.Bootstrap, i)
		if err != nil {
			reg.closeAll()
			return nil, err
		}
		reg.add(c)
		out = append(out, c)
	}
	return out, nil
}

// Produce runs one transactional process per producer until stop ends
// and each one's last transaction completed, and returns the first
// error. ops bounds every request, as for sends.
func (p *producers) Produce(stop, ops context.Context) error {
	errs := make([]error, len(p.clients))
	var wg sync.WaitGroup
	for i, cl := range p.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.txnSlot(stop, ops, i, cl, p.reg)
		}()
	}
	wg.Wait()
	return firstOf(errs)
}

// txnSlot is producer i's process (and its successors): one transaction
// at a time, each a txn op. A process whose txn ended info retires, as for
// sends; so does a crashed one (its successor is a new process, with the
// same transactional id). A client that is fenced, or whose state after
// an error only a new InitProducerId cleans, is closed and re-created.
func (p *producers) txnSlot(stop, ops context.Context, i int, cl workloads.TxnProducer, reg *txnClients) error {
	td := p.env.Driver.(workloads.TxnDriver)
	pid := p.env.Recorder.NewProcess()
	seq := 0
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
	defer func() {
		if cl != nil {
			reg.close(cl)
		}
	}()
	for {
		if workloads.Ended(stop) || !p.env.TakeSend() {
			return nil
		}
		if cl == nil {
			c, err := td.NewTxnProducer(p.cfg, p.env.Bootstrap, i)
			if err != nil {
				p.env.Count.Error(workloads.ErrorName(err))
				_ = ctxsleep.Sleep(stop, workloads.FailureBackoff)
				continue
			}
			reg.add(c)
			cl = c
		}
		plan := p.planTxn(rng, i, pid, &seq)
		for range plan.msgs {
			if err := p.env.Turn(stop); err != nil {
				return nil
			}
		}
		if _, err := p.env.Recorder.Invoke(pid, histories.FTxn, plan.value); err != nil {
			p.env.Count.RecordError()
			return err
		}
		p.env.Count.TxnInvoked()
		r := p.runTxn(ops, i, cl, plan, reg)
		typ, name, recreate := workloads.TxnOutcome(r.end)
		if _, err := p.env.Recorder.Complete(pid, typ, histories.FTxn, txnDone{TxnValue: r.value, Crashed: r.crashed}, name); err != nil {
			p.env.Count.RecordError()
			return err
		}
		p.countTxn(typ, name, r)
		if recreate || r.crashed {
			reg.close(cl)
			cl = r.successor // nil unless a successor fenced the zombie
		}
		if typ == histories.Info || r.crashed {
			pid, seq = p.env.Recorder.NewProcess(), 0
		}
		if typ != histories.OK && name != workloads.CauseAborted {
			// As after a failed send: no hot loop of failing transactions
			// while the cluster cannot take them.
			_ = ctxsleep.Sleep(stop, workloads.FailureBackoff)
		}
	}
}

func (p *producers) countTxn(typ histories.Type, name string, r txnRun) {
	p.env.Count.TxnEnded(typ, workloads.IsFenced(r.end.StepErr) || workloads.IsFenced(r.end.CommitErr) || workloads.IsFenced(r.end.AbortErr))
	if name != "" && name != workloads.CauseAborted {
		p.env.Count.Error(name)
	}
}

// planTxn draws one transaction: its sends (random partitions, unique
// values), its poll of those partitions, and how it ends. The abort and
// crash fractions are disjoint bands of one draw, so each is exactly its
// rate of the transactions; a crash only befalls one meant to commit.
func (p *producers) planTxn(rng *rand.Rand, i, pid int, seq *int) txnPlan {
	t := p.cfg.Transactions
	n := t.MinSends + rng.IntN(t.MaxSends-t.MinSends+1)
	plan := txnPlan{crashAt: -1}
	v := histories.TxnValue{TransactionalID: workloads.TransactionalID(p.cfg.Topic, i), Intent: histories.TxnCommit}
	switch r := rng.Float64(); {
	case r < t.Aborts():
		v.Intent = histories.TxnAbort
	case r < t.Aborts()+t.CrashRate:
		plan.crashAt = 1 + rng.IntN(n)
	}
	for range n {
		m := workloads.Message{Partition: int32(rng.IntN(p.cfg.Partitions)), Value: workloads.SendValueName(pid, *seq)}
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
		v.Ops = append(v.Ops, histories.TxnOp{F: histories.TxnPoll, Topic: p.cfg.Topic, Partitions: plan.polls})
	}
	for _, m := range plan.msgs {
		v.Ops = append(v.Ops, sendOp(p.cfg.Topic, m))
	}
	plan.value = v
	return plan
}

func sendOp(topic string, m workloads.Message) histories.TxnOp {
	p := m.Partition
	return histories.TxnOp{F: histories.TxnSend, Topic: topic, Partition: &p, Value: m.Value}
}

// runTxn runs one transaction on cl and says what happened. The
// completion lists what was learned: polls that returned (with their
// records; a poll that failed is left out, since it read nothing it could
// claim, and it ends the transaction) and every send attempted, with its
// offset once acked. Sends after the first error are never attempted.
func (p *producers) runTxn(ops context.Context, i int, cl workloads.TxnProducer, plan txnPlan, reg *txnClients) txnRun {
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
		ctx, cancel := context.WithTimeout(ops, p.cfg.OpTimeout())
		id, epoch, err := cl.ProducerID(ctx)
		cancel()
		if step(err) {
			r.value.ProducerID, r.value.ProducerEpoch = &id, &epoch
		}
	}
	if r.end.StepErr == nil && plan.polls != nil {
		ctx, cancel := context.WithTimeout(ops, workloads.TxnPollWait)
		recs, err := cl.Poll(ctx, plan.polls)
		cancel()
		if step(err) {
			r.value.Ops = append(r.value.Ops, histories.TxnOp{F: histories.TxnPoll, Topic: p.cfg.Topic,
				Partitions: plan.polls, Records: recs})
		}
	}
	for k := 0; r.end.StepErr == nil && k < len(plan.msgs); k++ {
		m := plan.msgs[k]
		ctx, cancel := context.WithTimeout(ops, p.cfg.OpTimeout())
		off, err := cl.Send(ctx, m)
		cancel()
		op := sendOp(p.cfg.Topic, m)
		if err == nil {
			op.Offset = &off
		}
		r.value.Ops = append(r.value.Ops, op)
		if step(err) && k+1 == plan.crashAt {
			r.crashed = true
			r.successor, r.end.Superseded = p.crash(ops, i, reg)
		}
	}
	if h := p.cfg.Transactions.Hold.Std(); h > 0 && r.end.StepErr == nil && plan.value.Intent != histories.TxnAbort {
		select { // the work between the writes and the commit
		case <-time.After(h):
		case <-ops.Done():
		}
	}
	ctx, cancel := context.WithTimeout(ops, p.cfg.OpTimeout())
	defer cancel()
	switch {
	case r.end.StepErr != nil:
		// Not begun: nothing to end. Fenced: the coordinator refuses the
		// abort too, and has aborted (or will abort) the transaction.
		if began && !workloads.IsFenced(r.end.StepErr) {
			r.value.EndInvoked = p.runClock()
			r.end.AbortAsked = true
			r.end.AbortErr = cl.End(ctx, false)
		}
	case plan.value.Intent == histories.TxnAbort:
		r.value.EndInvoked = p.runClock()
		r.end.AbortAsked = true
		r.end.AbortErr = cl.End(ctx, false)
	default:
		// A zombie gets here when its remaining sends were not refused
		// (none were left, or kgo sent none): its commit is refused if the
		// successor's InitProducerId, complete by now, fenced it.
		r.value.EndInvoked = p.runClock()
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
func (p *producers) crash(ops context.Context, i int, reg *txnClients) (succ workloads.TxnProducer, superseded bool) {
	p.env.Count.TxnCrashed()
	succ, err := p.env.Driver.(workloads.TxnDriver).NewTxnProducer(p.cfg, p.env.Bootstrap, i)
	if err != nil {
		p.env.Count.Error(workloads.ErrorName(err))
		return nil, false
	}
	reg.add(succ)
	ctx, cancel := context.WithTimeout(ops, p.cfg.Transactions.Timeout.Std()+p.cfg.OpTimeout())
	defer cancel()
	if _, _, err := succ.ProducerID(ctx); err != nil {
		p.env.Count.Error(workloads.ErrorName(err))
		reg.close(succ)
		return nil, false
	}
	return succ, true
}

// runClock is the recorder's run clock now (ns since the run started, the
// clock of event times), or nil when the recorder keeps none.
func (p *producers) runClock() *int64 {
	c, ok := p.env.Recorder.(interface{ Elapsed() time.Duration })
	if !ok {
		return nil
	}
	t := int64(c.Elapsed())
	return &t
}

// DrainBound bounds the wait for the last transactions at the end of a
// run: a whole transaction's requests (begin, sends, end) and a crash's
// successor initialisation, not one send's.
func (p *producers) DrainBound() time.Duration {
	t := p.cfg.Transactions
	return time.Duration(t.MaxSends+3)*p.cfg.OpTimeout() + workloads.TxnPollWait + t.Timeout.Std()
}
