package report

import (
	"fmt"
	"path/filepath"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/histories/pass"
)

// Row is one cell of a batch (a matrix, a suite or an audit): which
// scenario ran under which settings on which Kafka version, what the run
// measured, and the cell's Status, judged by the batch's own rule. The
// three batches share this one type; what each shows of it is its Page.
// JSON names are suite.json's; each page's JSON file lists the fields it
// keeps, renamed or left out when empty (Page.JSON), so no tag omits here.
type Row struct {
	// ID names the cell: "scenario/settings/version" in a suite (junit.xml
	// names its testcase so, and --baseline matches cells by it), the
	// varied settings in a matrix, the story in an audit.
	ID       string `json:"id"`
	Scenario string `json:"scenario"`
	// Description says what the story does to the cluster (audits).
	Description string `json:"description"`
	// Settings are the varied ones, e.g. unclean=true, elr=on (a
	// matrix's include kafka and run).
	Settings map[string]string `json:"settings"`
	Kafka    string            `json:"kafka"`
	// Status is the cell's judged status in its batch's vocabulary (a
	// verdict, a suite status, an audit finding): the page sorts it (Pass,
	// Fail, Skip), and the engine's exit rule reads that sorting
	// (harness.ExitCode).
	Status string `json:"status"`
	// Checks is each applicable expectation with what the run gave:
	// "lost-write > 0: got 2518".
	Checks []string `json:"checks"`
	// Summary is the run's measured anomalies and errors in one line
	// (suite.json's "outcome", kept for compatibility).
	Summary string `json:"outcome"`
	// Reason says why a cell is not a clean measurement: not applicable,
	// unjudged, not run (NotRun then), or the run's error.
	Reason string `json:"reason"`
	// NotRun: the story never ran (a cluster that could not start, a
	// missing image, an interruption first), so the row has no figure.
	NotRun bool   `json:"not_run"`
	RunDir string `json:"run_dir"`
	// Account is what the run's history shows the story did, in words
	// (StoryWords, audits): the branch it took under these settings.
	Account string `json:"account,omitempty"`
	// Seconds is the cell's wall time; StorySeconds the part its history
	// spans (workload, faults, final read). The rest is kchaos's overhead:
	// cluster start, check, report, teardown.
	Seconds      float64 `json:"seconds"`
	StorySeconds float64 `json:"story_seconds"`
	// Jira and Docs are the scenario's bugs and documents (a suite's
	// cells): shown beside the cell, in junit.xml as properties.
	Jira []string `json:"jira,omitempty"`
	Docs []string `json:"docs,omitempty"`
	// Finding is the scenario's JIRA status and minimal steps (a suite's
	// regression cells): the suite page's Findings section.
	Finding *histories.Finding `json:"finding,omitempty"`
	Measure
}

// Measure is what a run folder measured: the checker's verdict and
// counts, the offline windows and the send errors.
type Measure struct {
	Verdict RunVerdict `json:"verdict"`
	Acked   int        `json:"acked"`
	// Lost counts acked sends lost (lost-write), Reused offsets that came
	// to hold two values (offset-reuse).
	Lost   int `json:"acked_lost"`
	Reused int `json:"offsets_reused"`
	// Other counts the other anomaly kinds that occurred.
	Other map[string]int `json:"other_anomalies"`
	// Offline is the seconds each partition ("topic-P") was unavailable,
	// summed over its windows; every partition of the topic is listed,
	// 0 included, because "never offline" is the finding of half the rows.
	Offline       map[string]float64 `json:"offline_seconds"`
	OfflineSource string             `json:"offline_source"`
	// SendErrors counts send completions by error code.
	SendErrors map[string]int `json:"send_errors"`
}

// LongestOffline is the longest partition total of Offline.
func (m Measure) LongestOffline() float64 {
	longest := 0.0
	for _, s := range m.Offline {
		longest = max(longest, s)
	}
	return longest
}

// MeasureRun reads a finished run folder into a row in one pass over
// history.jsonl: results.json and run.json for the verdict and counts,
// the history for the send errors by code and the offline windows; visit
// (if not nil) sees every history event of that same pass, so a caller
// measuring more reads the history no second time. err says what could
// not be read (the row is usable whatever it says); histErr is set when
// the history itself could not be read to its end. A caller that has a
// pass over the history already (the run's check) uses MeasureScan.
func MeasureRun(runDir string, visit func(histories.Event)) (row Row, err, histErr error) {
	p := pass.New()
	s := NewScan(p)
	if visit != nil {
		p.Attach(pass.SinkFunc(func(e *histories.Event) { visit(*e) }))
	}
	if _, err := loadRun(runDir); err == nil {
		p.ReadFile(filepath.Join(runDir, HistoryFile))
	}
	return MeasureScan(runDir, s)
}

// MeasureScan is MeasureRun from a Scan of the folder's history (NewScan)
// whose pass has ended: the history is not read again.
func MeasureScan(runDir string, s *Scan) (row Row, err, histErr error) {
	row = Row{RunDir: runDir, Measure: Measure{Verdict: Unchecked, Offline: map[string]float64{}}}
	m := &row.Measure
	r, err := loadRun(runDir)
	if err != nil {
		return row, err, err
	}
	row.Scenario = r.name()
	for p := 0; p < r.Info.Partitions; p++ {
		m.Offline[tp{r.Info.Topic, int32(p)}.String()] = 0
	}
	tl := s.summary()
	if herr := s.histErr(); herr != nil {
		histErr = fmt.Errorf("%s: %v", runDir, herr)
	}
	if r.Res == nil {
		return row, fmt.Errorf("%s: %s", runDir, r.ResErr), histErr
	}
	res := r.Res
	m.Verdict = res.Valid
	m.Lost, m.Reused = res.count("lost-write"), res.count("offset-reuse")
	for _, k := range res.kinds() {
		if k != "lost-write" && k != "offset-reuse" {
			if m.Other == nil {
				m.Other = map[string]int{}
			}
			m.Other[k] = res.count(k)
		}
	}
	by, source := offlineByTP(r, tl)
	m.OfflineSource = source
	for _, o := range offlineRows(by) {
		m.Offline[o.TP] += o.Total
	}
	if histErr != nil {
		// Send errors are counted from the history: results.json counts
		// the errors of all ops together, polls included.
		m.SendErrors = res.Errors // all ops: better than nothing
		return row, histErr, histErr
	}
	for code, byF := range tl.Errors {
		if n := byF[histories.FSend]; n > 0 {
			if m.SendErrors == nil {
				m.SendErrors = map[string]int{}
			}
			m.SendErrors[code] = n
		}
	}
	return row, nil, nil
}

// rowFromRun reads a finished run folder into a row of the varied
// settings (MeasureRun, without a visitor). It always returns a usable
// Row: err, also kept in Row.Reason, says what could not be read.
func rowFromRun(runDir string, varied map[string]string) (Row, error) {
	row, err, _ := MeasureRun(runDir, nil)
	row.Settings = varied
	if err != nil {
		row.Reason = err.Error()
	}
	return row, err
}
