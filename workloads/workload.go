package workloads

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Workload is one configured run of producers and consumers. Make one with
// New, read progress with Stats or Progress while Run runs, then call
// FinalRead once the faults are healed.
type Workload struct {
	cfg       Config
	drv       Driver
	bootstrap []string
	// evidence is how the final read and the kinds' drain reach the
	// brokers: the cluster's own addresses, also when the clients go
	// through the request-fault proxy, so that evidence is never faulted
	// (ReadEvidenceFrom; nil: bootstrap).
	evidence []string
	rec      Recorder
	c        *counters
	parts    *partitioner
	limiter  *rate.Limiter
	budget   *atomic.Int64 // benchmarks: stop after this many sends
	ran      atomic.Bool
	stopOnce sync.Once
	stopCh   chan struct{} // closed by Stop
	// prodStopCh is closed by StopProducers: the producers send no more,
	// the consumers and group members go on until the run ends.
	prodStopOnce sync.Once
	prodStopCh   chan struct{}
	prodDone     chan struct{} // closed when Run's producers have returned
	openedOnce   sync.Once
	opened       chan struct{} // closed when Run has opened its clients, or failed to
	// kinds are the workload kinds of their own packages that cfg asks
	// for (kind.go), made by New; drained: their drain ran
	// (once, before the first final read).
	kinds   []Kind
	drained atomic.Bool
	// pcs are the plain producer clients while Run produces, for
	// CrashProducer (nil before and after).
	pcMu sync.Mutex
	pcs  []*producerClient
}

// New validates cfg (after Defaults) and prepares a workload that writes
// to rec. It connects to nothing yet.
func New(cfg Config, bootstrap []string, rec Recorder) (*Workload, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(bootstrap) == 0 {
		return nil, errors.New("workload: no bootstrap brokers")
	}
	if rec == nil {
		return nil, errors.New("workload: no recorder")
	}
	drv, _ := DriverFor(cfg.Driver)
	return newPrepared(cfg, drv, bootstrap, rec)
}

// NewWithDriver is New for a driver package's own tests (workloads/java's,
// over a fake JVM): a workload of cfg over drv, registered or not, with
// cfg taken as checked (the caller has called Defaults; Validate is not
// asked, since the driver's Refuse may want tools such a test does
// without), that stops its producers after sends sends (0: no limit), as
// the benchmarks do. It is how a driver runs the seam's loops over its
// own client.
func NewWithDriver(cfg Config, drv Driver, bootstrap []string, rec Recorder, sends int64) (*Workload, error) {
	w, err := newPrepared(cfg, drv, bootstrap, rec)
	if err != nil {
		return nil, err
	}
	if sends > 0 {
		w.budget = new(atomic.Int64)
		w.budget.Store(sends)
	}
	return w, nil
}

// newPrepared is a Workload of a checked cfg over drv with the kinds of
// their own packages cfg asks for (RegisterKind).
func newPrepared(cfg Config, drv Driver, bootstrap []string, rec Recorder) (*Workload, error) {
	w := newWorkload(cfg, drv, bootstrap, rec)
	ks, err := makeKinds(cfg, drv, registeredKind)
	if err != nil {
		return nil, err
	}
	w.kinds = ks
	return w, nil
}

// Stop ends the run gracefully, as the end of cfg.Duration does: no new
// ops, and sends in flight get their own timeout to complete, so that
// their outcome is known. Canceling Run's context instead aborts: sends in
// flight are canceled and complete as info. Stop may be called at any
// time, more than once, before or during Run.
func (w *Workload) Stop() { w.stopOnce.Do(func() { close(w.stopCh) }) }

// ReadEvidenceFrom makes the final read and the kinds' drain reach the
// brokers at bootstrap, not through the clients' path: the harness calls
// it when the clients' bootstrap is the request-fault proxy's. Call it
// before Run.
func (w *Workload) ReadEvidenceFrom(bootstrap []string) { w.evidence = bootstrap }

// evidenceBootstrap is where the final read and the kinds' drain connect.
func (w *Workload) evidenceBootstrap() []string {
	if len(w.evidence) > 0 {
		return w.evidence
	}
	return w.bootstrap
}

// newWorkload makes a Workload of a checked cfg (New; tests with fake
// drivers).
func newWorkload(cfg Config, drv Driver, bootstrap []string, rec Recorder) *Workload {
	return &Workload{cfg: cfg, drv: drv, bootstrap: bootstrap, rec: rec,
		c: newCounters(), parts: newPartitioner(cfg), limiter: newLimiter(cfg.Rate),
		stopCh: make(chan struct{}), prodStopCh: make(chan struct{}), prodDone: make(chan struct{}),
		opened: make(chan struct{}),
	}
}

// Opened is closed once Run has opened its producers and consumers and
// starts sending, or has failed to open them (Run then returns the
// error). The harness starts the nemesis's schedule then, not at Run's
// call: the java driver's clients open in a JVM that takes from half a
// second (an idle machine) to seven (a loaded one) to start and load the
// client, and a schedule started at the call would spend that much of its
// first wait (s1: 5 s of traffic before the fault) without any sends.
func (w *Workload) Opened() <-chan struct{} { return w.opened }

func (w *Workload) markOpened() { w.openedOnce.Do(func() { close(w.opened) }) }

// StopProducers ends the producing half of the run, as the end of
// cfg.Duration does for it (no new sends or transactions; a transaction
// under way ends as it would at the end of the run), while consumers and
// group members go on reading until the run ends. It returns once the
// producers have returned, or ctx ends, with what it did for the op's
// details. It is the stop-producers step's half: a story that needs a
// producer to go silent (a transaction left open on a partition that no
// later marker of the same producer may close, KAFKA-20716).
func (w *Workload) StopProducers(ctx context.Context) (map[string]any, error) {
	began := time.Now()
	w.prodStopOnce.Do(func() { close(w.prodStopCh) })
	select {
	case <-w.prodDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	st := w.Stats()
	d := map[string]any{"producers": w.cfg.Producers, "transactional": w.cfg.Transactions.Enabled,
		"acked": st.Acked, "stopped_ms": time.Since(began).Milliseconds()}
	if w.cfg.Transactions.Enabled {
		d["committed"] = st.TxnCommitted
	}
	return d, nil
}

// Config is the workload's configuration with defaults filled.
func (w *Workload) Config() Config { return w.cfg }

// Stats is a snapshot of the counters, safe to call at any time.
func (w *Workload) Stats() Stats { return w.c.snapshot() }

// Progress delivers a Stats snapshot every interval (with the recent
// ops/s) until ctx ends. Printing is the caller's job.
func (w *Workload) Progress(ctx context.Context, every time.Duration) <-chan Stats {
	return w.c.progress(ctx, every)
}

// Run produces and consumes for cfg.Duration, or until Stop, then lets
// in-flight sends finish (each is bounded by its own timeout) and closes
// the clients; if ctx ends first, it cancels the sends in flight instead. Every op it started is completed in the history.
// It returns the final stats, and an error if a client could not be
// created or the recorder refused an event (the history is then broken).
// A workload runs once.
func (w *Workload) Run(ctx context.Context) (Stats, error) {
	if !w.ran.CompareAndSwap(false, true) {
		return w.Stats(), errors.New("workload: Run called twice")
	}
	defer w.markOpened() // also when opening failed: nobody waits forever
	// The producers are the plain ones or a ProducerKind's (the
	// transactional producers), opened first, as the plain ones are.
	var (
		producers []*producerClient
		pk        = w.producerKind()
		err       error
	)
	if pk != nil {
		err = pk.Open(ctx, w.kindEnv())
	} else {
		var ps []Producer
		ps, err = w.openProducers()
		producers = w.newProducerClients(ps)
	}
	if err != nil {
		return w.Stats(), err
	}
	closeProducers := func() {
		closeProducerClients(producers)
		if pk != nil {
			pk.Close()
		}
	}
	members := kindsOf[MemberKind](w)
	for _, k := range members {
		if err := k.Open(ctx, w.kindEnv()); err != nil {
			closeProducers()
			return w.Stats(), err
		}
	}
	consumers, err := w.openConsumers()
	if err != nil {
		closeProducers()
		return w.Stats(), err
	}
	w.c.restart()
	w.pcMu.Lock()
	w.pcs = producers
	w.pcMu.Unlock()
	w.markOpened()
	defer func() {
		w.pcMu.Lock()
		w.pcs = nil
		w.pcMu.Unlock()
	}()

	stop, stopNow := context.WithTimeout(ctx, w.cfg.Duration.Std())
	defer stopNow()
	go cancelOn(stop, w.stopCh, stopNow)
	// ops outlives stop: sends in flight when the run ends get up to their
	// own timeout to complete; then ops is canceled and the clients closed.
	ops, cancelOps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelOps()

	var wg sync.WaitGroup
	errs := make(chan error, 1+len(members)+len(consumers))
	wg.Add(1)
	prodDone := w.prodDone
	// The producers stop at the end of the run, or earlier at StopProducers.
	prodStop, stopProd := context.WithCancel(stop)
	defer stopProd()
	go cancelOn(prodStop, w.prodStopCh, stopProd)
	go func() {
		defer wg.Done()
		defer close(prodDone)
		run := func() error { return w.runProducers(prodStop, ops, producers) }
		if pk != nil {
			run = func() error { return pk.Produce(prodStop, ops) }
		}
		if err := run(); err != nil {
			errs <- err
			stopNow() // the history is broken: end the run
		}
	}()
	for _, k := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := k.Run(stop); err != nil {
				errs <- err
				stopNow()
			}
		}()
	}
	for i, c := range consumers {
		wg.Add(1)
		go func(c Consumer, parts []int32) {
			defer wg.Done()
			if err := w.consume(stop, c, parts); err != nil {
				errs <- err
				stopNow()
			}
		}(c, consumerPartitions(i, len(consumers), w.cfg.Partitions))
	}

	var budgetDone <-chan struct{} // nil: never ready
	if w.budget != nil {
		budgetDone = prodDone
	}
	select {
	case <-stop.Done():
	case <-budgetDone:
		// Only a send budget (benchmarks, tests) ends the producers before
		// stop; the run is then over for the consumers too.
		stopNow()
	}
	if ctx.Err() != nil {
		// Interrupted rather than finished: end sends in flight now; they
		// complete as info (canceled).
		cancelOps()
	}
	w.drain(prodDone, cancelOps, closeProducers)
	wg.Wait()
	closeAll(consumers)
	close(errs)
	return w.Stats(), <-errs
}

// drain waits for the producers' last sends: first up to one op timeout,
// then it cancels their contexts, then closes the clients, which fails
// whatever is still buffered (franz-go's idempotent producer ignores
// cancellation of a record already sent, to keep its sequence numbers).
func (w *Workload) drain(done <-chan struct{}, cancelOps context.CancelFunc, closeProducers func()) {
	wait := func(d time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(d):
			return false
		}
	}
	bound := w.cfg.OpTimeout()
	if pk := w.producerKind(); pk != nil {
		bound = pk.DrainBound()
	}
	if !wait(bound) {
		cancelOps()
		if !wait(2 * time.Second) {
			closeProducers()
			<-done
			return
		}
	}
	closeProducers()
}

func (w *Workload) openConsumers() ([]Consumer, error) {
	out := make([]Consumer, 0, w.cfg.Consumers)
	for i := 0; i < w.cfg.Consumers; i++ {
		c, err := w.drv.NewConsumer(w.cfg, w.bootstrap, i)
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("open consumer %d: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// closeAll closes producers or consumers, at most once each.
func closeAll[T interface{ Close() }](cs []T) {
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func(c T) {
			defer wg.Done()
			c.Close()
		}(c)
	}
	wg.Wait()
}

// run is New followed by Workload.Run: produce and consume for
// cfg.Duration, recording into rec.
func run(ctx context.Context, cfg Config, bootstrap []string, rec Recorder) (Stats, error) {
	w, err := New(cfg, bootstrap, rec)
	if err != nil {
		return Stats{}, err
	}
	return w.Run(ctx)
}

// cancelOn calls cancel when ch is closed (Stop, StopProducers), unless
// ctx ends first; run it in its own goroutine.
func cancelOn(ctx context.Context, ch <-chan struct{}, cancel func()) {
	select {
	case <-ch:
		cancel()
	case <-ctx.Done():
	}
}

// runAll runs run(0), ..., run(n-1) at once, waits for all of them and
// returns their errors in the order they came.
func runAll(n int, run func(i int) error) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run(i); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}

// firstErr is the first of errs, or nil.
func firstErr(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}
