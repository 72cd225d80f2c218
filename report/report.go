// Package report turns a kchaos run folder into the evidence a durability
// review reads: report.md (text that diffs and pastes well), report.html
// (a self-contained page with a timeline of faults, partition state,
// sends and offsets), junit.xml (for CI dashboards), an optional
// screenshot of the page, and the comparison table of a configuration
// matrix.
//
// It reads files of a run folder and writes files there: no Docker, no
// network. The one exception is Screenshot, which starts a local headless
// Chromium (with its networking off) to prove that the page renders. The
// history is streamed and binned, so a history of millions of events gives
// a page of bounded size (about 130 KiB for 1M events over 8 partitions).
package report

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/owned"
)

// view is everything the three outputs show, computed once.
type view struct {
	Name, RunID   string
	Verdict       RunVerdict
	Summary       string // one line: what made the verdict
	Settings      []setting
	Expect        string             // the scenario's expected outcome (documentation)
	Jira, Docs    []string           // the Kafka bugs the scenario guards against, its documents
	Finding       *histories.Finding // the JIRA's status and the minimal steps
	Counts        []countRow
	Explanations  []explanation
	Reasons       []string // the checker's words for the verdict
	LinResult     string   // porcupine's overall result
	Lin           []linRow
	Lost, Reused  []rangeRow
	Epochs        []rangeRow // per partition, where each leader epoch starts in the final read
	Offline       []offlineRow
	OfflineSource string
	Errors        []errorRow
	ErrorsSource  string
	Ops           []opRow
	Nemesis       []nemRow
	Overrides     []override
	Visuals, Logs []string
	Problems      []string
	Events        int64
	Duration      string
	Timeline      svgDoc
	Legend        []legendItem
	Group         *groupView  // the consumer group's lanes (groups.go); nil without one
	Shares        *shareView  // the share group's members, redeliveries, start offsets (shareexplain.go)
	Quorum        *quorumView // the KRaft quorum's leaders and voters (quorum.go)
	// The nodes' own logs (logs/summary.json): counts per node and the
	// markers found, in time order.
	LogNodes []logNodeRow
	Markers  []markerRow
}

type countRow struct {
	Kind    string
	N       int
	Counted bool // counts against validity for this run (HISTORY.md)
}

type rangeRow struct {
	TP     string
	Ranges string
	N      int
}

type offlineRow struct {
	TP      string
	Windows []interval
	Total   float64
}

type errorRow struct {
	Code        string
	Sends, Rest int
	Pct         float64 // of the largest total, for the bars
}

type opRow struct {
	F              string
	OK, Fail, Info int
}

type nemRow struct{ Start, End, Desc string }

// Write reads the run folder dir and writes report.md, report.html and
// junit.xml into it. A run without results.json or with a damaged history
// still gets a report that says what is missing; only an unreadable
// folder or a failed write is an error (an *owned.Error, before anything
// is written, when an output exists and is not a regular file).
//
// Write decodes the history itself (one pass); a caller that has just
// checked it gives the checker's pass instead (WriteScan).
func Write(dir string) error { return WriteScan(dir, scanRun(dir)) }

// WriteScan is Write from a Scan of the folder's history, attached to the
// pass that checked it (NewScan): the history is not read again. The
// results are read from the folder, so a check's results.json must be
// written (and amended, as an interrupted run's is) first. A nil Scan, or
// one whose pass did not end, is Write.
func WriteScan(dir string, s *Scan) error {
	if s == nil || !s.p.Finished() {
		s = scanRun(dir) // no pass, or one a failed check abandoned
	}
	v, err := build(dir, s)
	if err != nil {
		return err
	}
	md := renderMarkdown(v)
	html, err := renderHTML(v)
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	junit, err := renderJUnit(v)
	if err != nil {
		return fmt.Errorf("junit.xml: %w", err)
	}
	// Every output is checked before the first is written (WriteOutput).
	if err := owned.CheckAll(dir, ReportMD, ReportHTML, JUnitFile); err != nil {
		return err
	}
	for _, o := range []struct {
		name string
		b    []byte
	}{{ReportMD, md}, {ReportHTML, html}, {JUnitFile, junit}} {
		if err := owned.Write(filepath.Join(dir, o.name), o.b); err != nil {
			return err
		}
	}
	return nil
}

func build(dir string, s *Scan) (*view, error) {
	r, err := loadRun(dir)
	if err != nil {
		return nil, err
	}
	tl, herr := s.timeline(marksFrom(r.Res, r.Info.Topic)), s.histErr()
	ss, qs := tl.shares, tl.quorum
	v := &view{
		Name: r.name(), RunID: filepath.Base(filepath.Clean(dir)),
		Verdict: r.verdict(), Settings: append(r.Settings, liveChanges(tl.Nemesis)...), Overrides: r.Over,
		Expect: r.Info.Expect, Jira: r.Info.Jira, Docs: r.Info.Docs, Finding: r.Info.Finding,
		Visuals: r.Visuals, Logs: r.Logs, Problems: r.Problems,
		Events: tl.Events, Duration: secs(tl.End),
	}
	if herr != nil {
		v.Problems = append(v.Problems, fmt.Sprintf("%s: %v (the report shows the events before it)", HistoryFile, herr))
	}
	if tl.Torn {
		v.Problems = append(v.Problems, HistoryFile+": the last line was torn (the harness stopped mid-write); it was skipped")
	}
	if nodes, marks, err := brokerLogs(dir); err != nil {
		v.Problems = append(v.Problems, err.Error())
	} else {
		v.LogNodes, v.Markers = nodes, marks
	}
	if r.Res != nil {
		for _, k := range anomalyOrder {
			v.Counts = append(v.Counts, countRow{k, r.Res.count(k), r.Res.counted(k)})
		}
		for _, k := range r.Res.kinds() {
			if !slices.Contains(anomalyOrder, k) {
				v.Counts = append(v.Counts, countRow{k, r.Res.count(k), r.Res.counted(k)})
			}
		}
		v.Explanations = slices.Concat(r.Res.Explanations, shareExplanations(r.Res, ss.topic), metadataExplanations(r.Res))
		for i := range v.Explanations {
			v.Explanations[i].LogsSay = logsSay(v.Explanations[i].src, v.Markers)
		}
		v.Lost = ranges(r.Res.Lost, r.Info.Topic)
		v.Reused = ranges(r.Res.Reused, r.Info.Topic)
		v.Reasons = r.Res.Reasons
		v.LinResult, v.Lin = r.Res.LinResult, r.Res.Lin
	}
	v.Summary = summary(v)
	offline, source := offlineByTP(r, tl)
	v.Offline, v.OfflineSource = offlineRows(offline), source
	v.Errors, v.ErrorsSource = errorRows(r, tl)
	for _, f := range slices.Sorted(maps.Keys(tl.Ops)) {
		c := tl.Ops[f]
		v.Ops = append(v.Ops, opRow{f, c[histories.OK], c[histories.Fail], c[histories.Info]})
	}
	v.Nemesis = faultRows(tl.Nemesis, tl.Requests)
	for _, p := range tl.sortedParts() {
		var es []string
		for _, ep := range p.epochs() {
			es = append(es, fmt.Sprintf("epoch %d from offset %d", ep[0], ep[1]))
		}
		if len(es) > 0 {
			v.Epochs = append(v.Epochs, rangeRow{TP: p.TP.String(), Ranges: strings.Join(es, ", "), N: len(es)})
		}
	}
	v.Group = s.gs.section(dir, tl.End)
	v.Shares, v.Quorum = shareSection(ss, r.Res, tl.Nemesis), quorumSection(qs, r.Res, tl.End)
	bs := bands(tl.Nemesis, tl.End)
	v.Timeline = timelineSVG(tl, bs, offline, r.Info.Replication, r.Info.ELR, v.Markers)
	seen := map[string]bool{}
	for _, b := range bs {
		if !seen[b.Kind] {
			seen[b.Kind] = true
			v.Legend = append(v.Legend, legendItem{faultColor(b.Kind), b.Kind})
		}
	}
	return v, nil
}

func summary(v *view) string {
	var parts []string
	for _, c := range v.Counts {
		if c.N > 0 {
			s := fmt.Sprintf("%d %s", c.N, c.Kind)
			if !c.Counted {
				s += " (not counted against validity)"
			}
			parts = append(parts, s)
		}
	}
	switch {
	case v.Verdict == Unchecked:
		return "no readable results.json"
	case len(parts) == 0:
		return "no anomalies"
	}
	return strings.Join(parts, ", ")
}

// ranges groups anomaly offsets per partition into contiguous ranges,
// the way the seed documents speak of loss ("records 61 to 99").
func ranges(locs []anomalyLoc, topic string) []rangeRow {
	by := map[tp]map[int64]bool{}
	for _, l := range locs {
		t := tp{l.Topic, l.Partition}
		if t.Topic == "" {
			t.Topic = topic
		}
		if by[t] == nil {
			by[t] = map[int64]bool{}
		}
		by[t][l.Offset] = true
	}
	var out []rangeRow
	for _, t := range sortedTPs(by) {
		offs := make([]int64, 0, len(by[t]))
		for o := range by[t] {
			offs = append(offs, o)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		var rs []string
		for i := 0; i < len(offs); {
			j := i
			for j+1 < len(offs) && offs[j+1] == offs[j]+1 {
				j++
			}
			if i == j {
				rs = append(rs, fmt.Sprint(offs[i]))
			} else {
				rs = append(rs, fmt.Sprintf("%d-%d", offs[i], offs[j]))
			}
			i = j + 1
		}
		out = append(out, rangeRow{t.String(), strings.Join(rs, ", "), len(offs)})
	}
	return out
}

// offlineByTP prefers the checker's unavailability (no leader observed,
// or sends failing until one was acked again) and falls back to the
// observer's leaderless spans.
func offlineByTP(r *run, tl *timeline) (map[tp][]interval, string) {
	if r.Res == nil || len(r.Res.Unavailable) == 0 {
		return tl.offline(), "observer: no leader observed (results.json gives no unavailability)"
	}
	by := map[tp][]interval{}
	for k, ivs := range r.Res.Unavailable {
		t := tp{Topic: k, Partition: -1}
		if i := strings.LastIndexByte(k, '-'); i > 0 {
			if p, err := strconv.ParseInt(k[i+1:], 10, 32); err == nil {
				t = tp{k[:i], int32(p)}
			}
		}
		by[t] = append(by[t], ivs...)
	}
	return by, "checker (results.json): no leader observed, or sends failing until one was acked"
}

// offlineRows totals each partition's windows as their union: the
// checker's no-leader and sends-failing windows overlap, and a sum would
// count those seconds twice.
func offlineRows(by map[tp][]interval) []offlineRow {
	var out []offlineRow
	for _, t := range sortedTPs(by) {
		ivs := slices.Clone(by[t])
		sort.SliceStable(ivs, func(i, j int) bool { return ivs[i].Start < ivs[j].Start })
		row := offlineRow{TP: t.String(), Windows: ivs}
		if t.Partition < 0 {
			row.TP = t.Topic
		}
		reach := int64(-1)
		for _, iv := range ivs {
			if iv.End <= reach {
				continue
			}
			row.Total += float64(iv.End-max(iv.Start, reach)) / 1e9
			reach = iv.End
		}
		out = append(out, row)
	}
	return out
}

// errorRows counts completions that carried an error, by code, from the
// history (it tells sends from reads); results.json's counts are the
// fallback when the history could not be read.
func errorRows(r *run, tl *timeline) ([]errorRow, string) {
	var out []errorRow
	source := "history"
	if len(tl.Errors) > 0 || tl.Events > 0 || r.Res == nil {
		for code, byF := range tl.Errors {
			row := errorRow{Code: code}
			for f, n := range byF {
				if f == histories.FSend {
					row.Sends += n
				} else {
					row.Rest += n
				}
			}
			out = append(out, row)
		}
	} else {
		source = "results.json, which counts all operations together (shown as other ops): the history could not be read"
		for code, n := range r.Res.Errors {
			out = append(out, errorRow{Code: code, Rest: n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Sends+out[i].Rest, out[j].Sends+out[j].Rest
		if a != b {
			return a > b
		}
		return out[i].Code < out[j].Code
	})
	if len(out) > 0 {
		top := float64(out[0].Sends + out[0].Rest)
		for i := range out {
			out[i].Pct = 100 * float64(out[i].Sends+out[i].Rest) / top
		}
	}
	return out, source
}

func sortedTPs[V any](m map[tp]V) []tp {
	out := make([]tp, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
