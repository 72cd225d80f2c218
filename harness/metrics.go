package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kchaos/kchaos/harness/expect"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/report"
)

// leaderMovingFaults are the nemesis ops after which leader_after_fault
// looks for a new leader: the ones that can take a leader away.
var leaderMovingFaults = map[string]bool{
	nemesis.FPartition: true, nemesis.FPause: true, nemesis.FKill: true,
	nemesis.FRestart: true, nemesis.FLoseUnflushed: true, nemesis.FElectUnclean: true,
}

// Metrics measures a finished run folder for expect.Judge: the checker's
// anomaly counts (from results.json), acked sends and send errors by code
// and leader_after_fault (from history.jsonl), and offline_seconds (the
// report's offline windows, the longest partition total). A metric the run
// folder cannot support is left out, so a check on it is unjudged, never
// guessed.
func Metrics(runDir string) (expect.Metrics, error) {
	m := expect.Metrics{}
	row, rerr := report.RowFromRun(runDir, nil)
	if row.Verdict != report.Unchecked {
		for _, a := range expect.Anomalies {
			m[a] = 0
		}
		m["lost-write"] = float64(row.Lost)
		m["offset-reuse"] = float64(row.Reused)
		for k, n := range row.Other {
			m[k] = float64(n)
		}
		longest := 0.0
		for _, s := range row.Offline {
			longest = max(longest, s)
		}
		m[expect.OfflineSeconds] = longest
	}
	f, err := os.Open(filepath.Join(runDir, report.HistoryFile))
	if err != nil {
		return m, fmt.Errorf("metrics: %w", err)
	}
	defer f.Close()
	acked, errs, leader, herr := scanForMetrics(histories.NewReader(f))
	if herr != nil {
		return m, fmt.Errorf("metrics: %s: %w", runDir, herr)
	}
	m[expect.Acked] = float64(acked)
	for code, n := range errs {
		m[expect.ErrorsPrefix+code] = float64(n)
	}
	if leader >= 0 {
		m[expect.LeaderAfterFault] = float64(leader)
	}
	return m, rerr
}

// scanForMetrics counts acked sends and send errors by code, and finds the
// first broker other than partition 0's leader at the first leader-moving
// fault that the observer saw leading it afterwards (-1: none).
func scanForMetrics(r *histories.Reader) (acked int, errs map[string]int, leaderAfter int32, err error) {
	errs = map[string]int{}
	leaderAfter = -1
	var before int32 = -1
	faulted := false
	for {
		e, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return acked, errs, leaderAfter, nil
			}
			return acked, errs, leaderAfter, err
		}
		switch {
		case e.Process >= 0 && e.F == histories.FSend && e.Type != histories.Invoke:
			if e.Error != "" {
				errs[e.Error]++
			} else if e.Type == histories.OK {
				var v histories.SendValue
				if e.Decode(&v) == nil && v.Offset != nil {
					acked++
				}
			}
		case e.Process == histories.NemesisProcess && e.Type == histories.OK && leaderMovingFaults[e.F]:
			faulted = true
		case e.F == histories.FObserve && e.Type == histories.OK:
			var v histories.ObserveValue
			if e.Decode(&v) != nil || v.Partition != 0 || v.Leader < 0 {
				continue
			}
			if !faulted {
				before = v.Leader
			} else if leaderAfter < 0 && v.Leader != before {
				leaderAfter = v.Leader
			}
		}
	}
}
