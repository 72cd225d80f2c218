package workloads

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a workload's progress, for the CLI to print (the
// workload prints nothing itself).
type Stats struct {
	Elapsed time.Duration
	// Sends: invoked; Acked: ok with an offset; AckedNoOffset: ok without
	// one (acks=0, outcome unknown); Failed: fail; Indeterminate: info.
	Sends, Acked, AckedNoOffset, Failed, Indeterminate int64
	// InFlight sends and transactions: invoked, not yet completed.
	InFlight int64
	// Polls completed, records they returned, assigns recorded.
	Polls, PolledRecords, Assigns int64
	// Transactions (workload.transactions): Txns invoked; TxnCommitted ok;
	// TxnAborted fail (aborted on purpose or after an error, fenced, or
	// crashed: definitely not committed); TxnUnknown info. TxnCrashes
	// counts simulated producer crashes, TxnFenced transactions refused
	// with PRODUCER_FENCED or INVALID_PRODUCER_EPOCH.
	Txns, TxnCommitted, TxnAborted, TxnUnknown, TxnCrashes, TxnFenced int64
	// OpsPerSec is completed sends and transactions per second over the
	// whole run;
	// RecentOpsPerSec over the last Progress interval (0 from Stats).
	OpsPerSec, RecentOpsPerSec float64
	// AckedPerSec is acked sends per second over the whole run.
	AckedPerSec float64
	// Errors counts fail and info completions (sends and polls) by error
	// name: a Kafka error name or a client-side cause.
	Errors map[string]int64
	// RecordErrors counts events the recorder refused or failed to write.
	RecordErrors int64
}

// ErrorNames returns the error names by decreasing count.
func (s Stats) ErrorNames() []string {
	// Sorted by name first, so that the stable sort by count breaks ties
	// by name.
	out := slices.Sorted(maps.Keys(s.Errors))
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(s.Errors[b], s.Errors[a]) })
	return out
}

// completed is the number of completed ops: sends and transactions.
func (s Stats) completed() int64 {
	return s.Acked + s.AckedNoOffset + s.Failed + s.Indeterminate + s.TxnCommitted + s.TxnAborted + s.TxnUnknown
}

// counters is the live form of Stats, updated by many goroutines.
type counters struct {
	start                                              atomic.Int64 // unix nanos
	sends, acked, ackedNoOffset, failed, indeterminate atomic.Int64
	polls, polledRecords, assigns, recordErrors        atomic.Int64
	txns, txnCommitted, txnAborted, txnUnknown         atomic.Int64
	txnCrashes, txnFenced                              atomic.Int64
	mu                                                 sync.Mutex
	errors                                             map[string]int64
}

func newCounters() *counters {
	c := &counters{errors: map[string]int64{}}
	c.restart()
	return c
}

// restart makes now the time zero of rates (Run calls it once clients are up).
func (c *counters) restart() { c.start.Store(time.Now().UnixNano()) }

func (c *counters) countError(name string) {
	c.mu.Lock()
	c.errors[name]++
	c.mu.Unlock()
}

func (c *counters) snapshot() Stats {
	s := Stats{
		Elapsed: time.Since(time.Unix(0, c.start.Load())),
		Sends:   c.sends.Load(), Acked: c.acked.Load(), AckedNoOffset: c.ackedNoOffset.Load(),
		Failed: c.failed.Load(), Indeterminate: c.indeterminate.Load(),
		Polls: c.polls.Load(), PolledRecords: c.polledRecords.Load(), Assigns: c.assigns.Load(),
		RecordErrors: c.recordErrors.Load(),
		Txns:         c.txns.Load(), TxnCommitted: c.txnCommitted.Load(), TxnAborted: c.txnAborted.Load(),
		TxnUnknown: c.txnUnknown.Load(), TxnCrashes: c.txnCrashes.Load(), TxnFenced: c.txnFenced.Load(),
	}
	done := s.completed()
	s.InFlight = s.Sends + s.Txns - done
	if secs := s.Elapsed.Seconds(); secs > 0 {
		s.OpsPerSec = float64(done) / secs
		s.AckedPerSec = float64(s.Acked) / secs
	}
	c.mu.Lock()
	s.Errors = make(map[string]int64, len(c.errors))
	for k, v := range c.errors {
		s.Errors[k] = v
	}
	c.mu.Unlock()
	return s
}

// progress sends a snapshot every interval until ctx ends, then closes the
// channel. A slow reader misses snapshots rather than stalling anything.
func (c *counters) progress(ctx context.Context, every time.Duration) <-chan Stats {
	ch := make(chan Stats, 1)
	go func() {
		defer close(ch)
		t := time.NewTicker(every)
		defer t.Stop()
		prev := c.snapshot()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			s := c.snapshot()
			doneNow, donePrev := s.completed(), prev.completed()
			if dt := (s.Elapsed - prev.Elapsed).Seconds(); dt > 0 {
				s.RecentOpsPerSec = float64(doneNow-donePrev) / dt
			}
			prev = s
			select {
			case ch <- s:
			default:
			}
		}
	}()
	return ch
}
