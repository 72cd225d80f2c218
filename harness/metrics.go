package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/report"
)

// leaderMovingFaults are the nemesis ops after which leader_after_fault
// looks for a new leader: the ones that can take a leader away, as each
// fault kind declares (nemesis.Kind.MovesLeaders).
func leaderMovingFaults(f string) bool { return nemesis.MovesLeaders(f) }

// Metrics measures a finished run folder for expect.Judge: the checker's
// anomaly counts (from results.json), acked sends and send errors by code
// and leader_after_fault (from history.jsonl), and offline_seconds (the
// report's offline windows, the longest partition total). A metric the run
// folder cannot support is left out, so a check on it is unjudged, never
// guessed.
func Metrics(runDir string) (expect.Metrics, error) {
	_, m, err := measure(runDir, nil)
	return m, err
}

// Metrics is Metrics of the run's folder, from the check's pass over its
// history when there was one (the history is not read again).
func (r *RunResult) Metrics() (expect.Metrics, error) {
	_, m, err := measure(r.Dir, r.pass)
	return m, err
}

// runPass is the sinks a run attaches to its check's pass over the
// history (histories/pass): the report's Scan and the metrics. The run
// writes its report from it and its batch cell measures from it, so the
// history is decoded once per run.
type runPass struct {
	p       *pass.Pass
	report  *report.Scan
	metrics *runScan
}

func newRunPass() *runPass {
	p := pass.New()
	return &runPass{p: p, report: report.NewScan(p), metrics: attachRunScan(p)}
}

// measure reads a finished run folder: the row's figures
// (report.MeasureScan) and the metrics, from rp when its pass ended (the
// run's check read the history), else from one pass over history.jsonl.
func measure(runDir string, rp *runPass) (report.Row, expect.Metrics, error) {
	if rp == nil || !rp.p.Finished() {
		rp = newRunPass()
		rp.p.ReadFile(filepath.Join(runDir, report.HistoryFile))
	}
	m := expect.Metrics{}
	sc := rp.metrics
	row, rerr, herr := report.MeasureScan(runDir, rp.report)
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
	if sc.featureSets > 0 {
		m[expect.FeaturesRefused] = float64(sc.featuresRefused)
	}
	if sc.shareAcks > 0 {
		m[expect.ShareAcksUnanswered] = float64(sc.shareUnanswered)
	}
	if sc.groupFinals > 0 {
		m[expect.GroupReadBacksUnanswered] = float64(sc.groupFinals - sc.groupFinalsOK)
	}
	if sc.leaderAfter >= 0 {
		m[expect.LeaderAfterFault] = float64(sc.leaderAfter)
	}
	sc.quorum.metrics(m)
	sc.voters.metrics(m)
	// The bounds derived from the run's settings (expect.derivedMetrics):
	// a run folder without run.json, or whose run.json cannot give one,
	// leaves it out, so a check against it is unjudged.
	if info, err := histories.ReadRunInfo(filepath.Join(runDir, histories.RunInfoFile)); err == nil {
		d, _ := expect.Derive(info)
		maps.Copy(m, d)
		if info.MetadataVersion > 0 {
			m[expect.MetadataVersionAtStart] = float64(info.MetadataVersion)
		}
	}
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
	// featureSets: set-feature ops completed; featuresRefused: those
	// Kafka refused (completed fail: nemesis.Refusal).
	featureSets, featuresRefused int
	// shareAcks: the acks of finished share-ack ops; shareUnanswered:
	// those the client gave no result for (expect.ShareAcksUnanswered).
	shareAcks, shareUnanswered int
	// groupFinals: group-final ops invoked; groupFinalsOK: those that
	// ended ok (expect.GroupReadBacksUnanswered).
	groupFinals, groupFinalsOK int
	// quorum measures the KRaft leadership around the first fault
	// (metrics_quorum.go).
	quorum quorumScan
	voters voterScan

	// The pass's state: partition 0's leader before the first
	// leader-moving fault, whether one happened, and each partition's
	// last ISR; the pass (its Timeline holds the typed faults and
	// samples) and a send value's scratch.
	before  int32
	faulted bool
	isr     map[int32]string
	p       *pass.Pass
	sf      histories.SendFields
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

// newRunScan is a runScan on a pass of its own (add feeds it).
func newRunScan() *runScan { return attachRunScan(pass.New()) }

// attachRunScan attaches a runScan to p: it reads the faults and samples
// from p's Timeline, which decodes them.
func attachRunScan(p *pass.Pass) *runScan {
	sc := &runScan{p: p, errs: map[string]int{}, leaderAfter: -1, before: -1, isr: map[int32]string{},
		quorum: newQuorumScan(), voters: newVoterScan()}
	p.Attach(sc)
	return sc
}

// add feeds one event to the scan's pass.
func (sc *runScan) add(e histories.Event) { sc.p.Add(&e) }

// Add measures one event (pass.Sink).
func (sc *runScan) Add(e *histories.Event) {
	tl := &sc.p.Timeline
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
			if histories.DecodeSendValue(e.Value, &sc.sf) == nil && sc.sf.HasOffset {
				sc.acked++
				if tl.Holding() {
					sc.ackedFaulted++
				}
			}
		}
	case e.Process >= 0 && e.F == histories.FShareAck && e.Type == histories.OK:
		sc.shareAck(e.Value)
	case e.F == histories.FGroupFinal && e.Type == histories.Invoke:
		sc.groupFinals++
	case e.F == histories.FGroupFinal && e.Type == histories.OK:
		sc.groupFinalsOK++
	case e.Process == histories.NemesisProcess && e.F == histories.FUntil && e.Type != histories.Invoke:
		sc.untils++
		if e.Type == histories.Fail {
			sc.untilsTimedOut++
		}
	case e.Process == histories.NemesisProcess && e.Type != histories.Invoke &&
		(e.F == histories.FAddController || e.F == histories.FRemoveController):
		sc.voters.op(tl.LastNemesis())
	case e.Process == histories.NemesisProcess && e.Type != histories.Invoke && e.F == histories.FSetFeature:
		sc.featureSets++
		if e.Type == histories.Fail {
			sc.featuresRefused++
		}
	case e.Process == histories.NemesisProcess && e.Type == histories.Invoke && leaderMovingFaults(e.F):
		sc.quorum.invoked(e.F, e.Time)
	case e.Process == histories.NemesisProcess && e.Type == histories.OK:
		// The Timeline follows which lasting faults hold (Holding).
		sc.faulted = sc.faulted || leaderMovingFaults(e.F)
		if leaderMovingFaults(e.F) {
			sc.quorum.fault(e.F, e.Time)
		}
	case e.F == histories.FQuorum && e.Process == histories.ObserverProcess:
		if q := tl.LastQuorum(); q != nil {
			sc.quorum.sample(e.Time, q.Value)
			sc.voters.sample(q.Value, e.Time)
		}
	case e.F == histories.FObserve && e.Type == histories.OK:
		o := tl.LastObserved()
		if o == nil {
			return
		}
		v := &o.Value
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

// shareAck counts a finished share-ack op's acks and those its client
// answered nothing for. Only ok ops: an info op's flush did not finish,
// so a missing result there may still have come (workloads.shareAck).
func (sc *runScan) shareAck(raw []byte) {
	var v histories.ShareAckValue
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	for _, a := range v.Acks {
		sc.shareAcks++
		if a.Outcome == histories.ShareOutcomeInfo && a.Error == histories.ShareAckNoResult {
			sc.shareUnanswered++
		}
	}
}
