package harness

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/report"
)

// leaderMovingFaults are the nemesis ops after which leader_after_fault
// looks for a new leader: the ones that can take a leader away.
var leaderMovingFaults = map[string]bool{
	histories.FPartition: true, histories.FPause: true, histories.FKill: true,
	histories.FRestart: true, histories.FLoseUnflushed: true, histories.FElectUnclean: true,
}

// Metrics measures a finished run folder for expect.Judge: the checker's
// anomaly counts (from results.json), acked sends and send errors by code
// and leader_after_fault (from history.jsonl), and offline_seconds (the
// report's offline windows, the longest partition total). A metric the run
// folder cannot support is left out, so a check on it is unjudged, never
// guessed.
func Metrics(runDir string) (expect.Metrics, error) {
	_, m, err := measure(runDir)
	return m, err
}

// measure reads a finished run folder once: the row's figures
// (report.MeasureRun) and the metrics, from one pass over history.jsonl.
func measure(runDir string) (report.Row, expect.Metrics, error) {
	m := expect.Metrics{}
	sc := newRunScan()
	row, rerr, herr := report.MeasureRun(runDir, sc.add)
	if row.Verdict != report.Unchecked {
		for _, a := range expect.Anomalies {
			m[a] = 0
		}
		m["lost-write"] = float64(row.Lost)
		m["offset-reuse"] = float64(row.Reused)
		for k, n := range row.Other {
			m[k] = float64(n)
		}
		m[expect.OfflineSeconds] = row.LongestOffline()
	}
	if herr != nil {
		return row, m, fmt.Errorf("metrics: %w", herr)
	}
	m[expect.Acked] = float64(sc.acked)
	m[expect.Committed] = float64(sc.committed)
	m[expect.HistorySeconds] = float64(sc.last) / 1e9
	m[expect.AckedDuringFaults] = float64(sc.ackedFaulted)
	m[expect.ISRChanges] = float64(sc.isrChanges)
	m[expect.SendErrors] = 0
	for code, n := range sc.errs {
		m[expect.ErrorsPrefix+code] = float64(n)
		m[expect.SendErrors] += float64(n)
	}
	if sc.untils > 0 {
		m[expect.UntilsTimedOut] = float64(sc.untilsTimedOut)
	}
	if sc.leaderAfter >= 0 {
		m[expect.LeaderAfterFault] = float64(sc.leaderAfter)
	}
	sc.quorum.metrics(m)
	sc.voters.metrics(m)
	return row, m, rerr
}

// runScan is what one pass over a history measures.
type runScan struct {
	acked     int            // sends ok with an offset
	committed int            // txn ops ok (committed transactions)
	errs      map[string]int // send and txn completions by error
	// leaderAfter is the first broker other than partition 0's leader at
	// the first leader-moving fault that the observer saw leading it
	// afterwards (-1: none).
	leaderAfter int32
	last        int64 // the latest event time (ns since the run started)
	// ackedFaulted: sends acked while a lasting fault held; isrChanges:
	// observed ISR changes over the topic's partitions.
	ackedFaulted int
	isrChanges   int
	// untils: until ops recorded; untilsTimedOut: those that failed.
	untils, untilsTimedOut int
	// quorum measures the KRaft leadership around the first fault
	// (metrics_quorum.go).
	quorum quorumScan
	voters voterScan

	// The pass's state: partition 0's leader before the first
	// leader-moving fault, whether one happened, the lasting faults that
	// hold, and each partition's last ISR.
	before  int32
	faulted bool
	open    faultWindow
	isr     map[int32]string
}

// faultWindow follows which lasting faults hold, from the nemesis ops.
type faultWindow map[string]int

// apply counts a nemesis op's completion (ok only: an info op may or may
// not have taken).
func (w faultWindow) apply(f string, v histories.NemesisValue) {
	if histories.KindOf(f) == histories.Lasting {
		w[f]++
	}
	for open := range w {
		if f == histories.FHeal && histories.HealCovers(v.Fault, open) || f != histories.FHeal && histories.Undoes(f, open) {
			delete(w, open)
		}
	}
}

// scanForMetrics measures a history in one pass.
func scanForMetrics(r *histories.Reader) (*runScan, error) {
	sc := newRunScan()
	for {
		e, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return sc, nil
			}
			return sc, err
		}
		sc.add(e)
	}
}

func newRunScan() *runScan {
	return &runScan{errs: map[string]int{}, leaderAfter: -1, before: -1, open: faultWindow{}, isr: map[int32]string{},
		quorum: newQuorumScan(), voters: newVoterScan()}
}

// add measures one event.
func (sc *runScan) add(e histories.Event) {
	sc.last = max(sc.last, e.Time)
	switch {
	case e.Process >= 0 && (e.F == histories.FSend || e.F == histories.FTxn) && e.Type != histories.Invoke:
		switch {
		case e.Error != "":
			sc.errs[e.Error]++
		case e.Type != histories.OK:
		case e.F == histories.FTxn:
			sc.committed++
		default:
			var v histories.SendValue
			if e.Decode(&v) == nil && v.Offset != nil {
				sc.acked++
				if len(sc.open) > 0 {
					sc.ackedFaulted++
				}
			}
		}
	case e.Process == histories.NemesisProcess && e.F == histories.FUntil && e.Type != histories.Invoke:
		sc.untils++
		if e.Type == histories.Fail {
			sc.untilsTimedOut++
		}
	case e.Process == histories.NemesisProcess && e.Type != histories.Invoke &&
		(e.F == histories.FAddController || e.F == histories.FRemoveController):
		sc.voters.op(e)
	case e.Process == histories.NemesisProcess && e.Type == histories.Invoke && leaderMovingFaults[e.F]:
		sc.quorum.invoked(e.F, e.Time)
	case e.Process == histories.NemesisProcess && e.Type == histories.OK:
		var v histories.NemesisValue
		_ = e.Decode(&v)
		sc.open.apply(e.F, v)
		sc.faulted = sc.faulted || leaderMovingFaults[e.F]
		if leaderMovingFaults[e.F] {
			sc.quorum.fault(e.F, e.Time)
		}
	case e.F == histories.FQuorum && e.Process == histories.ObserverProcess:
		var q histories.QuorumValue
		if e.Decode(&q) == nil {
			sc.quorum.sample(e, q)
			sc.voters.sample(q, e.Time)
		}
	case e.F == histories.FObserve && e.Type == histories.OK:
		var v histories.ObserveValue
		if e.Decode(&v) != nil {
			return
		}
		set := slices.Clone(v.ISR)
		slices.Sort(set)
		key := fmt.Sprint(set)
		if prev, seen := sc.isr[v.Partition]; seen && prev != key {
			sc.isrChanges++
		}
		sc.isr[v.Partition] = key
		if v.Partition != 0 || v.Leader < 0 {
			return
		}
		if !sc.faulted {
			sc.before = v.Leader
		} else if sc.leaderAfter < 0 && v.Leader != sc.before {
			sc.leaderAfter = v.Leader
		}
	}
}
