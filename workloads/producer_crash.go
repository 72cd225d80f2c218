package workloads

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kchaos/kchaos/internal/ctxsleep"
)

// producerClient is one producer client's place in the workload: the
// client its slots send through, and the history processes of those
// slots. The nemesis's producer-crash replaces the client (CrashProducer):
// the old one is closed without a flush, as a process that dies, and a new
// one, with new processes (and, when idempotent, a new producer id), takes
// its place.
type producerClient struct {
	idx int
	mu  sync.RWMutex
	p   Producer // nil while crashed and not yet restarted
	// gen counts the crashes: a send begun under another gen than the
	// current one was in flight at a crash.
	gen int
	// up is closed while a client is up; a crash replaces it.
	up chan struct{}
	// pids are the slots' current history processes.
	pids     []int
	closed   bool // the workload closed its clients: no restart
	inFlight atomic.Int64
}

// newProducerClients wraps the opened clients, each slot with a process.
func (w *Workload) newProducerClients(ps []Producer) []*producerClient {
	out := make([]*producerClient, len(ps))
	for i, p := range ps {
		up := make(chan struct{})
		close(up)
		pc := &producerClient{idx: i, p: p, up: up}
		for range w.cfg.MaxInFlight {
			pc.pids = append(pc.pids, w.rec.NewProcess())
		}
		out[i] = pc
	}
	return out
}

// acquire waits until the client is up (or stop ends) and returns it, the
// gen it belongs to and slot s's process.
func (pc *producerClient) acquire(stop context.Context, s int) (Producer, int, int, bool) {
	for {
		pc.mu.RLock()
		p, gen, pid, up := pc.p, pc.gen, pc.pids[s], pc.up
		pc.mu.RUnlock()
		if p != nil {
			return p, gen, pid, true
		}
		select {
		case <-up:
		case <-stop.Done():
			return nil, 0, 0, false
		}
	}
}

// invoke records an invoke unless the client crashed since gen (then it
// reports false): under the read lock, so that no process of a crashed
// client invokes after the crash.
func (pc *producerClient) invoke(gen int, record func() error) (bool, error) {
	pc.mu.RLock()
	defer pc.mu.RUnlock()
	if pc.gen != gen {
		return false, nil
	}
	return true, record()
}

// retire gives slot s a new process (its op of gen ended info), unless a
// crash did or will (its restart gives every slot one).
func (pc *producerClient) retire(s, gen, pid int, next func() int) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.gen == gen && pc.pids[s] == pid {
		pc.pids[s] = next()
	}
}

// closeClient closes the current client for good (the end of the run).
func (pc *producerClient) closeClient() {
	pc.mu.Lock()
	p := pc.p
	pc.closed = true
	pc.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

func closeProducerClients(pcs []*producerClient) {
	var wg sync.WaitGroup
	for _, pc := range pcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pc.closeClient()
		}()
	}
	wg.Wait()
}

// ProducerIDer is implemented by drivers whose producer can say its
// producer id (franz-go: InitProducerID, loaded if need be).
type ProducerIDer interface {
	ProducerID(ctx context.Context) (id int64, epoch int16, err error)
}

// Producers is the number of producer clients the nemesis may crash.
func (w *Workload) Producers() int { return w.cfg.Producers }

// errNotProducing refuses a crash outside the produce phase.
var errNotProducing = errors.New("the workload's producers are not running")

// CrashProducer crashes plain producer client i, as a process that dies
// mid-run: its client is closed without a flush, so every send it had
// buffered or in flight completes info (`crashed`), never ok, whatever
// the broker did with it (the record may or may not be in the log: the
// checker counts no info send as lost); its slots' processes retire. After
// down, a new client takes the place, every slot with a new history
// process and, for an idempotent producer, a new producer id (a new
// InitProducerID, as a restarted process gets). It returns what it did,
// for the nemesis op's details. Transactional producers are refused: they
// have their own crash (transactions.crash_rate), whose successor fences
// the zombie.
func (w *Workload) CrashProducer(ctx context.Context, i int, down time.Duration) (map[string]any, error) {
	if w.cfg.Transactions.Enabled {
		return nil, errors.New("the workload's producers are transactional: crash them with workload.transactions.crash_rate (a successor fences the zombie)")
	}
	w.pcMu.Lock()
	pcs := w.pcs
	w.pcMu.Unlock()
	if pcs == nil {
		return nil, errNotProducing
	}
	if i < 0 || i >= len(pcs) {
		return nil, fmt.Errorf("producer %d: the workload has producers 0..%d", i, len(pcs)-1)
	}
	pc := pcs[i]
	d := map[string]any{"producer": i, "client_id": ProducerClientID(i), "idempotent": w.cfg.Idempotent}
	pc.mu.Lock()
	old := pc.p
	if old == nil || pc.closed {
		pc.mu.Unlock()
		return d, fmt.Errorf("producer %d is down already or closed", i)
	}
	if w.cfg.Idempotent {
		pc.mu.Unlock()
		if id, ep, err := producerID(ctx, old); err == nil {
			d["producer_id_before"], d["producer_epoch_before"] = id, ep
		}
		pc.mu.Lock()
		if pc.p != old {
			pc.mu.Unlock()
			return d, fmt.Errorf("producer %d changed under the crash", i)
		}
	}
	d["processes_before"] = append([]int(nil), pc.pids...)
	d["in_flight"] = pc.inFlight.Load()
	pc.gen++
	pc.p = nil
	pc.up = make(chan struct{})
	up := pc.up
	pc.mu.Unlock()
	// Close without Flush: franz-go fails what it buffered or sent with
	// ErrClientClosed; every completion of the old gen is recorded
	// `crashed` (completeOn).
	old.Close()
	d["down_ms"] = down.Milliseconds()
	if err := ctxsleep.Sleep(ctx, down); err != nil {
		// Interrupted: restart at once rather than leave the slot dead.
		d["interrupted"] = true
	}
	np, err := w.drv.NewProducer(w.cfg, w.bootstrap, i)
	if err != nil {
		return d, fmt.Errorf("producer %d: restart: %w", i, err)
	}
	if w.cfg.Idempotent {
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*w.cfg.OpTimeout())
		id, ep, err := producerID(ictx, np)
		cancel()
		if err != nil {
			d["producer_id_error"] = err.Error()
		} else {
			d["producer_id_after"], d["producer_epoch_after"] = id, ep
		}
	}
	pc.mu.Lock()
	if pc.closed {
		pc.mu.Unlock()
		np.Close()
		return d, fmt.Errorf("producer %d: the workload ended while it was down", i)
	}
	for s := range pc.pids {
		pc.pids[s] = w.rec.NewProcess()
	}
	d["processes_after"] = append([]int(nil), pc.pids...)
	pc.p = np
	close(up)
	pc.mu.Unlock()
	return d, nil
}

func producerID(ctx context.Context, p Producer) (int64, int16, error) {
	pi, ok := p.(ProducerIDer)
	if !ok {
		return 0, 0, errors.New("the driver cannot say its producer id")
	}
	return pi.ProducerID(ctx)
}
