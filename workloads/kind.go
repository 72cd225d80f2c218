package workloads

import (
	"context"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// Kind is a workload kind of a package of its own (workloads/groups: the
// consumer group; workloads/shares: the share group; workloads/txn: the
// transactional producers) that runs
// inside Workload.Run: opened once the run starts, then, by the optional
// interface it implements, run beside the producers and consumers with
// members the member faults reach (MemberKind), or in the plain
// producers' place (ProducerKind).
//
// It is an interface because the kind's package imports the seam (its
// settings, its driver's clients, the recorder) and the seam must still
// run it in its own phases, as a driver is reached through Driver and
// its optional interfaces. A kind the harness runs beside the workload on
// clients of its own (the metadata workload, workloads/metadata) needs
// none of this and is no Kind.
type Kind interface {
	// Open readies the kind with what the Workload lends it: a
	// ProducerKind opens its producers' clients (in the plain producers'
	// place), a MemberKind what its members need before they start (the
	// share group: the brokers' limits, the group set to start at
	// earliest). An error ends Run before any op.
	Open(ctx context.Context, env KindEnv) error
}

// MemberKind is a Kind whose members run beside the producers and
// consumers until the run's stop (the consumer group, the share group).
type MemberKind interface {
	Kind
	// Run runs the members until stop ends, then ends them; an error (a
	// recorder's: the history is broken) ends the run.
	Run(stop context.Context) error
	// Drain runs once, after the final heal, at the first FinalRead,
	// before the log is read: the members' last acks and the kind's own
	// read-back. It returns a recorder error only.
	Drain(ctx context.Context, env KindEnv) error
	// Members is the handle on the kind's members for the member faults
	// (MemberControl), nil if it has none.
	Members() GroupControl
}

// ProducerKind is a Kind that replaces the plain producers (the
// transactional producers): its clients open in Open, it produces in
// Produce, and StopProducers, the send budget and the rate limit act on
// it as on the plain producers (KindEnv.Turn, TakeSend).
type ProducerKind interface {
	Kind
	// Produce runs the producers until stop ends and each one's last op
	// completed; ops bounds every request and outlives stop, as for
	// sends (canceled once DrainBound passed). An error (a recorder's)
	// ends the run.
	Produce(stop, ops context.Context) error
	// DrainBound is how long the run's end waits for Produce to return
	// before it cancels ops (a transaction's requests, not one send's).
	DrainBound() time.Duration
	// Close closes every producer client still open: after Open when
	// the run fails to start, or when the drain gave up.
	Close()
}

// KindFor makes a kind for a configuration that asks for it (Defaults
// applied) over the workload's driver: a MemberKind or a ProducerKind. An
// error (a driver without the clients the kind needs) refuses the
// workload at New.
type KindFor func(cfg Config, drv Driver) (Kind, error)

// The workload sections a kind of its own runs: the name a kind package
// registers its KindFor under.
const (
	KindGroup        = "group"        // workload.group: workloads/groups
	KindShares       = "shares"       // workload.shares: workloads/shares
	KindTransactions = "transactions" // workload.transactions: workloads/txn
)

// kinds are the registered kinds' makers by name (RegisterKind), as
// drivers are the registered drivers.
var kinds = map[string]KindFor{}

// RegisterKind makes f the maker of the kind that runs workload section
// name (KindGroup, KindShares, KindTransactions). A kind package calls
// it at init,
// as a driver package registers its driver, so that the seam names no
// kind's package: a program that runs workloads links them all through
// workloads/kinds. A second maker of the same name, or an unknown name,
// panics: that is a program's mistake, not a scenario's.
func RegisterKind(name string, f KindFor) {
	if name != KindGroup && name != KindShares && name != KindTransactions {
		panic(fmt.Sprintf("workloads: RegisterKind: no workload section %q", name))
	}
	if _, dup := kinds[name]; dup {
		panic(fmt.Sprintf("workloads: RegisterKind: kind %q registered twice", name))
	}
	kinds[name] = f
}

// kindsAsked are the sections of c that a kind of its own runs, in the
// order the Workload opens them.
func (c *Config) kindsAsked() []string {
	var out []string
	if c.Transactions.Enabled {
		out = append(out, KindTransactions)
	}
	if c.Group.Enabled() {
		out = append(out, KindGroup)
	}
	if c.Shares.Enabled() {
		out = append(out, KindShares)
	}
	return out
}

// makeKinds makes the kinds cfg asks for over drv with the makers lookup
// finds (the registry's, in New), or says which one is not linked or
// refused.
func makeKinds(cfg Config, drv Driver, lookup func(string) (KindFor, bool)) ([]Kind, error) {
	var out []Kind
	for _, name := range cfg.kindsAsked() {
		f, ok := lookup(name)
		if !ok {
			return nil, fmt.Errorf("workload.%s: run by a kind of its own that this program does not link (workloads/kinds)", name)
		}
		k, err := f(cfg, drv)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// registeredKind is the registry's maker of kind name.
func registeredKind(name string) (KindFor, bool) {
	f, ok := kinds[name]
	return f, ok
}

// KindEnv is what the Workload lends its kinds.
type KindEnv struct {
	Config Config
	Driver Driver
	// Bootstrap is the clients' (through the request-fault proxy when
	// the harness routes them); Evidence is the brokers' own, for what a
	// kind reads back as evidence (ReadEvidenceFrom).
	Bootstrap, Evidence []string
	Recorder            Recorder
	// Count adds to the workload's Stats.
	Count Counts
	// RecordPoll completes a poll op the kind invoked (ok with what it
	// returned, or fail), counted in Stats, as the consumers' are;
	// RecordAssign writes an assign op (the client's own repositioning).
	RecordPoll   func(pid int, req histories.ReadRequest, f Fetch, perr error) error
	RecordAssign func(pid int, parts []int32, pos map[int32]int64) error
	// Turn waits for the next send's turn under workload.rate (a
	// ProducerKind waits once per send); an error: stop ended first.
	Turn func(stop context.Context) error
	// TakeSend takes one op from the send budget of a benchmark or test
	// (NewWithDriver's sends): false once it is spent.
	TakeSend func() bool
}

// kindEnv is the KindEnv of w.
func (w *Workload) kindEnv() KindEnv {
	return KindEnv{Config: w.cfg, Driver: w.drv, Bootstrap: w.bootstrap, Evidence: w.evidenceBootstrap(),
		Recorder: w.rec, Count: Counts{w.c}, Turn: w.limiter.Wait, TakeSend: w.takeSend,
		RecordPoll: w.completePoll, RecordAssign: w.recordAssign}
}

// kindsOf are w's kinds of one optional interface.
func kindsOf[K Kind](w *Workload) []K {
	var out []K
	for _, k := range w.kinds {
		if x, ok := k.(K); ok {
			out = append(out, x)
		}
	}
	return out
}

// producerKind is w's ProducerKind, nil if its producers are the plain
// ones (a run has at most one: transactions).
func (w *Workload) producerKind() ProducerKind {
	if pks := kindsOf[ProducerKind](w); len(pks) > 0 {
		return pks[0]
	}
	return nil
}

// Counts is how a kind adds to the workload's Stats. The zero Counts
// counts nothing (a kind's own tests of a member alone).
type Counts struct{ c *counters }

// Polled counts a poll that delivered n records (Polls, PolledRecords).
func (c Counts) Polled(n int) {
	if c.c == nil {
		return
	}
	c.c.polls.Add(1)
	c.c.polledRecords.Add(int64(n))
}

// Error counts an error by name (Errors).
func (c Counts) Error(name string) {
	if c.c != nil {
		c.c.countError(name)
	}
}

// RecordError counts an event the recorder refused (RecordErrors).
func (c Counts) RecordError() {
	if c.c != nil {
		c.c.recordErrors.Add(1)
	}
}

// TxnInvoked counts a transaction begun (Txns), TxnCrashed a producer
// crashed on purpose (TxnCrashes).
func (c Counts) TxnInvoked() {
	if c.c != nil {
		c.c.txns.Add(1)
	}
}
func (c Counts) TxnCrashed() {
	if c.c != nil {
		c.c.txnCrashes.Add(1)
	}
}

// TxnEnded counts a transaction's completion by its type (TxnCommitted,
// TxnAborted, TxnUnknown) and whether its client was fenced (TxnFenced).
func (c Counts) TxnEnded(typ histories.Type, fenced bool) {
	if c.c == nil {
		return
	}
	switch typ {
	case histories.OK:
		c.c.txnCommitted.Add(1)
	case histories.Fail:
		c.c.txnAborted.Add(1)
	default:
		c.c.txnUnknown.Add(1)
	}
	if fenced {
		c.c.txnFenced.Add(1)
	}
}
