package workloads

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
)

// sendDone is a send's completion value. Detail carries the client's error
// text when the table names only a generic cause ("unknown"): an extension
// of the v1 send value, ignored by readers that do not know it.
type sendDone struct {
	histories.SendValue
	Detail string `json:"detail,omitempty"`
}

// runProducers runs cfg.Producers clients with cfg.MaxInFlight slots each
// until stop ends (no new invokes) and every slot's last send completed.
// Each slot is a Jepsen process: it invokes, sends, completes, and only
// then invokes again, so the history never has two open ops on one
// process. Pipelining comes from many slots sharing one client, which
// batches their concurrent records into the same produce requests.
//
// ops bounds every send's context: canceling it ends sends still in
// flight (as info) when draining takes too long.
func (w *Workload) runProducers(stop, ops context.Context, clients []*producerClient) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(clients)*w.cfg.MaxInFlight)
	for _, pc := range clients {
		for s := 0; s < w.cfg.MaxInFlight; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := w.slot(stop, ops, pc, s); err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	return <-errs // the first recorder error, or nil
}

// FailureBackoff is how long a producer process waits after a send that
// did not succeed.
const FailureBackoff = 50 * time.Millisecond

// slot is one producer process (and its successors after an info or a
// crash of its client: producer_crash.go).
func (w *Workload) slot(stop, ops context.Context, pc *producerClient, s int) error {
	seq, last := 0, -1
	for {
		if Ended(stop) || !w.takeSend() {
			return nil
		}
		if err := w.limiter.Wait(stop); err != nil {
			return nil
		}
		p, gen, pid, ok := pc.acquire(stop, s)
		if !ok {
			return nil
		}
		if pid != last {
			seq, last = 0, pid
		}
		part, key := w.parts.pick()
		v := histories.SendValue{Topic: w.cfg.Topic, Partition: part, Key: key,
			Value: SendValueName(pid, seq)}
		seq++
		invoked, err := pc.invoke(gen, func() error {
			_, err := w.rec.Invoke(pid, histories.FSend, v)
			return err
		})
		if err != nil {
			w.c.recordErrors.Add(1)
			return err
		}
		if !invoked {
			continue // crashed since acquire: the slot's process is gone
		}
		w.c.sends.Add(1)
		sctx, cancel := context.WithTimeout(ops, w.cfg.OpTimeout())
		pc.inFlight.Add(1)
		off, err := p.Send(sctx, Message{Partition: part, Key: key, Value: v.Value})
		pc.inFlight.Add(-1)
		cancel()
		retire, crashed, rerr := w.completeOn(pc, gen, pid, v, off, err)
		if rerr != nil {
			w.c.recordErrors.Add(1)
			return rerr
		}
		if err != nil && !crashed {
			// A client that just failed waits a little before the next send,
			// as Jepsen's clients do: while a partition has no leader, sends
			// fail in microseconds, and without a pause a run would record
			// tens of thousands of identical failures (and retire as many
			// processes) without learning anything more.
			_ = ctxsleep.Sleep(stop, FailureBackoff)
		}
		if retire {
			// Jepsen's model: a process whose op ended info never invokes
			// again; the slot carries on as a fresh process.
			pc.retire(s, gen, pid, w.rec.NewProcess)
		}
	}
}

// completeOn records a send's completion unless the client it went
// through crashed meanwhile (gen is no longer current): then the process
// that sent it is dead and learns nothing, so the send is info `crashed`
// whatever the client said, never ok. The read lock keeps a crash from
// slipping between that check and the record.
func (w *Workload) completeOn(pc *producerClient, gen, pid int, v histories.SendValue, off int64, err error) (retire, crashed bool, rerr error) {
	pc.mu.RLock()
	defer pc.mu.RUnlock()
	if pc.gen == gen {
		retire, rerr = w.completeSend(pid, v, off, err)
		return retire, false, rerr
	}
	w.c.countError(CauseCrashed)
	w.c.indeterminate.Add(1)
	done := sendDone{SendValue: v, Detail: "the client said: ok"}
	if err != nil {
		done.Detail = "the client said: " + err.Error()
	}
	_, rerr = w.rec.Complete(pid, histories.Info, histories.FSend, done, CauseCrashed)
	return true, true, rerr
}

// completeSend records a send's completion and counts it. It reports
// whether the op ended info (so the process must retire).
func (w *Workload) completeSend(pid int, v histories.SendValue, off int64, err error) (bool, error) {
	if err == nil {
		if w.cfg.Acks.Normalize() == AcksNone {
			// acks=0: the broker never answers, so there is no offset and
			// the outcome is unknown (HISTORY.md: like info, but ok).
			w.c.ackedNoOffset.Add(1)
		} else {
			v.Offset = &off
			w.c.acked.Add(1)
		}
		_, rerr := w.rec.Complete(pid, histories.OK, histories.FSend, v, "")
		return false, rerr
	}
	cl := ClassifySend(err, w.cfg.Acks, w.cfg.RetriesEnabled())
	w.c.countError(cl.Name)
	done := sendDone{SendValue: v}
	if cl.Rule.Code == 0 && cl.Name == CauseUnknown {
		done.Detail = err.Error()
	}
	if cl.Type == histories.Fail {
		w.c.failed.Add(1)
	} else {
		w.c.indeterminate.Add(1)
	}
	_, rerr := w.rec.Complete(pid, cl.Type, histories.FSend, done, cl.Name)
	return cl.Type == histories.Info, rerr
}

// takeSend consumes one send from the optional budget (benchmarks run a
// fixed number of sends); without a budget it always succeeds.
func (w *Workload) takeSend() bool {
	if w.budget == nil {
		return true
	}
	return w.budget.Add(-1) >= 0
}

// SendValueName is "p<process>-<seq>", zero-padded to six digits: unique in
// the run because process ids are. Exported for the transactional
// producers (workloads/txn), whose sends' values are named alike.
func SendValueName(pid, seq int) string {
	s := strconv.Itoa(seq)
	if len(s) < 6 {
		s = "000000"[len(s):] + s
	}
	return "p" + strconv.Itoa(pid) + "-" + s
}

// openProducers creates cfg.Producers clients; on error it closes those it
// opened.
func (w *Workload) openProducers() ([]Producer, error) {
	out := make([]Producer, 0, w.cfg.Producers)
	for i := 0; i < w.cfg.Producers; i++ {
		p, err := w.drv.NewProducer(w.cfg, w.bootstrap, i)
		if err != nil {
			for _, q := range out {
				q.Close()
			}
			return nil, errors.Join(errors.New("open producer "+strconv.Itoa(i)), err)
		}
		out = append(out, p)
	}
	return out, nil
}
